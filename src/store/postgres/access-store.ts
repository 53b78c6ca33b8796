import type { AccessStore } from '../ports.ts';
import { toKey, toSession, toUser, toUserUse, userEditParams, type KeyRow, type SessionRow, type UserRow } from '../rows.ts';
import type { Database } from './database.ts';
import * as q from './queries.ts';

/** Users, sessions and API keys, each write its own transaction. */
export function createPostgresAccessStore(db: Database): AccessStore {
  const run = async (sql: string, params: unknown[] = []): Promise<number> => (await db.query(sql, params)).rowCount ?? 0;

  return {
    insertSession: async (s) => void (await run(q.INSERT_SESSION, [s.idHash, s.user, s.createdAt.getTime(), s.seenAt.getTime(), s.userId])),
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
            key.userId,
          ])
        ).rows[0],
      ),
    keyByHash: async (keyHash) => toKey((await db.query<KeyRow>(q.KEY_BY_HASH, [keyHash])).rows[0]),
    listKeys: async (userId) => (await db.query<KeyRow>(q.LIST_KEYS, [userId ?? null])).rows.map((row) => toKey(row)!),
    revokeKey: async (userId, name, at) => (await run(q.REVOKE_KEY, [name, at.getTime(), userId])) === 1,
    deleteUserSessions: async (userId) => void (await run(q.DELETE_USER_SESSIONS, [userId])),
    ensureFirstAdmin: async (name, passwordHash, at) => void (await run(q.ENSURE_FIRST_ADMIN, [name, passwordHash, at.getTime()])),
    setPasswordIfNone: async (id, passwordHash) => (await run(q.SET_PASSWORD_IF_NONE, [passwordHash, id])) === 1,
    userById: async (id) => toUser((await db.query<UserRow>(q.USER_BY_ID, [id])).rows[0]),
    userByName: async (name) => toUser((await db.query<UserRow>(q.USER_BY_NAME, [name])).rows[0]),
    userByInvite: async (inviteHash) => toUser((await db.query<UserRow>(q.USER_BY_INVITE, [inviteHash])).rows[0]),
    listUsers: async () => (await db.query<UserRow>(q.LIST_USERS)).rows.map(toUserUse),
    insertUser: async (user) =>
      toUser(
        (
          await db.query<UserRow>(q.INSERT_USER, [
            user.name,
            user.email,
            user.role,
            user.inviteHash,
            user.inviteExpiresAt?.getTime() ?? null,
            user.createdAt.getTime(),
          ])
        ).rows[0],
      ),
    async updateUser(id, edit) {
      const p = userEditParams(edit);
      const params = [
        id,
        p.setEmail,
        p.email,
        p.setRole,
        p.role,
        p.setState,
        p.state,
        p.setPassword,
        p.passwordHash,
        p.setInvite,
        p.inviteHash,
        p.inviteExpiresAt,
      ];
      return toUser((await db.query<UserRow>(q.UPDATE_USER, params)).rows[0]);
    },
    touchKey: async (id, at, from) => void (await run(q.TOUCH_KEY, [id, at.getTime(), from])),
  };
}
