import type { Actor } from '../auth/actor.ts';
import type {
  AuditAction,
  AuditActor,
  AuditDetails,
  AuditEntry,
  AuditQuery,
  CreationQuery,
  NewAuditEntry,
  SubjectKind,
} from '../audit/entry.ts';

// The audit trail's rows as both backends read and write them (times in milliseconds, details as JSON text),
// and the filters of a page, in the order both backends' queries take their parameters.

export interface AuditRow extends AuditActor {
  id: number;
  at: number;
  action: AuditAction;
  subjectKind: SubjectKind;
  subjectId: number;
  subjectLabel: string;
  details: string;
}

/** The filters a page can have, each a fragment of both backends' queries. */
export const AUDIT_FILTERS = ['actorId', 'actorName', 'action', 'actionPrefix', 'subject', 'from', 'to', 'after'] as const;
export type AuditFilterName = (typeof AUDIT_FILTERS)[number];

export function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    id: String(row.id),
    at: new Date(row.at),
    actorId: row.actorId,
    actorName: row.actorName,
    via: row.via,
    keyName: row.keyName,
    client: row.client,
    action: row.action,
    subject: { kind: row.subjectKind, id: row.subjectId, label: row.subjectLabel },
    details: JSON.parse(row.details) as AuditDetails,
  };
}

/** An INSERT's parameters, in the column order of both backends' INSERT_AUDIT. */
export function auditParams(entry: NewAuditEntry): unknown[] {
  const { subject } = entry;
  return [
    entry.at.getTime(),
    entry.actorId,
    entry.actorName,
    entry.via,
    entry.keyName,
    entry.client,
    entry.action,
    subject.kind,
    subject.id,
    subject.label,
    JSON.stringify(entry.details),
  ];
}

/** The filters `query` uses, and their parameters in order (then the limit). */
export function auditFilters(query: AuditQuery): { filters: AuditFilterName[]; params: unknown[] } {
  const filters: AuditFilterName[] = [];
  const params: unknown[] = [];
  const add = (name: AuditFilterName, ...values: unknown[]) => {
    filters.push(name);
    params.push(...values);
  };
  if (query.actorId !== undefined) add('actorId', query.actorId);
  if (query.actorName !== undefined) add('actorName', query.actorName);
  if (query.action !== undefined) add('action', query.action);
  // 'link.' ≤ action < 'link/': every action starting with 'link.' ('/' follows '.'), through the index.
  if (query.actionPrefix !== undefined) add('actionPrefix', query.actionPrefix, `${query.actionPrefix.slice(0, -1)}/`);
  if (query.subject !== undefined) add('subject', query.subject.kind, query.subject.id);
  if (query.from !== undefined) add('from', query.from.getTime());
  if (query.to !== undefined) add('to', query.to.getTime());
  if (query.after !== undefined) add('after', query.after.at, query.after.id);
  params.push(query.limit);
  return { filters, params };
}

// Link creations, which each link's row records (creator_id, created_via, created_key, created_client, and
// created_url once an edit changed the target): SQL both backends run, with ? for each parameter in order.

const CREATION_COLUMNS = `id AS "linkId", created_at AS at, creator_id AS "actorId",
  CASE WHEN created_via = 'anonymous' THEN 'anonymous' ELSE coalesce((SELECT name FROM users WHERE users.id = links.creator_id), '') END
    AS "actorName",
  created_via AS via, created_key AS "keyName", created_client AS client, domain_id AS domain, code, coalesce(created_url, url) AS url`;

/** Who created a link, as its row's creator columns record them (as an audit entry records its actor). */
export function creatorColumns(actor: Actor) {
  return {
    creatorId: actor.userId,
    createdVia: actor.via.kind,
    createdKey: actor.via.kind === 'key' ? actor.via.key : null,
    createdClient: actor.client ?? null,
  };
}

/** The filters of a page of creations, each a fragment of its WHERE; the creator's is the shape of the query. */
export const CREATION_FILTERS = ['anonymous', 'notAnonymous', 'linkId', 'from', 'to', 'after'] as const;
export type CreationFilterName = (typeof CREATION_FILTERS)[number];

const CREATION_FRAGMENTS: Record<CreationFilterName, string> = {
  anonymous: `created_via = 'anonymous'`,
  notAnonymous: `created_via <> 'anonymous'`,
  linkId: 'id = ?',
  from: 'created_at >= ?',
  to: 'created_at < ?',
  after: '(created_at, id) < (?, ?)',
};

/**
 * One page of creations with these filters, then LIMIT ?. With a creator, two parts: the links they still
 * own (index links_by_owner), and those handed to someone else (index links_handed_on, which holds only
 * those); without one, every creation newest first (index links_by_created).
 */
export function creationsPage(filters: readonly CreationFilterName[], byCreator: boolean): string {
  const where = ['created_via IS NOT NULL', ...filters.map((f) => CREATION_FRAGMENTS[f])].join(' AND ');
  if (!byCreator) return `SELECT ${CREATION_COLUMNS} FROM links WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ?`;
  return `SELECT * FROM (
    SELECT ${CREATION_COLUMNS} FROM links WHERE owner_id = ? AND creator_id = owner_id AND ${where}
    UNION ALL
    SELECT ${CREATION_COLUMNS} FROM links WHERE creator_id <> owner_id AND creator_id = ? AND ${where}
  ) AS creations ORDER BY at DESC, "linkId" DESC LIMIT ?`;
}

/** The filters `query` uses, and the page's parameters in order (the creator's and the filters' per part, then the limit). */
export function creationFilters(query: CreationQuery): { filters: CreationFilterName[]; byCreator: boolean; params: unknown[] } {
  const filters: CreationFilterName[] = [];
  const values: unknown[] = [];
  const add = (name: CreationFilterName, ...more: unknown[]) => {
    filters.push(name);
    values.push(...more);
  };
  if (query.anonymous !== undefined) add(query.anonymous ? 'anonymous' : 'notAnonymous');
  if (query.linkId !== undefined) add('linkId', query.linkId);
  if (query.from !== undefined) add('from', query.from.getTime());
  if (query.to !== undefined) add('to', query.to.getTime());
  if (query.after !== undefined) add('after', query.after.at, query.after.id);
  const { creatorId } = query;
  const params = creatorId === undefined ? [...values, query.limit] : [creatorId, ...values, creatorId, ...values, query.limit];
  return { filters, byCreator: creatorId !== undefined, params };
}

/** The setting that holds how far pruning has cleared creations: each prune reads only the links created since. */
export const CREATIONS_PRUNED_SETTING = 'audit.creationsPrunedBefore';

/** Clears the creation records of links created from ? to before ?, the retention period's end. */
export const CLEAR_CREATIONS = `UPDATE links SET creator_id = NULL, created_via = NULL, created_key = NULL, created_client = NULL,
  created_url = NULL WHERE created_at >= ? AND created_at < ? AND created_via IS NOT NULL`;

/** The creation records CLEAR_CREATIONS would clear. */
export const COUNT_CREATIONS = `SELECT count(*) AS count FROM links WHERE created_at >= ? AND created_at < ? AND created_via IS NOT NULL`;
