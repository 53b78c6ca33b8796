import type { Database } from 'better-sqlite3';
import type { DomainStore } from '../ports.ts';
import { toDomain, toDomainUse, type DomainRow } from '../rows.ts';
import { outsideTransaction } from './outside-transaction.ts';
import * as q from './queries.ts';
import type { WriteHealth } from './write-health.ts';

/** The short domains on one SQLite connection; writes report to `health`. */
export function createSqliteDomainStore(db: Database, health: WriteHealth): DomainStore {
  const listDomains = db.prepare<[], DomainRow>(q.LIST_DOMAINS);
  const domainById = db.prepare<[number], DomainRow>(q.DOMAIN_BY_ID);
  const insertDomain = db.prepare(q.INSERT_DOMAIN);
  const updateDomain = db.prepare(q.UPDATE_DOMAIN);
  const liveLinks = db.prepare<[number], number>(q.LIVE_LINKS_ON_DOMAIN).pluck();
  const removeDomain = db.prepare<[number, number]>(q.REMOVE_DOMAIN);

  return {
    listDomains: async () => listDomains.all().map(toDomainUse),

    insertDomain: (domain) =>
      outsideTransaction(db, health, () => {
        try {
          const { lastInsertRowid } = insertDomain.run({ ...domain, createdAt: domain.createdAt.getTime() });
          return toDomain(domainById.get(Number(lastInsertRowid))!);
        } catch (err) {
          if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
          throw err;
        }
      }),

    updateDomain: (id, edit) =>
      outsideTransaction(db, health, () =>
        db
          .transaction(() => {
            const row = domainById.get(id);
            if (!row) return undefined;
            const merged = { ...toDomain(row), ...edit };
            updateDomain.run({ id, scheme: merged.scheme, notFoundRedirect: merged.notFoundRedirect, rootRedirect: merged.rootRedirect });
            return toDomain(domainById.get(id)!);
          })
          .immediate(),
      ),

    removeDomain: (id, at) =>
      // One transaction: no link can land on the domain between the count and the removal.
      outsideTransaction(db, health, () =>
        db
          .transaction(() => {
            if (!domainById.get(id)) return 'not_found' as const;
            if (liveLinks.get(id)! > 0) return 'in_use' as const;
            return removeDomain.run(at.getTime(), id).changes === 1 ? ('removed' as const) : ('not_found' as const);
          })
          .immediate(),
      ),
  };
}
