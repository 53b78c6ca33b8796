import type { Context, Next } from 'koa';
import { isAdmin } from '../../auth/actor.ts';
import type { Principal } from '../../auth/identity.ts';
import { grants, type Scope } from '../../auth/scopes.ts';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { markPersonal, sendSeeOther, wantsHtml } from '../../http/respond.ts';
import { principalOf as principalIn, readCookie, sessionOf, type WebState } from '../session.ts';

/** The API routes anyone may call: the description of the API itself. */
const PUBLIC_API: ReadonlySet<string> = new Set(['/api/v1/openapi.json']);

/**
 * Paths that never act for anyone: no key or session is looked up (a health check must not need the database
 * twice; /metrics checks a key of its own, which is no API key).
 */
const ANONYMOUS: ReadonlySet<string> = new Set([
  '/healthz',
  '/metrics',
  '/favicon.ico',
  '/robots.txt',
  // Shlink's health check, which its clients call with whatever key they hold (Shlink reads none there).
  '/rest/health',
  '/rest/v1/health',
  '/rest/v2/health',
  '/rest/v3/health',
]);

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/** The challenge every 401 about credentials carries (RFC 6750). */
const CHALLENGE = 'Bearer realm="kurz"';

/** Where a session made with the generated first password is sent, and what it may reach meanwhile. */
const CHANGE_PASSWORD_PATH = '/account/password';
const WHILE_PASSWORD_GENERATED: ReadonlySet<string> = new Set([CHANGE_PASSWORD_PATH, '/logout', '/login']);

/**
 * The 401 of a request whose credentials are missing (`error` undefined), malformed (invalid_request) or
 * no good (invalid_token), with its WWW-Authenticate challenge.
 */
function unauthorized(ctx: Context, message: string, error?: 'invalid_request' | 'invalid_token'): AppError {
  ctx.res.setHeader('WWW-Authenticate', error ? `${CHALLENGE}, error="${error}"` : CHALLENGE);
  return new AppError('unauthorized', message);
}

/**
 * Finds who a request acts for, for every request Koa serves: an API key (`Authorization: Bearer KEY` or
 * `X-Api-Key: KEY`), else the signed session cookie. Every /api/ route but PUBLIC_API needs one: without,
 * 401. A key that is given but unknown, revoked or expired is a 401 wherever it is sent, never a silent
 * fallback; past `apiKeyRateLimit` of those a minute, the client gets 429 without its key being looked up.
 * Every 401 carries a `WWW-Authenticate: Bearer` challenge. Every answer to someone known is marked
 * personal: the response writer sends it `Cache-Control: no-store`, whatever its handler asks for.
 * A session made with the generated first password reaches nothing but the form that replaces it.
 */
export function authenticate(web: WebServices) {
  const { access, pipeline } = web;
  const { apiKey: limit } = web.limits;

  async function principalOf(ctx: Context): Promise<Principal | undefined> {
    const authorization = ctx.get('Authorization');
    const header = ctx.get('X-Api-Key');
    if (authorization !== '' || header !== '') {
      // A client that keeps sending wrong keys is refused before its key is looked up.
      const client = pipeline.contextOf(ctx.req).limitKey;
      const refused = limit.check(client);
      if (refused) throw refused;
      const secret = authorization !== '' ? BEARER.exec(authorization)?.[1] : header.trim();
      if (!secret) {
        limit.failed(client);
        throw unauthorized(ctx, 'send the API key as "Authorization: Bearer KEY" or "X-Api-Key: KEY"', 'invalid_request');
      }
      const checked = await access.keyOf(secret, client);
      if ('refused' in checked) {
        limit.failed(client);
        throw unauthorized(ctx, checked.refused, 'invalid_token');
      }
      return { kind: 'key', key: checked.key };
    }
    const token = readCookie(ctx, web, 'session');
    const session = token ? await access.session(token) : undefined;
    return session && token ? { kind: 'session', session, token } : undefined;
  }

  return async function authenticateRequest(ctx: Context, next: Next): Promise<void> {
    if (ANONYMOUS.has(ctx.path) || ctx.path.startsWith('/assets/')) return next();
    let principal = await principalOf(ctx);
    const actor = principal && (await access.actorOf(principal, pipeline.contextOf(ctx.req).client));
    // A disabled (or removed) user's key is refused; their session is as good as none.
    if (principal?.kind === 'key' && !actor)
      throw unauthorized(ctx, `the API key "${principal.key.name}" belongs to a disabled user`, 'invalid_token');
    if (!actor) principal = undefined;
    (ctx.state as WebState).principal = principal;
    (ctx.state as WebState).actor = actor;
    if (!principal && (ctx.path === '/api' || ctx.path.startsWith('/api/')) && !PUBLIC_API.has(ctx.path)) {
      throw unauthorized(ctx, 'this API needs an API key ("Authorization: Bearer KEY") or a logged-in session');
    }
    if (principal) markPersonal(ctx.res);
    if (
      principal?.kind === 'session' &&
      !WHILE_PASSWORD_GENERATED.has(ctx.path) &&
      (await access.mustChangePassword(principal.session.userId))
    ) {
      if (ctx.method === 'GET' && wantsHtml(ctx.req)) return sendSeeOther(ctx.res, CHANGE_PASSWORD_PATH);
      throw new AppError('forbidden', `the admin password is still the generated one: choose a new one at ${CHANGE_PASSWORD_PATH} first`);
    }
    await next();
  };
}

/**
 * An API route an API key may call only when it has `scope` (or `admin`); a session has every scope.
 * Refused with 403 naming the scope.
 */
export function needs(scope: Scope) {
  return async function scoped(ctx: Context, next: Next): Promise<void> {
    const principal = principalIn(ctx);
    if (principal?.kind === 'key' && !grants(principal.key.scopes, scope)) {
      throw new AppError(
        'forbidden',
        `the API key "${principal.key.name}" lacks the scope ${scope}, which this call needs; make a key that has it`,
        'scope',
      );
    }
    await next();
  };
}

/**
 * A route for the logged-in admin only: a browser asking for a page is sent to the login page (and brought
 * back after), anything else gets 401.
 */
/**
 * A page or API route for admins only: a browser asking for a page without a session is sent to log in
 * first, as for `loginRequired`; a member (by session or key) gets 403: these routes name no link, so
 * nothing leaks by saying so.
 */
export async function adminRequired(ctx: Context, next: Next): Promise<void> {
  const actor = (ctx.state as WebState).actor;
  if (!actor) return loginRequired(ctx, next);
  if (!isAdmin(actor)) throw new AppError('forbidden', 'only an admin may do this');
  await next();
}

export async function loginRequired(ctx: Context, next: Next): Promise<void> {
  if (sessionOf(ctx)) return next();
  if (ctx.method === 'GET' && wantsHtml(ctx.req)) return sendSeeOther(ctx.res, `/login?next=${encodeURIComponent(ctx.originalUrl)}`);
  throw unauthorized(ctx, 'log in first');
}
