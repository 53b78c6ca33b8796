import type { Context } from 'koa';
import typeis from 'type-is';
import type { Principal } from '../auth/identity.ts';
import type { WebServices } from '../context.ts';
import { AppError } from '../errors.ts';
import { BODY_LIMIT, readBody } from '../http/body.ts';

/** The signed cookie holding a login session's token. */
export const SESSION_COOKIE = 'kurz_session';
/** A random value that binds the CSRF token of forms shown before login (login, anonymous shortening). */
export const FORM_COOKIE = 'kurz_form';
/** A browser that logged in before: its failed logins are limited on their own (see Access.login). */
export const DEVICE_COOKIE = 'kurz_device';
/** How long a browser stays known without logging in again. */
export const DEVICE_MAX_AGE = 365 * 86_400_000;
/** The hidden field every state-changing form carries. */
export const CSRF_FIELD = '_csrf';

/** What the authenticate middleware leaves in `ctx.state`. */
export interface WebState {
  principal: Principal | undefined;
}

export function principalOf(ctx: Context): Principal | undefined {
  return (ctx.state as WebState).principal;
}

/** The logged-in session's principal, or undefined (an API key is no login). */
export function sessionOf(ctx: Context): Extract<Principal, { kind: 'session' }> | undefined {
  const principal = principalOf(ctx);
  return principal?.kind === 'session' ? principal : undefined;
}

/**
 * The request's cookies, marked Secure when the public URL is https (also behind a TLS-terminating proxy,
 * where the connection to kurz is plain HTTP). Built only when a cookie is read or set: a request with an
 * API key never pays for them.
 */
export function cookiesOf(ctx: Context, web: WebServices): Context['cookies'] {
  const cookies = ctx.cookies;
  cookies.secure = web.config.publicUrl.startsWith('https:');
  return cookies;
}

/** Cookie attributes: HttpOnly, SameSite=Lax, Secure when the public URL is https; signed with the session secret. */
export function cookieOptions(web: WebServices, maxAge?: number) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: web.config.publicUrl.startsWith('https:'),
    signed: true,
    path: '/',
    overwrite: true,
    ...(maxAge === undefined ? {} : { maxAge }),
  };
}

/** What a form's CSRF token is bound to: the session's token, else the pre-login form cookie (set when missing). */
function csrfBinding(ctx: Context, web: WebServices): string {
  const session = sessionOf(ctx);
  if (session) return session.token;
  let value = cookiesOf(ctx, web).get(FORM_COOKIE, { signed: true });
  if (!value) {
    value = web.random(16).toString('base64url');
    cookiesOf(ctx, web).set(FORM_COOKIE, value, cookieOptions(web));
  }
  return value;
}

/** The CSRF token to put in the hidden `_csrf` field of the forms on the page being rendered. */
export function csrfToken(ctx: Context, web: WebServices): string {
  return web.access.csrfToken(csrfBinding(ctx, web));
}

/**
 * The one reader of a submitted form: the body (form-encoded, at most `limit` bytes: 64 KiB but for the
 * bulk form) once its `_csrf` field matches the token of the session or pre-login cookie. Throws 403
 * otherwise, before anything is done; 413 for a larger body.
 */
export async function readForm(ctx: Context, web: WebServices, limit = BODY_LIMIT): Promise<Record<string, unknown>> {
  // An empty form has no token: refused like a wrong one, not as an empty body.
  const empty = !typeis.hasBody(ctx.req) || ctx.req.headers['content-length'] === '0';
  const body = empty ? {} : ((await readBody(ctx.req, ['form'], limit)) as Record<string, unknown>);
  const session = sessionOf(ctx);
  const bound = session ? session.token : (cookiesOf(ctx, web).get(FORM_COOKIE, { signed: true }) ?? '');
  if (!web.access.checkCsrf(bound, body[CSRF_FIELD]))
    throw new AppError('forbidden', 'the form has expired or did not come from this site; reload the page and send it again');
  return body;
}

/**
 * The path the login page may return to: a path on kurz itself, never another site (`//evil`, `/\\evil`,
 * `https://…`, control characters, or a path that only becomes `//evil` once its dot segments are
 * resolved: `/.//evil`, `/%2e//evil`); anything else is `/`.
 */
export function safeReturnPath(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return '/';
  const url = URL.parse(next, 'http://kurz.invalid');
  if (!url || url.origin !== 'http://kurz.invalid' || url.pathname.startsWith('//')) return '/';
  return url.pathname + url.search;
}
