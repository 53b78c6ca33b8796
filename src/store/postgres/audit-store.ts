import { auditFilters, auditParams, toAuditEntry, type AuditRow } from '../audit-rows.ts';
import type { AuditStore } from '../ports.ts';
import type { Database } from './database.ts';
import * as q from './queries.ts';

/** The audit trail on a PostgreSQL pool. */
export function createPostgresAuditStore(db: Database): AuditStore {
  return {
    insertAudit: async (entry) => (await db.query<{ id: number }>(q.INSERT_AUDIT, auditParams(entry))).rows[0]!.id,
    async listAudit(query) {
      const { filters, params } = auditFilters(query);
      return (await db.query<AuditRow>(q.auditPage(filters), params)).rows.map(toAuditEntry);
    },
    pruneAudit: async (before) => (await db.query(q.DELETE_AUDIT_BEFORE, [before.getTime()])).rowCount ?? 0,
    countAuditBefore: async (before) => (await db.query<{ count: number }>(q.COUNT_AUDIT_BEFORE, [before.getTime()])).rows[0]?.count ?? 0,
  };
}
