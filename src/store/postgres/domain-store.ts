import type { DomainStore } from '../ports.ts';
import { toDomain, toDomainUse, type DomainRow } from '../rows.ts';
import type { Database } from './database.ts';
import * as q from './queries.ts';

/**
 * The short domains on a PostgreSQL pool. An edit or a removal locks the domain's row; a link written onto
 * a domain holds it (link-store.ts), so a removal waits for that link's commit and then counts it.
 */
export function createPostgresDomainStore(db: Database): DomainStore {
  return {
    listDomains: async () => (await db.query<DomainRow>(q.LIST_DOMAINS)).rows.map(toDomainUse),

    insertDomain: ({ users, ...domain }) =>
      db.transaction(async (tx) => {
        const limited = users === null ? 0 : 1;
        const params = [domain.host, domain.scheme, domain.notFoundRedirect, domain.rootRedirect, domain.createdAt.getTime(), limited];
        const id = (await tx.query<{ id: number }>(q.INSERT_DOMAIN, params)).rows[0]?.id;
        if (id === undefined) return undefined;
        if (users && users.length > 0) await tx.query(q.ADD_DOMAIN_USERS, [id, users.map((u) => u.id)]);
        const row = (await tx.query<DomainRow>(q.DOMAIN_BY_ID, [id])).rows[0];
        return row && toDomain(row);
      }),

    updateDomain: (id, edit) =>
      db.transaction(async (tx) => {
        const row = (await tx.query<DomainRow>(q.DOMAIN_BY_ID_FOR_UPDATE, [id])).rows[0];
        if (!row) return undefined;
        const merged = { ...toDomain(row), ...edit };
        const limited = edit.users === undefined ? null : edit.users === null ? 0 : 1;
        await tx.query(q.UPDATE_DOMAIN, [id, merged.scheme, merged.notFoundRedirect, merged.rootRedirect, limited]);
        if (edit.users !== undefined) {
          await tx.query(q.CLEAR_DOMAIN_USERS, [id]);
          if (edit.users && edit.users.length > 0) await tx.query(q.ADD_DOMAIN_USERS, [id, edit.users.map((u) => u.id)]);
        }
        const updated = (await tx.query<DomainRow>(q.DOMAIN_BY_ID, [id])).rows[0];
        return updated && toDomain(updated);
      }),

    removeDomain: (id, at) =>
      db.transaction(async (tx) => {
        if ((await tx.query(q.DOMAIN_BY_ID_FOR_UPDATE, [id])).rowCount === 0) return 'not_found' as const;
        // Read after the lock: a link written onto the domain before it is committed and counted here.
        if ((await tx.query<{ count: number }>(q.LIVE_LINKS_ON_DOMAIN, [id])).rows[0]!.count > 0) return 'in_use' as const;
        return (await tx.query(q.REMOVE_DOMAIN, [id, at.getTime()])).rowCount === 1 ? ('removed' as const) : ('not_found' as const);
      }),
  };
}
