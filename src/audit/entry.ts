/** What the audit trail records: who did what to which thing, when and how they came. */

/** Every action the audit trail knows: a closed list, so that a filter or a page can name them all. */
export const AUDIT_ACTIONS = [
  'link.create',
  'link.edit',
  'link.disable',
  'link.enable',
  'link.delete',
  'link.move',
  'link.transfer',
  'link.approve',
  'link.reject',
  'key.create',
  'key.revoke',
  'user.create',
  'user.disable',
  'user.enable',
  'user.role',
  'user.reset',
  'user.handover',
  'domain.add',
  'domain.edit',
  'domain.remove',
  'tag.rename',
  'tag.delete',
  'webhook.create',
  'webhook.delete',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const SUBJECT_KINDS = ['link', 'key', 'user', 'domain', 'tag', 'webhook'] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

/** What an entry is about: its kind and id, and a label to show when it is gone (a short URL, a key's or user's name, a host). */
export interface AuditSubject {
  kind: SubjectKind;
  id: number;
  label: string;
}

/** What changed, briefly (`{ from: 'a.example', to: 'b.example' }` for a move): never a secret or a password hash. */
export type AuditDetails = Record<string, string | number | boolean | null>;

export interface AuditEntry {
  /**
   * Unique among entries, opaque: a logged entry's number ("12"), or "c" and the link's id for a link's
   * creation, which its link row records (see CreationQuery).
   */
  id: string;
  at: Date;
  /** The user who acted; null once the trail keeps an entry of a user it no longer knows (never for a new entry). */
  actorId: number | null;
  actorName: string;
  via: 'session' | 'key' | 'password' | 'cli' | 'anonymous';
  /** The API key's name when `via` is 'key'. */
  keyName: string | null;
  /** The client's address; null for the CLI. */
  client: string | null;
  action: AuditAction;
  subject: AuditSubject;
  details: AuditDetails;
}

export type NewAuditEntry = Omit<AuditEntry, 'id'>;

/**
 * Where a page of entries starts: after this entry, newest first. Entries are ordered by time, then logged
 * entries before creations, then by id (a logged entry's, or a created link's).
 */
export interface AuditPosition {
  at: number;
  id: number;
  creation: boolean;
}

/** A store's query: every field given narrows it; newest first. */
export interface AuditQuery {
  actorId?: number | undefined;
  actorName?: string | undefined;
  /** One action. */
  action?: AuditAction | undefined;
  /** Actions starting with this (`link.`). */
  actionPrefix?: string | undefined;
  subject?: { kind: SubjectKind; id: number } | undefined;
  /** Entries at or after. */
  from?: Date | undefined;
  /** Entries before. */
  to?: Date | undefined;
  /** Entries after this one (at ms, id), newest first. */
  after?: { at: number; id: number } | undefined;
  limit: number;
}

/**
 * A store's query of link creations. A link created through kurz records who created it on its own row
 * (not one audit row per creation, which cost creation a third of its rate), and the trail shows that as a
 * `link.create` entry. Every field given narrows it; newest first (by time, then link id).
 */
export interface CreationQuery {
  /** Creations by this user (their id): read through the owner's index while they own the link. */
  creatorId?: number | undefined;
  /** Only the creations through the form on / without an account (true), or none of them (false). */
  anonymous?: boolean | undefined;
  linkId?: number | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  after?: { at: number; id: number } | undefined;
  limit: number;
}

/** Who acted and how they came, as an entry and both sources of entries keep it. */
export type AuditActor = Pick<AuditEntry, 'actorId' | 'actorName' | 'via' | 'keyName' | 'client'>;

/** A link's creation as its row records it: the entry without its label, which the trail makes from the address. */
export interface CreationRow extends AuditActor {
  linkId: number;
  at: number;
  domain: number;
  code: string;
  /** The target the link was created with. */
  url: string;
}

export const isAuditAction = (value: string): value is AuditAction => (AUDIT_ACTIONS as readonly string[]).includes(value);
