import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config.ts';
import { AppError, isUnavailable } from '../core/errors.ts';
import type { AccessStore, SettingsStore } from '../store/ports.ts';
import { firstPasswordPath, removeFirstPassword } from './first-password.ts';
import { FIRST_ADMIN, type Actor, type Via } from './actor.ts';
import type { ApiKey, Principal, Session } from './identity.ts';
import type { StoredUser } from './user.ts';
import type { AuditTrail } from '../audit/audit.ts';
import { passwordProblem, type PasswordHashing } from './passwords.ts';
import type { RateLimit } from './rate-limits.ts';
import { DEFAULT_SCOPES, type Scope } from './scopes.ts';
import type { SsoIdentity } from './sso-claims.ts';

export interface AccessDeps {
  config: Pick<Config, 'adminUser' | 'sessionIdle' | 'sessionMaxAge' | 'db' | 'oidcCreateUsers'>;
  now: () => number;
  random: (size: number) => Buffer;
  store: AccessStore;
  settings: SettingsStore;
  /** Failed logins, per client and per account, or per device. */
  loginLimit: RateLimit;
  hashing: PasswordHashing;
  /** Where keys made and revoked are recorded. */
  audit: Pick<AuditTrail, 'record'>;
}

/** Where the first admin's password was kept before there were users; still where two starts agree on a generated one. */
const PASSWORD_SETTING = 'admin_password';
/** The hash of the password the first start generated: while it is the password, it must be changed. */
const GENERATED_SETTING = 'admin_password_generated';
const SECRET_SETTING = 'session_secret';
const KEY_PREFIX = 'kurz_';
/** A session's last-seen time is written at most this often. */
const TOUCH_EVERY = 60_000;
/**
 * How long a checked API key is believed without asking the database again: a key revoked by another
 * process (the CLI) is refused within this long; one revoked through this process at once.
 */
const KEY_RECHECK_MS = 1000;
const KEY_NAME = /^[A-Za-z0-9._ -]{1,64}$/;
/** The longest a key may be made to last (as long as any duration setting). */
const MAX_KEY_LIFE = 36_500 * 86_400_000;

/** What a key is made with: DEFAULT_SCOPES when `scopes` is empty; `expiresIn` ms from now, or never. */
export interface KeyOptions {
  scopes?: readonly Scope[];
  expiresIn?: number | null;
}

/** The key a secret is, or why it is refused (the 401's message). */
export type KeyCheck = { key: ApiKey } | { refused: string };

/** The one answer to a failed login, whether the user or the password was wrong. */
export const LOGIN_FAILED = 'wrong user name or password';

/** How long a user's role and state are believed without asking the database again (as for keys). */
const USER_RECHECK_MS = 1000;

export type Access = Awaited<ReturnType<typeof accessControl>>;

