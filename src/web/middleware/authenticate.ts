import type { Context, Next } from 'koa';
import type { Principal } from '../../auth/identity.ts';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { sendSeeOther, wantsHtml } from '../../http/respond.ts';
import { cookiesOf, SESSION_COOKIE, sessionOf, type WebState } from '../session.ts';

/** The API routes anyone may call: the description of the API itself. */
const PUBLIC_API: ReadonlySet<string> = new Set(['/api/v1/openapi.json']);

/**
 * Paths that never act for anyone: no key or session is looked up (a health check must not need the database
 * twice; /metrics checks a key of its own, which is no API key).
 */
const ANONYMOUS: ReadonlySet<string> = new Set(['/healthz', '/metrics', '/favicon.ico', '/robots.txt']);

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/**
 * Finds who a request acts for, for every request Koa serves: an API key (`Authorization: Bearer KEY` or
 * `X-Api-Key: KEY`), else the signed session cookie. Every /api/ route but PUBLIC_API needs one: without,
 * 401. A key that is given but unknown or revoked is a 401 wherever it is sent, never a silent fallback;
 * past `apiKeyRateLimit` of those a minute, the client gets 429 without its key being looked up.
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
      const key = secret ? await access.keyOf(secret) : undefined;
      if (!key) {
        limit.failed(client);
        throw new AppError(
          'unauthorized',
          secret ? 'the API key is not valid: unknown or revoked' : 'send the API key as "Authorization: Bearer KEY" or "X-Api-Key: KEY"',
        );
      }
      return { kind: 'key', key };
    }
    const token = cookiesOf(ctx, web).get(SESSION_COOKIE, { signed: true });
    const session = token ? await access.session(token) : undefined;
    return session && token ? { kind: 'session', session, token } : undefined;
  }

  return async function authenticateRequest(ctx: Context, next: Next): Promise<void> {
    if (ANONYMOUS.has(ctx.path) || ctx.path.startsWith('/assets/')) return next();
    const principal = await principalOf(ctx);
    (ctx.state as WebState).principal = principal;
    if (!principal && (ctx.path === '/api' || ctx.path.startsWith('/api/')) && !PUBLIC_API.has(ctx.path)) {
      throw new AppError('unauthorized', 'this API needs an API key ("Authorization: Bearer KEY") or a logged-in session');
    }
    await next();
  };
}

/**
 * A route for the logged-in admin only: a browser asking for a page is sent to the login page (and brought
 * back after), anything else gets 401.
 */
export async function loginRequired(ctx: Context, next: Next): Promise<void> {
  if (sessionOf(ctx)) return next();
  if (ctx.method === 'GET' && wantsHtml(ctx.req)) return sendSeeOther(ctx.res, `/login?next=${encodeURIComponent(ctx.originalUrl)}`);
  throw new AppError('unauthorized', 'log in first');
}
