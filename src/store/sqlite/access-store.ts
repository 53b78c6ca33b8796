import type { Database } from 'better-sqlite3';
import type { AccessStore } from '../ports.ts';
import { toKey, toSession, type KeyRow, type SessionRow } from '../rows.ts';
import * as q from './queries.ts';
import { outsideTransaction } from './outside-transaction.ts';
import type { WriteHealth } from './write-health.ts';

/** Sessions and API keys on the connection's default durability (synchronous = FULL); writes report to `health`. */
export function createSqliteAccessStore(db: Database, health: WriteHealth): AccessStore {
  const insertSession = db.prepare(q.INSERT_SESSION);
  const sessionByIdHash = db.prepare<[string], SessionRow>(q.SESSION_BY_ID_HASH);
  const touchSession = db.prepare<[number, string]>(q.TOUCH_SESSION);
  const deleteSession = db.prepare<[string]>(q.DELETE_SESSION);
  const deleteExpired = db.prepare<[number, number]>(q.DELETE_EXPIRED_SESSIONS);
  const deleteAll = db.prepare(q.DELETE_ALL_SESSIONS);
  const insertKey = db.prepare(q.INSERT_KEY);
  const keyByHash = db.prepare<[string], KeyRow>(q.KEY_BY_HASH);
  const keyById = db.prepare<[number], KeyRow>(q.KEY_BY_ID);
  const listKeys = db.prepare<[], KeyRow>(q.LIST_KEYS);
  const revokeKey = db.prepare<[number, string]>(q.REVOKE_KEY);
  const touchKey = db.prepare<[number, string, number]>(q.TOUCH_KEY);
  const write = <T>(work: () => T) => outsideTransaction(db, health, work);

  return {
    insertSession: (s) =>
      write(() => void insertSession.run({ idHash: s.idHash, user: s.user, createdAt: s.createdAt.getTime(), seenAt: s.seenAt.getTime() })),
    sessionByIdHash: async (idHash) => toSession(sessionByIdHash.get(idHash)),
    touchSession: (idHash, at) => write(() => void touchSession.run(at.getTime(), idHash)),
    deleteSession: (idHash) => write(() => void deleteSession.run(idHash)),
    deleteExpiredSessions: (idleBefore, createdBefore) =>
      write(() => void deleteExpired.run(idleBefore.getTime(), createdBefore.getTime())),
    deleteAllSessions: () => write(() => void deleteAll.run()),
    insertKey: (key) =>
      write(() => {
        try {
          const { lastInsertRowid } = insertKey.run({
            name: key.name,
            prefix: key.prefix,
            keyHash: key.keyHash,
            scopes: key.scopes.join(' '),
            createdAt: key.createdAt.getTime(),
            expiresAt: key.expiresAt?.getTime() ?? null,
          });
          return toKey(keyById.get(Number(lastInsertRowid)));
        } catch (err) {
          if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
          throw err;
        }
      }),
    keyByHash: async (keyHash) => toKey(keyByHash.get(keyHash)),
    listKeys: async () => listKeys.all().map((row) => toKey(row)!),
    revokeKey: (name, at) => write(() => revokeKey.run(at.getTime(), name).changes === 1),
    touchKey: (id, at, from) => write(() => void touchKey.run(at.getTime(), from, id)),
  };
}
