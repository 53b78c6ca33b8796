import { FIRST_ADMIN, type Actor } from '../auth/actor.ts';
import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { AuditStore } from '../store/ports.ts';
import {
  isAuditAction,
  SUBJECT_KINDS,
  type AuditAction,
  type AuditDetails,
  type AuditEntry,
  type AuditPosition,
  type AuditSubject,
  type CreationQuery,
  type CreationRow,
  type NewAuditEntry,
  type SubjectKind,
} from './entry.ts';

export * from './entry.ts';

const DAY = 86_400_000;
/** The most entries one page holds. */
export const MAX_AUDIT_LIMIT = 500;
export const DEFAULT_AUDIT_LIMIT = 50;
/** A detail's text is cut to this many characters: details say what changed, briefly. */
const MAX_DETAIL = 200;

/** What `list` filters by; every field given narrows the page. */
export interface AuditFilter {
  /** A user's id, or their name. */
  user?: number | string | undefined;
  /** One action (`link.move`), or every action of a kind (`link.` or `link`). */
  action?: string | undefined;
  subject?: { kind: SubjectKind; id: number } | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** 1 to 500; 50 when absent. */
  limit?: number | undefined;
  /** The `next` of the page before. */
  cursor?: string | undefined;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** The cursor of the next page; null on the last. */
  next: string | null;
}

export interface AuditTrail {
  /**
   * Records that `actor` did `action` to `subject`. Never rejects: the change it records is done, so a
   * failed write is logged (error level) and the caller's success stands. A link's creation is not recorded
   * here: the link's row records it (NewLink.createdBy).
   */
  record(actor: Actor, action: Exclude<AuditAction, 'link.create'>, subject: AuditSubject, details?: AuditDetails): Promise<void>;
  /** Entries newest first, one page. Throws AppError('invalid') naming the bad filter (`action`, `limit`, `cursor`, `from`). */
  list(filter?: AuditFilter): Promise<AuditPage>;
  /** Deletes entries older than the retention period (none when it is 0); returns how many. */
  prune(): Promise<number>;
  /** Entries prune would delete. */
  expired(): Promise<number>;
}

export interface AuditDeps {
  store: AuditStore;
  now: () => number;
  /** Days an entry is kept; 0 keeps them for good. */
  retentionDays: number;
  log: Logger;
  /** A link as entries name it (its short URL): for the creations that links record. */
  linkSubject: (link: { id: number; domain: number; code: string }) => AuditSubject;
  /** The id of the user with this name, if there is one. */
  userIdOf: (name: string) => Promise<number | undefined>;
}

/** The row that records `actor` doing `action` to `subject` at `at`. */
function auditEntry(at: Date, actor: Actor, action: AuditAction, subject: AuditSubject, details: AuditDetails = {}): NewAuditEntry {
  return {
    at,
    actorId: actor.userId,
    actorName: actor.name,
    via: actor.via.kind,
    keyName: actor.via.kind === 'key' ? actor.via.key : null,
    client: actor.client ?? null,
    action,
    subject: { ...subject, label: short(subject.label) },
    details: Object.fromEntries(Object.entries(details).map(([k, v]) => [k, typeof v === 'string' ? short(v) : v])),
  };
}

