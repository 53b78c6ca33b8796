import type { CreationRow } from '../../audit/entry.ts';
import {
  auditFilters,
  auditParams,
  CLEAR_CREATIONS,
  COUNT_CREATIONS,
  creationFilters,
  creationsPage,
  CREATIONS_PRUNED_SETTING,
  toAuditEntry,
  type AuditRow,
} from '../audit-rows.ts';
import type { AuditStore } from '../ports.ts';
import type { Database, Querier } from './database.ts';
import * as q from './queries.ts';

/** The audit trail on a PostgreSQL pool. */
export function createPostgresAuditStore(db: Database): AuditStore {
  // Creations before this were cleared by an earlier prune.
  const prunedBefore = async (tx: Querier) =>
    Number((await tx.query<{ value: string }>(q.SETTING, [CREATIONS_PRUNED_SETTING])).rows[0]?.value ?? 0);
  return {
    insertAudit: async (entry) => (await db.query<{ id: number }>(q.INSERT_AUDIT, auditParams(entry))).rows[0]!.id,
    async listAudit(query) {
      const { filters, params } = auditFilters(query);
      return (await db.query<AuditRow>(q.auditPage(filters), params)).rows.map(toAuditEntry);
    },
    async listCreations(query) {
      const { filters, byCreator, params } = creationFilters(query);
      return (await db.query<CreationRow>(q.numbered(creationsPage(filters, byCreator)), params)).rows;
    },
    pruneAudit: (before) =>
      db.transaction(async (tx) => {
        const cleared = (await tx.query(q.numbered(CLEAR_CREATIONS), [await prunedBefore(tx), before.getTime()])).rowCount ?? 0;
        await tx.query(q.SET_SETTING, [CREATIONS_PRUNED_SETTING, String(before.getTime())]);
        return ((await tx.query(q.DELETE_AUDIT_BEFORE, [before.getTime()])).rowCount ?? 0) + cleared;
      }),
    async countAuditBefore(before) {
      const logged = (await db.query<{ count: number }>(q.COUNT_AUDIT_BEFORE, [before.getTime()])).rows[0]?.count ?? 0;
      const creations = (await db.query<{ count: number }>(q.numbered(COUNT_CREATIONS), [await prunedBefore(db), before.getTime()])).rows[0]
        ?.count;
      return logged + (creations ?? 0);
    },
  };
}
