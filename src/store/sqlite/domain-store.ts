import type { Database } from 'better-sqlite3';
import type { DomainUser } from '../../domains/domain.ts';
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
  const clearUsers = db.prepare<[number]>(q.CLEAR_DOMAIN_USERS);
  const addUser = db.prepare<[number, number]>(q.ADD_DOMAIN_USER);
  const liveLinks = db.prepare<[number], number>(q.LIVE_LINKS_ON_DOMAIN).pluck();
  const removeDomain = db.prepare<[number, number]>(q.REMOVE_DOMAIN);

  /** Sets who may use the domain (inside the transaction that writes its row). */
  function setUsers(id: number, users: readonly DomainUser[] | null): void {
    clearUsers.run(id);
    for (const user of users ?? []) addUser.run(id, user.id);
  }

  return {
    listDomains: async () => listDomains.all().map(toDomainUse),

    insertDomain: ({ users, ...domain }) =>
      outsideTransaction(db, health, () =>
        db
          .transaction(() => {
            try {
              const row = { ...domain, createdAt: domain.createdAt.getTime(), limited: users === null ? 0 : 1 };
              const id = Number(insertDomain.run(row).lastInsertRowid);
              setUsers(id, users);
              return toDomain(domainById.get(id)!);
            } catch (err) {
              if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
              throw err;
            }
          })
          .immediate(),
      ),

    updateDomain: (id, edit) =>
      outsideTransaction(db, health, () =>
        db
          .transaction(() => {
            const row = domainById.get(id);
            if (!row) return undefined;
            const merged = { ...toDomain(row), ...edit };
            const limited = edit.users === undefined ? null : edit.users === null ? 0 : 1;
            updateDomain.run({
              id,
              scheme: merged.scheme,
              notFoundRedirect: merged.notFoundRedirect,
              rootRedirect: merged.rootRedirect,
              limited,
            });
            if (edit.users !== undefined) setUsers(id, edit.users);
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