/** The audit trail: who did what, recorded by the use cases, read by admins. */
export function auditTrail({ store, now, retentionDays, log, linkSubject, userIdOf }: AuditDeps): AuditTrail {
  const cutoff = (): Date | undefined => (retentionDays === 0 ? undefined : new Date(now() - retentionDays * DAY));

  /** What of the link creations (which links record) a filter asks for; undefined for none. */
  async function creationQuery(
    filter: AuditFilter,
    actions: ReturnType<typeof actionQuery>,
  ): Promise<Omit<CreationQuery, 'limit'> | undefined> {
    const { user, subject } = filter;
    if (actions.action !== undefined && actions.action !== 'link.create') return undefined;
    if (actions.actionPrefix !== undefined && actions.actionPrefix !== 'link.') return undefined;
    if (subject !== undefined && subject.kind !== 'link') return undefined;
    const linkId = subject?.id;
    if (user === undefined || typeof user === 'number') return { creatorId: user, linkId };
    // Someone shortening without an account creates as the first admin, under the name "anonymous".
    if (user === 'anonymous') return { creatorId: FIRST_ADMIN, anonymous: true, linkId };
    const creatorId = await userIdOf(user);
    return creatorId === undefined ? undefined : { creatorId, anonymous: false, linkId };
  }

  function creationEntry(row: CreationRow): AuditEntry {
    const { linkId, domain, code, url, ...who } = row;
    const subject = linkSubject({ id: linkId, domain, code });
    return {
      ...who,
      id: `c${linkId}`,
      at: new Date(row.at),
      action: 'link.create',
      subject: { ...subject, label: short(subject.label) },
      details: { url: short(url) },
    };
  }

  return {
    async record(actor, action, subject, details = {}) {
      try {
        await store.insertAudit(auditEntry(new Date(now()), actor, action, subject, details));
      } catch (err) {
        log.error('could not record to the audit trail', { action, subject: `${subject.kind} ${subject.id}`, err });
      }
    },

    async list(filter = {}) {
      const limit = filter.limit ?? DEFAULT_AUDIT_LIMIT;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIT_LIMIT)
        throw new AppError('invalid', `limit must be a whole number from 1 to ${MAX_AUDIT_LIMIT}`, 'limit');
      if (filter.from && filter.to && filter.from.getTime() >= filter.to.getTime())
        throw new AppError('invalid', 'from must be before to', 'from');
      const after = filter.cursor === undefined ? undefined : parseCursor(filter.cursor);
      const actions = actionQuery(filter.action);
      const { user, subject, from, to } = filter;
      // Entries are ordered by time, then logged entries before creations, then id (see AuditPosition):
      // after a creation, a logged entry of the same millisecond has come already; after a logged one, a
      // creation of the same millisecond has not.
      const creationsToo = await creationQuery(filter, actions);
      const [logged, creations] = await Promise.all([
        store.listAudit({
          ...actions,
          actorId: typeof user === 'number' ? user : undefined,
          actorName: typeof user === 'string' ? user : undefined,
          subject,
          from,
          to,
          after: after && { at: after.at, id: after.creation ? 0 : after.id },
          limit: limit + 1,
        }),
        creationsToo
          ? store.listCreations({
              ...creationsToo,
              from,
              to,
              after: after && { at: after.at, id: after.creation ? after.id : Number.MAX_SAFE_INTEGER },
              limit: limit + 1,
            })
          : [],
      ]);
      const entries = merge(logged, creations.map(creationEntry), limit + 1);
      const more = entries.length > limit;
      const page = more ? entries.slice(0, limit) : entries;
      const last = page.at(-1);
      return { entries: page, next: more && last ? cursorOf(positionOf(last)) : null };
    },

    async prune() {
      const before = cutoff();
      return before ? store.pruneAudit(before) : 0;
    },

    async expired() {
      const before = cutoff();
      return before ? store.countAuditBefore(before) : 0;
    },
  };
}

/** `link.move` as itself; `link.` or `link` as every action of links. Throws AppError naming `action` otherwise. */
function actionQuery(action: string | undefined): { action?: AuditAction; actionPrefix?: string } {
  if (action === undefined) return {};
  if (isAuditAction(action)) return { action };
  const prefix = action.endsWith('.') ? action : `${action}.`;
  if (/^[a-z]+\.$/.test(prefix) && AUDIT_PREFIXES.has(prefix)) return { actionPrefix: prefix };
  throw new AppError(
    'invalid',
    `unknown action "${action}" (an action such as link.move, or a kind: ${SUBJECT_KINDS.join(', ')})`,
    'action',
  );
}

const AUDIT_PREFIXES = new Set(SUBJECT_KINDS.map((kind) => `${kind}.`));

/** A page's position as an opaque cursor: `at.id` after a logged entry, `at.id.c` after a creation. */
export function cursorOf(position: AuditPosition): string {
  return `${position.at.toString(36)}.${position.id.toString(36)}${position.creation ? '.c' : ''}`;
}

function parseCursor(cursor: string): AuditPosition {
  const match = /^([0-9a-z]{1,12})\.([0-9a-z]{1,12})(\.c)?$/.exec(cursor);
  const at = match ? parseInt(match[1]!, 36) : NaN;
  const id = match ? parseInt(match[2]!, 36) : NaN;
  if (!Number.isSafeInteger(at) || !Number.isSafeInteger(id)) throw new AppError('invalid', 'cursor is not one a page gave', 'cursor');
  return { at, id, creation: match?.[3] !== undefined };
}

/** Where an entry stands in the trail's order. */
function positionOf(entry: AuditEntry): AuditPosition {
  const creation = entry.id.startsWith('c');
  return { at: entry.at.getTime(), id: Number(creation ? entry.id.slice(1) : entry.id), creation };
}

/** True when `a` comes before `b`, newest first: by time, then logged entries before creations, then by id. */
function before(a: AuditPosition, b: AuditPosition): boolean {
  if (a.at !== b.at) return a.at > b.at;
  if (a.creation !== b.creation) return b.creation;
  return a.id > b.id;
}

/** The first `count` entries of two pages, each in the trail's order, merged. */
function merge(logged: AuditEntry[], creations: AuditEntry[], count: number): AuditEntry[] {
  const entries: AuditEntry[] = [];
  let i = 0;
  let j = 0;
  while (entries.length < count && (i < logged.length || j < creations.length)) {
    const takeLogged = j >= creations.length || (i < logged.length && before(positionOf(logged[i]!), positionOf(creations[j]!)));
    entries.push(takeLogged ? logged[i++]! : creations[j++]!);
  }
  return entries;
}

function short(text: string): string {
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL - 1)}…` : text;
}
