import type { Database } from 'better-sqlite3';
import type { CreationRow } from '../../audit/entry.ts';
import {
  AUDIT_FILTERS,
  auditFilters,
  auditParams,
  CLEAR_CREATIONS,
  COUNT_CREATIONS,
  CREATION_FILTERS,
  creationFilters,
  creationsPage,
  CREATIONS_PRUNED_SETTING,
  toAuditEntry,
  type AuditFilterName,
  type AuditRow,
  type CreationFilterName,
} from '../audit-rows.ts';
import type { AuditStore } from '../ports.ts';
import { outsideTransaction } from './outside-transaction.ts';
import * as q from './queries.ts';
import type { WriteHealth } from './write-health.ts';

/** The audit trail on one SQLite connection; writes report to `health`. */
export function createSqliteAuditStore(db: Database, health: WriteHealth): AuditStore {
  const insert = db.prepare<unknown[], number>(q.INSERT_AUDIT).pluck();
  const prune = db.prepare<[number]>(q.DELETE_AUDIT_BEFORE);
  const countBefore = db.prepare<[number], number>(q.COUNT_AUDIT_BEFORE).pluck();
  const setting = db.prepare<[string], string>(q.SETTING).pluck();
  const setSetting = db.prepare<[string, string]>(q.SET_SETTING);
  const clearCreations = db.prepare<[number, number]>(CLEAR_CREATIONS);
  const countCreations = db.prepare<[number, number], number>(COUNT_CREATIONS).pluck();
  // One statement per set of filters used, prepared when first needed.
  const statements = new Map<string, ReturnType<typeof db.prepare<unknown[], never>>>();
  const prepared = <Row>(key: string, sql: () => string) => {
    let statement = statements.get(key);
    if (!statement) statements.set(key, (statement = db.prepare<unknown[], never>(sql())));
    return statement as unknown as ReturnType<typeof db.prepare<unknown[], Row>>;
  };
  const page = (filters: AuditFilterName[]) =>
    prepared<AuditRow>(`audit ${filters.map((f) => AUDIT_FILTERS.indexOf(f))}`, () => q.auditPage(filters));
  const creations = (filters: CreationFilterName[], byCreator: boolean) =>
    prepared<CreationRow>(`creations ${byCreator} ${filters.map((f) => CREATION_FILTERS.indexOf(f))}`, () =>
      creationsPage(filters, byCreator),
    );
  // Creations before this were cleared by an earlier prune.
  const prunedBefore = () => Number(setting.get(CREATIONS_PRUNED_SETTING) ?? 0);
  return {
    insertAudit: (entry) => outsideTransaction(db, health, () => insert.get(...auditParams(entry))!),
    async listAudit(query) {
      const { filters, params } = auditFilters(query);
      return page(filters)
        .all(...params)
        .map(toAuditEntry);
    },
    async listCreations(query) {
      const { filters, byCreator, params } = creationFilters(query);
      return creations(filters, byCreator).all(...params);
    },
    pruneAudit: (before) =>
      outsideTransaction(db, health, () =>
        db
          .transaction(() => {
            const cleared = clearCreations.run(prunedBefore(), before.getTime()).changes;
            setSetting.run(CREATIONS_PRUNED_SETTING, String(before.getTime()));
            return prune.run(before.getTime()).changes + cleared;
          })
          .immediate(),
      ),
    countAuditBefore: async (before) =>
      (countBefore.get(before.getTime()) ?? 0) + (countCreations.get(prunedBefore(), before.getTime()) ?? 0),
  };
}
