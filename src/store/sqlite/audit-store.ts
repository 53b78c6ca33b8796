import type { Database } from 'better-sqlite3';
import { AUDIT_FILTERS, auditFilters, auditParams, toAuditEntry, type AuditFilterName, type AuditRow } from '../audit-rows.ts';
import type { AuditStore } from '../ports.ts';
import { outsideTransaction } from './outside-transaction.ts';
import * as q from './queries.ts';
import type { WriteHealth } from './write-health.ts';

/** The audit trail on one SQLite connection; writes report to `health`. */
export function createSqliteAuditStore(db: Database, health: WriteHealth): AuditStore {
  const insert = db.prepare<unknown[], number>(q.INSERT_AUDIT).pluck();
  const prune = db.prepare<[number]>(q.DELETE_AUDIT_BEFORE);
  const countBefore = db.prepare<[number], number>(q.COUNT_AUDIT_BEFORE).pluck();
  // One statement per set of filters used, prepared when first needed (at most 2^8).
  const pages = new Map<string, ReturnType<typeof db.prepare<unknown[], AuditRow>>>();
  const page = (filters: AuditFilterName[]) => {
    const key = filters.map((f) => AUDIT_FILTERS.indexOf(f)).join(',');
    let statement = pages.get(key);
    if (!statement) pages.set(key, (statement = db.prepare<unknown[], AuditRow>(q.auditPage(filters))));
    return statement;
  };
  return {
    insertAudit: (entry) => outsideTransaction(db, health, () => insert.get(...auditParams(entry))!),
    async listAudit(query) {
      const { filters, params } = auditFilters(query);
      return page(filters)
        .all(...params)
        .map(toAuditEntry);
    },
    pruneAudit: (before) => outsideTransaction(db, health, () => prune.run(before.getTime()).changes),
    countAuditBefore: async (before) => countBefore.get(before.getTime()) ?? 0,
  };
}