/** SHA-256 in hex: how session ids and API keys are found without being stored. */
function sha256(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/**
 * The access model: users with a slow password hash, login sessions that survive restarts,
 * CSRF tokens bound to the session (or to a pre-login cookie), and API keys. Rejects if the settings
 * cannot be read.
 */
export async function accessControl({ config, now, random, store, settings, loginLimit, hashing, audit }: AccessDeps) {
  const secret = await settings.settingOrInit(SECRET_SETTING, () => random(32).toString('hex'));
  // The first admin is the account kurz had before it had users: their name, their password.
  await store.ensureFirstAdmin(config.adminUser, (await settings.setting(PASSWORD_SETTING)) ?? null, new Date(now()));
  const checkedUsers = new LRUCache<number, StoredUser>({ max: 1000, ttl: USER_RECHECK_MS, ttlAutopurge: false, perf: { now } });
  const keyTouched = new Map<number, number>();
  const checkedKeys = new LRUCache<string, ApiKey>({ max: 1000, ttl: KEY_RECHECK_MS, ttlAutopurge: false, perf: { now } });
  // Compared against when no password is set yet or the user name is wrong, so that the answer takes as long as ever.
  let decoy: Promise<string> | undefined;
  // Once the password is one a person chose, it never again is a generated one: asked no more.
  let generatedInForce = true;
  let generating = false;
  const passwordFile = firstPasswordPath(config);

  const sign = (purpose: string, value: string): string => createHmac('sha256', secret).update(`${purpose}:${value}`).digest('base64url');
  const checkSigned = (purpose: string, value: string, token: unknown): boolean => {
    if (typeof token !== 'string') return false;
    const expected = Buffer.from(sign(purpose, value));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  function expired(session: Session, at: number): boolean {
    return at - session.seenAt.getTime() > config.sessionIdle || at - session.createdAt.getTime() > config.sessionMaxAge;
  }

  /** Sets a user's password (the first admin's when no id is given); throws AppError('invalid') for a weak one. */
  async function setPassword(password: string, userId = FIRST_ADMIN): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw new AppError('invalid', problem, 'password');
    const passwordHash = await hashing.hash(password, random);
    // The first admin's also goes where a first start that is still generating one looks (first writer wins there).
    if (userId === FIRST_ADMIN) await settings.setSetting(PASSWORD_SETTING, passwordHash);
    if (!(await store.updateUser(userId, { passwordHash }))) throw new AppError('not_found', 'no such user');
    // A new password ends every session made with the old one.
    await store.deleteUserSessions(userId);
    checkedUsers.delete(userId);
    if (userId === FIRST_ADMIN) removeFirstPassword(passwordFile);
  }

  /** A new session for a user whose identity was checked; returns its token and a new device token. */
  async function openSession(user: StoredUser): Promise<{ token: string; device: string }> {
    const at = new Date(now());
    await store.deleteExpiredSessions(new Date(at.getTime() - config.sessionIdle), new Date(at.getTime() - config.sessionMaxAge));
    const token = random(32).toString('base64url');
    await store.insertSession({ idHash: sha256(token), user: user.name, userId: user.id, createdAt: at, seenAt: at });
    return { token, device: deviceToken(user.name) };
  }

  /** The user with this name, whatever its case; a name no user can have (PostgreSQL refuses a NUL) is not looked up. */
  async function userNamed(name: string): Promise<StoredUser | undefined> {
    return name.length <= 64 && !name.includes('\0') ? store.userByName(name.trim()) : undefined;
  }

  /** The user with this id, checked in the database at most once a second. */
  async function userById(id: number): Promise<StoredUser | undefined> {
    let user = checkedUsers.get(id);
    if (!user) {
      user = await store.userById(id);
      if (user) checkedUsers.set(id, user);
    }
    return user;
  }

  /** A new device token for `user`: a random id, the user name, and their signature. */
  function deviceToken(user: string): string {
    const value = `${random(16).toString('base64url')}.${Buffer.from(user).toString('base64url')}`;
    return `${value}.${sign('device', value)}`;
  }

  /** The user a device token was made for, if this server signed it; else undefined. */
  function deviceUser(token: string): string | undefined {
    const at = token.lastIndexOf('.');
    if (at === -1) return undefined;
    const value = token.slice(0, at);
    const expected = Buffer.from(sign('device', value));
    const given = Buffer.from(token.slice(at + 1));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return Buffer.from(value.slice(value.indexOf('.') + 1), 'base64url').toString();
  }

  /**
   * The active user these credentials are, checked as `login` checks them (and counted against the same
   * limits) without opening a session: for a request that carries a user name and password itself.
   */
  async function checkLogin(user: string, password: string, client: string, device?: string): Promise<StoredUser> {
    const known = device !== undefined && deviceUser(device) === user;
    const keys = known ? [`device:${device.slice(0, device.indexOf('.'))}`] : [`client:${client}`, `user:${user.toLowerCase()}`];
    // A name no user can have is not looked up (PostgreSQL refuses a NUL in a query parameter).
    const found = await userNamed(user);
    // A wrong user name (or a user without a password yet) is checked against the decoy, so that both take
    // the same time and a right answer means the right user.
    const stored = found?.passwordHash || (await (decoy ??= hashing.hash(random(16).toString('hex'), random)));
    if (!(await hashing.guess(password, stored, loginLimit, keys)) || !found?.passwordHash)
      throw new AppError('unauthorized', LOGIN_FAILED);
    if (found.state === 'disabled') throw new AppError('unauthorized', 'this account is disabled; ask an admin');
    return found;
  }

  /**
   * A key's YOURLS signature token, the shared secret of YOURLS' timed signatures (web/yourls-auth.ts):
   * derived from the key's id with the instance's secret, so never stored, and void once the key is.
   */
  function yourlsToken(key: Pick<ApiKey, 'id'>): string {
    return createHmac('sha256', secret).update(`yourls-token:${key.id}`).digest('hex').slice(0, 32);
  }

  /** Records a key's use and the client's address, at most once a minute per key. */
  async function touchKey(key: ApiKey, at: number, client: string): Promise<void> {
    if (at - (keyTouched.get(key.id) ?? 0) < TOUCH_EVERY) return;
    keyTouched.set(key.id, at);
    await store.touchKey(key.id, new Date(at), client).catch(unlessUnavailable);
  }

  return {
    /** The keys the session cookie is signed with (Koa's `app.keys`). */
    cookieKeys: [secret],

    /**
     * Sets a generated password when none is set yet and returns it (to be shown once); else undefined.
     * Until a person sets one, a session made with it is sent to change it (`mustChangePassword`).
     */
    async ensureAdminPassword(): Promise<string | undefined> {
      if ((await store.userById(FIRST_ADMIN))?.passwordHash) return undefined;
      const password = random(15).toString('base64url');
      generating = true;
      try {
        const hash = await hashing.hash(password, random);
        // Another process starting on the same file may have set one meanwhile: the first writer wins.
        const winner = await settings.settingOrInit(PASSWORD_SETTING, () => hash);
        // A password a person set meanwhile (setPassword, `kurz admin password`) is never replaced by a generated one.
        if (!(await store.setPasswordIfNone(FIRST_ADMIN, winner)) || winner !== hash) return undefined;
        // Marked after: a password set in between is no longer this hash, so never taken for the generated one.
        await settings.setSetting(GENERATED_SETTING, hash);
        return password;
      } finally {
        generating = false;
      }
    },

    /** Where the generated password is written when no terminal shows it; removed once a password is set. */
    passwordFile,

    /** True while the first admin's password is still the one the first start generated (and `userId` is them). */
    async mustChangePassword(userId = FIRST_ADMIN): Promise<boolean> {
      if (!generatedInForce || userId !== FIRST_ADMIN) return false;
      const [stored, generated] = [
        (await store.userById(FIRST_ADMIN))?.passwordHash ?? undefined,
        await settings.setting(GENERATED_SETTING),
      ];
      if (stored !== undefined && stored === generated) return true;
      if (stored !== undefined && !generating) generatedInForce = false;
      return false;
    },

    setPassword,

    /**
     * Whether `password` is the user's own, counted against the login limit of their account (as a login),
     * so that a left-open session cannot be used to guess it. A user without a password has none to give.
     * Throws AppError('rate_limited') as `login` does.
     */
    async checkPassword(userId: number, password: string): Promise<boolean> {
      const found = await store.userById(userId);
      if (!found?.passwordHash) return false;
      return hashing.guess(password, found.passwordHash, loginLimit, [`user:${found.name.toLowerCase()}`]);
    },

    /** Whether the user has a password of their own (one who only signs on with SSO has none). */
    async hasPassword(userId: number): Promise<boolean> {
      return Boolean((await store.userById(userId))?.passwordHash);
    },

    /**
     * Checks a login and opens a session; returns the token for the session cookie and a new device token
     * for the device cookie. `device` is the device token this browser holds from an earlier login, if any
     * (OWASP's device cookies): when it is valid and names `user`, the browser's failures are limited on
     * their own, so that guesses from elsewhere never keep it out; without one, the client address and the
     * account share a limit. A failure is counted before the slow hash runs and forgotten on success.
     * Throws AppError: 'unauthorized' with one message for a wrong user or password, 'rate_limited' while
     * the device, or the client or account, must wait, or when this process checks as many passwords as
     * it may at once.
     */
    async login(user: string, password: string, client: string, device?: string): Promise<{ token: string; device: string }> {
      return openSession(await checkLogin(user, password, client, device));
    },

    checkLogin,

    /**
     * Opens a session for someone the single sign-on provider vouched for (claims already checked and
     * mapped, see auth/sso-claims.ts), like `login` does for a password; or says why not. The user of that
     * name; unknown, they are created (a member, or an admin by the admin claim) when oidcCreateUsers is
     * on. The admin claim makes an existing member an admin; a disabled user is refused.
     */
    async signOn(identity: SsoIdentity): Promise<{ token: string; device: string } | { refused: string }> {
      let user = await store.userByName(identity.name);
      if (!user) {
        if (!config.oidcCreateUsers) return { refused: `no kurz account for ${identity.name}; an admin adds it first` };
        const role = identity.admin ? 'admin' : 'member';
        const created = {
          name: identity.name,
          email: identity.email,
          role,
          createdAt: new Date(now()),
          inviteHash: null,
          inviteExpiresAt: null,
        } as const;
        // Another process may have created them meanwhile: then that user it is.
        user = (await store.insertUser(created)) ?? (await store.userByName(identity.name));
      } else if (identity.admin && user.role !== 'admin') {
        user = await store.updateUser(user.id, { role: 'admin' });
        checkedUsers.delete(user?.id ?? 0);
      }
      if (!user || user.state !== 'active') return { refused: `the kurz account ${identity.name} is disabled; ask an admin` };
      return openSession(user);
    },

    openSession,

    /** The user with this id (their role and state read at most once a second). */
    userById,

    /** The user with this name, whatever its case; a name no user can have is not looked up. */
    userByName: userNamed,

    /**
     * Who a request's principal acts for: the session's or the key's user, with their role as it is now
     * (read at most once a second); undefined when that user is gone or disabled.
     */
    async actorOf(principal: Principal, client: string): Promise<Actor | undefined> {
      const userId = principal.kind === 'session' ? principal.session.userId : principal.key.userId;
      const user = await userById(userId);
      if (!user || user.state !== 'active') return undefined;
      const via: Via = principal.kind === 'session' ? { kind: 'session' } : { kind: 'key', key: principal.key.name };
      return { userId: user.id, name: user.name, role: user.role, via, client };
    },

    /** Forgets what this process believed of a user (after a change to their role or state). */
    forgetUser: (id: number): void => void checkedUsers.delete(id),

    /** The live session a cookie's token names, its last-seen time renewed; undefined if none or expired. */
    async session(token: string): Promise<Session | undefined> {
      const session = await store.sessionByIdHash(sha256(token));
      if (!session) return undefined;
      const at = now();
      if (expired(session, at)) {
        await store.deleteSession(session.idHash);
        return undefined;
      }
      if (at - session.seenAt.getTime() >= TOUCH_EVERY) {
        session.seenAt = new Date(at);
        await store.touchSession(session.idHash, session.seenAt).catch(unlessUnavailable);
      }
      return session;
    },

    logout: (token: string): Promise<void> => store.deleteSession(sha256(token)),

    /**
     * A pass through a link's page before the redirect (edge/pages.ts): `value` (the link's address, the query
     * and an expiry) signed with the instance's secret, so that a visitor cannot skip the page by forging one.
     */
    pageToken: (value: string): string => sign('page', value),

    /** True when `token` is the pass `pageToken` gives for `value`. */
    checkPageToken: (value: string, token: unknown): boolean => checkSigned('page', value, token),

    /**
     * The seal of an import's preview: `value` (who, until when, the source and the file's hash) signed, so
     * that the confirmation imports the file that was previewed and nothing else.
     */
    importToken: (value: string): string => sign('import', value),

    /** True when `token` is the seal `importToken` gives for `value`. */
    checkImportToken: (value: string, token: unknown): boolean => checkSigned('import', value, token),

    /** The CSRF token of forms shown to the holder of `bound` (a session token, or the pre-login cookie). */
    csrfToken: (bound: string): string => sign('csrf', bound),

    /** True when `token` is the CSRF token for `bound`. */
    checkCsrf(bound: string, token: unknown): boolean {
      if (typeof token !== 'string' || bound === '') return false;
      const expected = Buffer.from(sign('csrf', bound));
      const given = Buffer.from(token);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },

    /**
     * Creates a key; returns it with the secret, which is shown this once. Throws AppError for a bad or
     * taken name, or a lifetime that is not a whole number of milliseconds up to 36500 days.
     */
    async createKey(userId: number, name: unknown, options: KeyOptions = {}, by?: Actor): Promise<{ key: ApiKey; secret: string }> {
      if (typeof name !== 'string' || !KEY_NAME.test(name.trim()))
        throw new AppError('invalid', 'name must be 1-64 letters, digits, spaces, ".", "_" or "-"', 'name');
      const expiresIn = options.expiresIn ?? null;
      if (expiresIn !== null && (!Number.isSafeInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_KEY_LIFE))
        throw new AppError('invalid', 'expires must be a duration from 1 ms to 36500 days', 'expires');
      const secretKey = KEY_PREFIX + random(32).toString('base64url');
      const at = now();
      const key = await store.insertKey({
        userId,
        name: name.trim(),
        prefix: secretKey.slice(0, KEY_PREFIX.length + 6),
        keyHash: sha256(secretKey),
        scopes: options.scopes?.length ? options.scopes : DEFAULT_SCOPES,
        createdAt: new Date(at),
        expiresAt: expiresIn === null ? null : new Date(at + expiresIn),
      });
      if (!key)
        throw new AppError('conflict', `an API key named "${name.trim()}" exists already; revoke it first or pick another name`, 'name');
      if (by)
        await audit.record(by, 'key.create', { kind: 'key', id: key.id, label: key.name }, { user: userId, scopes: key.scopes.join(' ') });
      return { key, secret: secretKey };
    },

    yourlsToken,

    /** One user's keys, or with undefined everyone's. */
    listKeys: (userId?: number): Promise<ApiKey[]> => store.listKeys(userId),

    /** Revokes the user's live key named `name`. Throws AppError('not_found'). */
    async revokeKey(userId: number, name: string, by?: Actor): Promise<void> {
      // A name no key can have is not looked up (PostgreSQL refuses a NUL in a query parameter).
      const live = KEY_NAME.test(name) ? (await store.listKeys(userId)).find((k) => k.name === name && !k.revokedAt) : undefined;
      if (!live || !(await store.revokeKey(userId, name, new Date(now()))))
        throw new AppError('not_found', `no API key named ${JSON.stringify(name)}`);
      checkedKeys.clear();
      if (by) await audit.record(by, 'key.revoke', { kind: 'key', id: live.id, label: live.name }, { user: userId });
    },

    /**
     * The live key this secret is, its last use and the client's address recorded (at most once a minute
     * per key); else why it is refused: unknown or revoked (checked in the database at most once a second
     * per key), or expired.
     */
    async keyOf(secretKey: string, client: string): Promise<KeyCheck> {
      const unknown = { refused: 'the API key is not valid: unknown or revoked' };
      if (!secretKey.startsWith(KEY_PREFIX)) return unknown;
      const keyHash = sha256(secretKey);
      let key = checkedKeys.get(keyHash);
      if (!key) {
        key = await store.keyByHash(keyHash);
        if (!key || key.revokedAt) return unknown;
        checkedKeys.set(keyHash, key);
      }
      const at = now();
      if (key.expiresAt && key.expiresAt.getTime() <= at)
        return { refused: `the API key "${key.name}" expired at ${key.expiresAt.toISOString()}; make a new one` };
      await touchKey(key, at, client);
      return { key };
    },

    /**
     * The live key whose YOURLS signature token `signs` accepts, its use recorded as keyOf records it;
     * undefined when none does. Reads every key: YOURLS' timed signatures do not say whose they are.
     */
    async keyWithToken(signs: (token: string) => boolean, client: string): Promise<ApiKey | undefined> {
      const at = now();
      for (const key of await store.listKeys()) {
        if (key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= at) || !signs(yourlsToken(key))) continue;
        await touchKey(key, at, client);
        return key;
      }
      return undefined;
    },
  };
}

/**
 * Lets a touch (a session's or a key's last use) fail quietly while the database cannot be written: the
 * request goes on, and the next touch records the use. Any other failure is thrown on.
 */
function unlessUnavailable(err: unknown): void {
  if (!isUnavailable(err)) throw err;
}
