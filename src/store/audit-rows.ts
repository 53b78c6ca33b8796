import type { AuditAction, AuditDetails, AuditEntry, AuditQuery, NewAuditEntry, SubjectKind } from '../audit/entry.ts';

// The audit trail's rows as both backends read and write them (times in milliseconds, details as JSON text),
// and the filters of a page, in the order both backends' queries take their parameters.

export interface AuditRow {
  id: number;
  at: number;
  actorId: number | null;
  actorName: string;
  via: AuditEntry['via'];
  keyName: string | null;
  client: string | null;
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
    id: row.id,
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
