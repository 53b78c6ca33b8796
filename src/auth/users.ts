import { hash } from 'node:crypto';
import { AppError } from '../core/errors.ts';
import type { AccessStore } from '../store/ports.ts';
import type { AuditTrail } from '../audit/audit.ts';
import type { Access } from './access.ts';
import { isAdmin, ROLES, type Actor, type Role } from './actor.ts';
import { USER_STATES, type User, type UserState, type UserUse } from './user.ts';

export interface UsersDeps {
  store: AccessStore;
  access: Pick<Access, 'setPassword' | 'forgetUser'>;
  /** Where additions, role and state changes and new one-time links are recorded. */
  audit: Pick<AuditTrail, 'record'>;
  now: () => number;
  random: (size: number) => Buffer;
  /** The address the one-time links point to: the publicUrl, without a trailing slash. */
  base: string;
}

/** How long a one-time link to set a password works. */
export const INVITE_LIFE = 24 * 3_600_000;
/** The path of the one-time links; the token follows it. The access log never writes what follows. */
export const WELCOME_PATH = '/welcome/';
const USER_NAME = /^[A-Za-z0-9._@-]{1,64}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A user and the one-time link that lets them set their password (shown once, never stored or logged). */
export interface Invitation {
  user: User;
  link: string;
  expiresAt: Date;
}

export type Users = ReturnType<typeof userManagement>;

