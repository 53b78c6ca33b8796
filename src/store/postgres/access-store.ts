import type { AccessStore } from '../ports.ts';
import { toKey, toSession, type KeyRow, type SessionRow } from '../rows.ts';
import type { Database } from './database.ts';
import * as q from './queries.ts';

/** Sessions and API keys, each write its own transaction. */
export function createPostgresAccessStore(db: Database): AccessStore {
  const run = async (sql: string, params: unknown[] = []): Promise<number> => (await db.query(sql, params)).rowCount ?? 0;

  return {
    insertSession: async (s) => void (await run(q.INSERT_SESSION, [s.idHash, s.user, s.createdAt.getTime(), s.seenAt.getTime()])),
    sessionByIdHash: async (idHash) => toSession((await db.query<SessionRow>(q.SESSION_BY_ID_HASH, [idHash])).rows[0]),
    touchSession: async (idHash, at) => void (await run(q.TOUCH_SESSION, [idHash, at.getTime()])),
    deleteSession: async (idHash) => void (await run(q.DELETE_SESSION, [idHash])),
    deleteExpiredSessions: async (idleBefore, createdBefore) =>
      void (await run(q.DELETE_EXPIRED_SESSIONS, [idleBefore.getTime(), createdBefore.getTime()])),
    deleteAllSessions: async () => void (await run(q.DELETE_ALL_SESSIONS)),
    insertKey: async (key) =>
      toKey(
        (
          await db.query<KeyRow>(q.INSERT_KEY, [
            key.name,
            key.prefix,
            key.keyHash,
            key.createdAt.getTime(),
            key.scopes.join(' '),
            key.expiresAt?.getTime() ?? null,
          ])
        ).rows[0],
      ),
    keyByHash: async (keyHash) => toKey((await db.query<KeyRow>(q.KEY_BY_HASH, [keyHash])).rows[0]),
    listKeys: async () => (await db.query<KeyRow>(q.LIST_KEYS)).rows.map((row) => toKey(row)!),
    revokeKey: async (name, at) => (await run(q.REVOKE_KEY, [name, at.getTime()])) === 1,
    touchKey: async (id, at, from) => void (await run(q.TOUCH_KEY, [id, at.getTime(), from])),
  };
}
