import type { Actor } from '../auth/actor.ts';
import type { Context } from 'koa';
import typeis from 'type-is';
import type { Principal } from '../auth/identity.ts';
import type { WebServices } from '../context.ts';
import { AppError } from '../core/errors.ts';
import { BODY_LIMIT, readBody, type BodyType } from '../http/body.ts';

/**
 * Every cookie kurz sets, by its base name. With an https public URL each is sent as `__Host-` + the name:
 * a browser then takes it only over https, for this host alone (no Domain), on every path, so that a
 * sibling subdomain or a plain-http page cannot plant or overwrite it.
 */
export const COOKIES = {
  /** The signed cookie holding a login session's token. */
  session: 'kurz_session',
  /** A random value that binds the CSRF token of forms shown before login (login, anonymous shortening). */
  form: 'kurz_form',
  /** A browser that logged in before: its failed logins are limited on their own (see Access.login). */
  device: 'kurz_device',
  /** A single sign-on under way in this browser: its state, nonce and PKCE verifier (see auth/sso.ts), for 10 minutes. */
  sso: 'kurz_sso',
  /** An API key just made, shown once on the page its creation leads to (post-redirect-get): for a minute, cleared when shown. */
  newKey: 'kurz_new_key',
  /** A webhook just added, its secret shown once on the page its addition leads to: for a minute, cleared when shown. */
  newWebhook: 'kurz_new_webhook',
} as const;
export type CookieName = keyof typeof COOKIES;

/** The session cookie's name on a public URL served over plain http (the OpenAPI document's example). */
export const SESSION_COOKIE = COOKIES.session;
/** How long a browser stays known without logging in again. */
export const DEVICE_MAX_AGE = 365 * 86_400_000;
/** The hidden field every state-changing form carries. */
export const CSRF_FIELD = '_csrf';

/** What the authenticate middleware leaves in `ctx.state`. */
export interface WebState {
  principal: Principal | undefined;
  /** Who the principal acts for: their user, role and client address. */
  actor: Actor | undefined;
  /** The links waiting for review, counted for an admin's page (web/middleware/review-count.ts); else undefined. */
  reviews?: number | undefined;
}

export function principalOf(ctx: Context): Principal | undefined {
  return (ctx.state as WebState).principal;
}

/**
 * Who the request acts for. Throws AppError('unauthorized') when nobody: every route that calls it is one
 * `authenticate` or `loginRequired` has already refused to strangers.
 */
export function actorOf(ctx: Context): Actor {
  const actor = (ctx.state as WebState).actor;
  if (!actor) throw new AppError('unauthorized', 'log in first');
  return actor;
}

/** The logged-in session's principal, or undefined (an API key is no login). */
export function sessionOf(ctx: Context): Extract<Principal, { kind: 'session' }> | undefined {
  const principal = principalOf(ctx);
  return principal?.kind === 'session' ? principal : undefined;
}

/** True when kurz is reached over https (also behind a TLS-terminating proxy, which talks plain HTTP to kurz). */
export function isHttps(web: WebServices): boolean {
  return web.config.publicUrl.startsWith('https:');
}

/** A cookie's name as sent: `__Host-` + its base name on https. */
export function cookieName(web: WebServices, cookie: CookieName): string {
  return isHttps(web) ? `__Host-${COOKIES[cookie]}` : COOKIES[cookie];
}

/**
 * The request's cookies, marked Secure when the public URL is https. Built only when a cookie is read or
 * set: a request with an API key never pays for them.
 */
function cookiesOf(ctx: Context, web: WebServices): Context['cookies'] {
  const cookies = ctx.cookies;
  cookies.secure = isHttps(web);
  return cookies;
}

/** The signed cookie's value; undefined when it is absent or its signature is wrong. */
export function readCookie(ctx: Context, web: WebServices, cookie: CookieName): string | undefined {
  return cookiesOf(ctx, web).get(cookieName(web, cookie), { signed: true });
}

/**
 * Sets (or with null, clears) a cookie: HttpOnly, SameSite=Lax (or `sameSite`), Path=/, no Domain, signed with the session
 * secret; Secure and `__Host-` prefixed when the public URL is https; for `maxAge` ms, else for the session.
 */
export function writeCookie(
  ctx: Context,
  web: WebServices,
  cookie: CookieName,
  value: string | null,
  maxAge?: number,
  sameSite: 'lax' | 'strict' = 'lax',
): void {
  cookiesOf(ctx, web).set(cookieName(web, cookie), value, {
    httpOnly: true,
    sameSite,
    secure: isHttps(web),
    signed: true,
    path: '/',
    overwrite: true,
    ...(maxAge === undefined ? {} : { maxAge }),
  });
}

/** What a form's CSRF token is bound to: the session's token, else the pre-login form cookie (set when missing). */
function csrfBinding(ctx: Context, web: WebServices): string {
  const session = sessionOf(ctx);
  if (session) return session.token;
  let value = readCookie(ctx, web, 'form');
  if (!value) {
    value = web.random(16).toString('base64url');
    writeCookie(ctx, web, 'form', value);
  }
  return value;
}

/** The CSRF token to put in the hidden `_csrf` field of the forms on the page being rendered. */
export function csrfToken(ctx: Context, web: WebServices): string {
  return web.access.csrfToken(csrfBinding(ctx, web));
}

/**
 * The one reader of a submitted form: the body (form-encoded, or with `accepted` multipart too: an upload; at most `limit` bytes: 64 KiB but for the
 * bulk form; `repeated`: fields that may come several times, as lists) once its `_csrf` field matches the token of the session or pre-login cookie. Throws 403
 * otherwise, before anything is done; 413 for a larger body.
 */
export async function readForm(
  ctx: Context,
  web: WebServices,
  limit = BODY_LIMIT,
  repeated: readonly string[] = [],
  accepted: readonly BodyType[] = ['form'],
): Promise<Record<string, unknown>> {
  // An empty form has no token: refused like a wrong one, not as an empty body.
  const empty = !typeis.hasBody(ctx.req) || ctx.req.headers['content-length'] === '0';
  const body = empty ? {} : ((await readBody(ctx.req, accepted, limit, repeated)) as Record<string, unknown>);
  const session = sessionOf(ctx);
  const bound = session ? session.token : (readCookie(ctx, web, 'form') ?? '');
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
