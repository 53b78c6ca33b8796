import type { Database } from 'better-sqlite3';
import type { AccessStore } from '../ports.ts';
import { toKey, toSession, toUser, toUserUse, userEditParams, type KeyRow, type SessionRow, type UserRow } from '../rows.ts';
import * as q from './queries.ts';
import { outsideTransaction } from './outside-transaction.ts';
import type { WriteHealth } from './write-health.ts';

/** Users, sessions and API keys on the connection's default durability (synchronous = FULL); writes report to `health`. */
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
  const listKeys = db.prepare<[{ userId: number | null }], KeyRow>(q.LIST_KEYS);
  const revokeKey = db.prepare<[number, number, string]>(q.REVOKE_KEY);
  const deleteUserSessions = db.prepare<[number]>(q.DELETE_USER_SESSIONS);
  const ensureFirstAdmin = db.prepare<[string, string | null, number]>(q.ENSURE_FIRST_ADMIN);
  const setPasswordIfNone = db.prepare<[string, number]>(q.SET_PASSWORD_IF_NONE);
  const userById = db.prepare<[number], UserRow>(q.USER_BY_ID);
  const userByName = db.prepare<[string], UserRow>(q.USER_BY_NAME);
  const userByInvite = db.prepare<[string], UserRow>(q.USER_BY_INVITE);
  const listUsers = db.prepare<[], UserRow>(q.LIST_USERS);
  const insertUser = db.prepare(q.INSERT_USER);
  const updateUser = db.prepare(q.UPDATE_USER);
  const touchKey = db.prepare<[number, string, number]>(q.TOUCH_KEY);
  const write = <T>(work: () => T) => outsideTransaction(db, health, work);

  return {
    insertSession: (s) =>
      write(
        () =>
          void insertSession.run({
            idHash: s.idHash,
            user: s.user,
            userId: s.userId,
            createdAt: s.createdAt.getTime(),
            seenAt: s.seenAt.getTime(),
          }),
      ),
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
            userId: key.userId,
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
    listKeys: async (userId) => listKeys.all({ userId: userId ?? null }).map((row) => toKey(row)!),
    revokeKey: (userId, name, at) => write(() => revokeKey.run(at.getTime(), userId, name).changes === 1),
    deleteUserSessions: (userId) => write(() => void deleteUserSessions.run(userId)),
    ensureFirstAdmin: (name, passwordHash, at) => write(() => void ensureFirstAdmin.run(name, passwordHash, at.getTime())),
    setPasswordIfNone: (id, passwordHash) => write(() => setPasswordIfNone.run(passwordHash, id).changes === 1),
    userById: async (id) => toUser(userById.get(id)),
    userByName: async (name) => toUser(userByName.get(name)),
    userByInvite: async (inviteHash) => toUser(userByInvite.get(inviteHash)),
    listUsers: async () => listUsers.all().map(toUserUse),
    insertUser: (user) =>
      write(() => {
        try {
          const { lastInsertRowid } = insertUser.run({
            name: user.name,
            email: user.email,
            role: user.role,
            inviteHash: user.inviteHash,
            inviteExpiresAt: user.inviteExpiresAt?.getTime() ?? null,
            createdAt: user.createdAt.getTime(),
          });
          return toUser(userById.get(Number(lastInsertRowid)));
        } catch (err) {
          if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
          throw err;
        }
      }),
    updateUser: (id, edit) =>
      write(() => {
        updateUser.run({ id, ...userEditParams(edit) });
        return toUser(userById.get(id));
      }),
    touchKey: (id, at, from) => write(() => void touchKey.run(at.getTime(), from, id)),
  };
}