function inviteHash(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Refuses anyone but an admin: managing users is theirs alone. */
function adminOnly(actor: Actor): void {
  if (!isAdmin(actor)) throw new AppError('forbidden', 'only an admin manages users');
}

function publicUser({ passwordHash: _, ...user }: User & { passwordHash?: string | null }): User {
  return user;
}

/** The people on this kurz: adding them (with a one-time link), their roles and states, and setting passwords. */
export function userManagement({ store, access, audit, now, random, base }: UsersDeps) {
  // Every user's name by id, for showing owners without a lookup per link: names never change, and a user
  // added by another process is read on the first miss.
  const names = new Map<number, string>();
  let reading: Promise<void> | undefined;
  const readNames = (): Promise<void> =>
    (reading ??= store
      .listUsers()
      .then((all) => all.forEach((u) => names.set(u.id, u.name)))
      .finally(() => (reading = undefined)));
  async function existing(name: string): Promise<User & { passwordHash: string | null }> {
    const user = USER_NAME.test(name) ? await store.userByName(name) : undefined;
    if (!user) throw new AppError('not_found', `no user named ${JSON.stringify(name)}`);
    return user;
  }

  function invitation(): { token: string; hash: string; expiresAt: Date } {
    const token = random(32).toString('base64url');
    return { token, hash: inviteHash(token), expiresAt: new Date(now() + INVITE_LIFE) };
  }

  /** Refuses a change that would leave no active admin, or lock the actor out of their own account. */
  async function keepAnAdmin(actor: Actor, user: User, change: { role?: Role; state?: UserState }): Promise<void> {
    const losesAdmin = user.role === 'admin' && user.state === 'active' && (change.role === 'member' || change.state === 'disabled');
    if (!losesAdmin) return;
    if (user.id === actor.userId)
      throw new AppError('conflict', 'you cannot take your own admin role or disable yourself; ask another admin');
    const admins = (await store.listUsers()).filter((u) => u.role === 'admin' && u.state === 'active');
    if (admins.length <= 1) throw new AppError('conflict', `${user.name} is the last active admin`);
  }

  /** The user a one-time link is for, while it works; else undefined (unknown, used or expired). */
  async function invited(token: string): Promise<User | undefined> {
    const user = TOKEN.test(token) ? await store.userByInvite(inviteHash(token)) : undefined;
    if (!user || user.state !== 'active' || (user.inviteExpiresAt?.getTime() ?? 0) <= now()) return undefined;
    return publicUser(user);
  }

  return {
    /** Reads every user's name, for `nameOf`. Rejects if the store cannot be read. */
    readNames,

    /** A user's name by id, as last read (`readNames`); a miss reads them again for the next call. */
    nameOf(id: number): string | undefined {
      const name = names.get(id);
      if (name === undefined) void readNames().catch(() => undefined);
      return name;
    },

    /**
     * Adds a user with no password and returns the one-time link (valid 24 h) with which they set one.
     * Throws AppError: 'forbidden' unless an admin acts; 'invalid' naming the field; 'conflict' for a taken name.
     */
    async addUser(actor: Actor, input: { name: unknown; email?: unknown; role?: unknown }): Promise<Invitation> {
      adminOnly(actor);
      const name = typeof input.name === 'string' ? input.name.trim() : '';
      if (!USER_NAME.test(name)) throw new AppError('invalid', 'name must be 1-64 letters, digits, ".", "_", "@" or "-"', 'name');
      const email = input.email === undefined || input.email === null || input.email === '' ? null : input.email;
      if (email !== null && (typeof email !== 'string' || !EMAIL.test(email.trim())))
        throw new AppError('invalid', 'email must be an e-mail address', 'email');
      const role = input.role === undefined || input.role === '' ? 'member' : input.role;
      if (!(ROLES as readonly unknown[]).includes(role)) throw new AppError('invalid', `role must be ${ROLES.join(' or ')}`, 'role');
      const invite = invitation();
      const user = await store.insertUser({
        name,
        email: email === null ? null : email.trim(),
        role: role as Role,
        createdAt: new Date(now()),
        inviteHash: invite.hash,
        inviteExpiresAt: invite.expiresAt,
      });
      if (!user) throw new AppError('conflict', `a user named ${JSON.stringify(name)} exists already`, 'name');
      names.set(user.id, user.name);
      await audit.record(actor, 'user.create', { kind: 'user', id: user.id, label: user.name }, { role: user.role });
      return { user: publicUser(user), link: `${base}${WELCOME_PATH}${invite.token}`, expiresAt: invite.expiresAt };
    },

    /** Every user with their live links; admins only. */
    async listUsers(actor: Actor): Promise<UserUse[]> {
      adminOnly(actor);
      return store.listUsers();
    },

    /** The user with this name. Throws AppError 'forbidden' (a member asking for another), 'not_found'. */
    async user(actor: Actor, name: string): Promise<User> {
      const user = publicUser(await existing(name));
      if (!isAdmin(actor) && user.id !== actor.userId) throw new AppError('forbidden', 'only an admin sees other users');
      return user;
    },

    /** Disables or enables a user: a disabled one can neither log in nor use their keys, and their sessions end. */
    async setState(actor: Actor, name: string, state: unknown): Promise<User> {
      adminOnly(actor);
      if (!(USER_STATES as readonly unknown[]).includes(state))
        throw new AppError('invalid', `state must be ${USER_STATES.join(' or ')}`, 'state');
      const user = await existing(name);
      await keepAnAdmin(actor, user, { state: state as UserState });
      const changed = await store.updateUser(user.id, { state: state as UserState });
      if (state === 'disabled') await store.deleteUserSessions(user.id);
      access.forgetUser(user.id);
      if (user.state !== state)
        await audit.record(actor, state === 'disabled' ? 'user.disable' : 'user.enable', { kind: 'user', id: user.id, label: user.name });
      return publicUser(changed!);
    },

    /** Makes a user an admin or a member. */
    async setRole(actor: Actor, name: string, role: unknown): Promise<User> {
      adminOnly(actor);
      if (!(ROLES as readonly unknown[]).includes(role)) throw new AppError('invalid', `role must be ${ROLES.join(' or ')}`, 'role');
      const user = await existing(name);
      await keepAnAdmin(actor, user, { role: role as Role });
      const changed = await store.updateUser(user.id, { role: role as Role });
      access.forgetUser(user.id);
      if (user.role !== role)
        await audit.record(actor, 'user.role', { kind: 'user', id: user.id, label: user.name }, { from: user.role, to: role as Role });
      return publicUser(changed!);
    },

    /** A new one-time link for a user to set a new password (the old one works until then). */
    async resetPassword(actor: Actor, name: string): Promise<Invitation> {
      adminOnly(actor);
      const user = await existing(name);
      const invite = invitation();
      const changed = await store.updateUser(user.id, { inviteHash: invite.hash, inviteExpiresAt: invite.expiresAt });
      await audit.record(actor, 'user.reset', { kind: 'user', id: user.id, label: user.name });
      return { user: publicUser(changed!), link: `${base}${WELCOME_PATH}${invite.token}`, expiresAt: invite.expiresAt };
    },

    invited,

    /**
     * Sets the password of the user a one-time link is for and closes the link. Throws AppError: 'gone' for
     * an unknown, used or expired link; 'invalid' for a weak password.
     */
    async acceptInvitation(token: string, password: string): Promise<User> {
      const user = await invited(token);
      if (!user) throw new AppError('gone', 'this link to set a password is used up or expired; ask an admin for a new one');
      await access.setPassword(password, user.id);
      const changed = await store.updateUser(user.id, { inviteHash: null, inviteExpiresAt: null });
      return publicUser(changed!);
    },
  };
}
