import { hash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Actor } from '../auth/actor.ts';
import type { ApiKey } from '../auth/identity.ts';
import type { Scope } from '../auth/scopes.ts';
import type { WebServices } from '../context.ts';
import { AppError } from '../core/errors.ts';
import { principalOf, type WebState } from './session.ts';

/** A YOURLS request's parameters, by name (web/handlers/yourls-api.ts reads them). */
export type YourlsParams = ReadonlyMap<string, string>;

/**
 * Who a YOURLS request acts for, and the scopes it has (null: every one, as a login has); or why it is
 * refused, in the words and with the status YOURLS' clients expect (403; 429 past a limit, with its wait).
 */
export type YourlsAuth =
  { actor: Actor; scopes: readonly Scope[] | null } | { refused: string; status: number; retryAfter?: number | undefined };

/** How far a timed signature's timestamp may be from now, either way: YOURLS' nonce life, 12 hours. */
export const TIMESTAMP_WINDOW_S = 43_200;

/** The hashes a timed signature may be made with: YOURLS' released default (md5) and the ones it allows now. */
const HASHES = ['md5', 'sha256', 'sha384', 'sha512'] as const;
type HashName = (typeof HASHES)[number];
/** Without a `hash` parameter, the hash a signature's length says: md5 (YOURLS up to 1.10.4) or sha256 (after). */
const HASH_OF_LENGTH: Readonly<Record<number, HashName>> = { 32: 'md5', 64: 'sha256', 96: 'sha384', 128: 'sha512' };

const PLEASE_LOG_IN = 'Please log in';
const WRONG_LOGIN = 'Invalid username or password';

/**
 * YOURLS' three ways in, on kurz's credentials: `signature` = an API key (or the key in a header, which
 * authenticate.ts has checked); `timestamp` + `signature` = a hash of the timestamp and the key's YOURLS
 * signature token, in either order; `username` + `password` of a kurz user, checked as a login is and
 * counted against the login limits. A session cookie is never enough (YOURLS' API ignores its cookie too),
 * so that another site cannot make a logged-in browser call it. Wrong keys and signatures count against
 * `apiKeyRateLimit`, as wrong keys in a header do.
 */
export function yourlsAuthentication(web: WebServices) {
  const { access, limits } = web;

  function refusal(err: AppError): YourlsAuth {
    return { refused: err.message, status: err.code === 'rate_limited' ? 429 : 403, retryAfter: err.retryAfter };
  }

  async function keyActor(key: ApiKey, client: string): Promise<YourlsAuth> {
    const actor = await access.actorOf({ kind: 'key', key }, client);
    if (!actor) return { refused: `the API key "${key.name}" belongs to a disabled user`, status: 403 };
    return { actor, scopes: key.scopes };
  }

  async function bySignature(secret: string, client: string, limitKey: string): Promise<YourlsAuth> {
    const checked = await access.keyOf(secret, client);
    if ('refused' in checked) {
      limits.apiKey.failed(limitKey);
      return { refused: checked.refused, status: 403 };
    }
    return keyActor(checked.key, client);
  }

  async function byTimedSignature(params: YourlsParams, client: string, limitKey: string): Promise<YourlsAuth> {
    const signature = (params.get('signature') ?? '').toLowerCase();
    const timestamp = params.get('timestamp') ?? '';
    const given = params.get('hash');
    const hashName = given === undefined ? HASH_OF_LENGTH[signature.length] : HASHES.find((h) => h === given);
    if (hashName === undefined) {
      limits.apiKey.failed(limitKey);
      return { refused: `the signature's hash must be one of ${HASHES.join(', ')}`, status: 403 };
    }
    const stamp = /^\s*([+-]?\d+)/.exec(timestamp);
    if (!stamp || Math.abs(web.now() / 1000 - Number(stamp[1])) >= TIMESTAMP_WINDOW_S) {
      limits.apiKey.failed(limitKey);
      return { refused: 'the timestamp is more than 12 hours from now: sign again with the current time', status: 403 };
    }
    const wanted = Buffer.from(signature);
    const signs = (token: string) =>
      [timestamp + token, token + timestamp].some((text) => {
        const expected = Buffer.from(hash(hashName, text, 'hex'));
        return expected.length === wanted.length && timingSafeEqual(expected, wanted);
      });
    const key = await access.keyWithToken(signs, client);
    if (key) return keyActor(key, client);
    limits.apiKey.failed(limitKey);
    return { refused: 'the signature matches no live API key', status: 403 };
  }

  async function byPassword(user: string, password: string, client: string): Promise<YourlsAuth> {
    try {
      const found = await access.checkLogin(user, password, client);
      return { actor: { userId: found.id, name: found.name, role: found.role, via: { kind: 'password' }, client }, scopes: null };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return err.code === 'rate_limited' ? refusal(err) : { refused: WRONG_LOGIN, status: 403 };
    }
  }

  return async function authenticateYourls(ctx: Context, params: YourlsParams): Promise<YourlsAuth> {
    const { client, limitKey } = web.pipeline.contextOf(ctx.req);
    const principal = principalOf(ctx);
    const actor = (ctx.state as WebState).actor;
    if (principal?.kind === 'key' && actor) return { actor, scopes: principal.key.scopes };
    const signature = params.get('signature') ?? '';
    const user = params.get('username') ?? '';
    const password = params.get('password') ?? '';
    if (signature !== '') {
      // A client that keeps sending wrong signatures is refused before anything is looked up.
      const refused = limits.apiKey.check(limitKey);
      if (refused) return refusal(refused);
    }
    const timestamp = params.get('timestamp');
    if (signature !== '' && timestamp !== undefined && timestamp !== '') return byTimedSignature(params, client, limitKey);
    if (signature !== '' && timestamp === undefined) return bySignature(signature, client, limitKey);
    if (user !== '' && password !== '') return byPassword(user, password, client);
    return { refused: params.has('username') || params.has('password') ? WRONG_LOGIN : PLEASE_LOG_IN, status: 403 };
  };
}
