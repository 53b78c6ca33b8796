import type { AuditEntry } from './entry.ts';

/** An entry as the API, `kurz audit --json` and the pages' data show it: the time as ISO 8601. */
export function auditJson(entry: AuditEntry) {
  return { ...entry, at: entry.at.toISOString() };
}

/** `user` as a query gives it: digits are a user's id, anything else a name. */
export function userFilter(user: string | undefined): number | string | undefined {
  return user !== undefined && /^\d{1,15}$/.test(user) ? Number(user) : user;
}
