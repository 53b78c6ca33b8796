import { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import accepts from 'accepts';
import { Eta } from 'eta';
import { readAsset } from '../assets.ts';
import type { ErrorCode } from '../core/errors.ts';

const VIEWS = [
  'layout',
  'field',
  'link-options',
  'expiry-field',
  'utm-fields',
  'link-table',
  'copy',
  'home',
  'dashboard',
  'links',
  'links-delete',
  'link',
  'stats',
  'top-table',
  'period-picker',
  'compare',
  'delete',
  'import',
  'import-file',
  'keys',
  'key-revoke',
  'key-table',
  'webhooks',
  'webhook-delete',
  'tags',
  'tag-delete',
  'domains',
  'domain',
  'domain-remove',
  'domain-fields',
  'settings',
  'error',
  'login',
  'password',
  'guarded',
  'reviewing',
  'unavailable',
  'preview',
  'page',
  'form-answers',
  'account-password',
  'users',
  'welcome',
  'activity',
  'activity-table',
  'review',
  'share',
] as const;
export type View = (typeof VIEWS)[number];

/** A rendered page, with the Content-Security-Policy it must be sent with. */
export interface Page {
  readonly html: string;
  readonly csp: string;
}
export type Renderer = (view: View, data: Record<string, unknown>) => Page;

/** No inline script or style anywhere: the pages load /assets/kurz.css and /assets/kurz.js only. */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
/**
 * Views whose form leads off the site: a link's password form (and a page before the redirect) posts to kurz, which answers with a redirect
 * to the target, and browsers hold a form's redirects to `form-action` as well.
 */
const FORMS_LEAVE_SITE: ReadonlySet<View> = new Set(['password', 'page']);
const LEAVING_CSP = PAGE_CSP.replace("form-action 'self'", "form-action 'self' http: https:");

/** Loads every template from views/ once; output is HTML-escaped unless a template says otherwise. */
export function createRenderer(): Renderer {
  const eta = new Eta({ autoEscape: true, cache: true });
  for (const view of VIEWS) eta.loadTemplate(`@${view}`, readAsset(`views/${view}.eta`).toString('utf8'));
  return (view, data) => ({ html: eta.render(`@${view}`, data), csp: FORMS_LEAVE_SITE.has(view) ? LEAVING_CSP : PAGE_CSP });
}

/**
 * The one content negotiation: browsers (which list text/html above JSON) get pages; API clients, curl's
 * `*\/*` and an absent Accept get JSON.
 */
export function wantsHtml(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  if (accept === undefined || accept === '*/*') return false;
  return accepts(req).type(['json', 'html']) === 'html';
}

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json';

/**
 * Marks an answer for someone known (an API key, a session): whatever their handler says, no cache keeps it.
 * Kept on the response itself: an entry in a WeakSet costs the garbage collector more, at every request.
 */
const FOR_SOMEONE: unique symbol = Symbol('kurz answer for someone known');

type Marked = ServerResponse & { [FOR_SOMEONE]?: true };

/** Marks `res` as an answer for someone known: it is sent `Cache-Control: no-store` (authenticate.ts). */
export function markPersonal(res: ServerResponse): void {
  (res as Marked)[FOR_SOMEONE] = true;
}

/** `headers`, with Cache-Control: no-store when `res` is an answer for someone known. */
function withCaching(res: ServerResponse, headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  return (res as Marked)[FOR_SOMEONE] === true ? { ...headers, 'Cache-Control': 'no-store' } : headers;
}

/**
 * The one response writer: every answer kurz gives, from the edge or from Koa, is written here with its
 * status, headers and Content-Length. Headers set earlier on `res` (Allow, Location, cookies) are kept.
 */
export function send(res: ServerResponse, status: number, headers: OutgoingHttpHeaders, body: string | Buffer): void {
  res.writeHead(status, { ...withCaching(res, headers), 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, { 'Content-Type': JSON_TYPE, 'X-Content-Type-Options': 'nosniff' }, JSON.stringify(body));
}

export function sendPage(res: ServerResponse, status: number, page: Page): void {
  send(res, status, { ...PAGE_HEADERS, 'Content-Security-Policy': page.csp }, page.html);
}

/** RFC 9457 problem details; `code` and `field` let clients react without parsing the message. */
export function sendProblem(res: ServerResponse, status: number, code: ErrorCode, detail: string, field?: string): void {
  const problem = { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, code, detail, ...(field ? { field } : {}) };
  send(res, status, { 'Content-Type': PROBLEM_TYPE, 'X-Content-Type-Options': 'nosniff' }, JSON.stringify(problem));
}

/**
 * A body of unknown length, written as `chunks` come (chunked encoding), waiting whenever the client reads
 * slower than they come: memory stays flat however long it is. Rejects when a chunk fails or the client
 * goes; the status is sent already, so the response just ends early.
 */
export async function sendStream(
  res: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
  chunks: AsyncIterable<string>,
): Promise<void> {
  res.writeHead(status, { ...withCaching(res, headers), 'X-Content-Type-Options': 'nosniff' });
  await pipeline(Readable.from(chunks), res);
}

/** 204: done, nothing to say (no Content-Length, which a 204 must not carry). */
export function sendNoContent(res: ServerResponse): void {
  res.writeHead(204, withCaching(res, {}));
  res.end();
}

/** A See Other after a form post; `cache` (UNCACHED) when it hands out a gated link's target. */
export function sendSeeOther(res: ServerResponse, location: string, cache?: string): void {
  const headers = { Location: location, 'Content-Type': 'text/plain; charset=utf-8' };
  send(res, 303, cache === undefined ? headers : { ...headers, 'Cache-Control': cache }, `Redirecting to ${location}.`);
}

/** What a redirect may be cached for: an ordinary link's, briefly by the visitor's browser alone. */
export const CACHED_REDIRECT = 'private, max-age=90';
/** A gated link's (visit limit, expiry, password): each visit must come back to kurz to be counted. */
export const UNCACHED = 'no-store';

/**
 * Strict-Transport-Security, on every answer when the public URL is https. A year, and no `includeSubDomains`:
 * a short domain is often a bare domain (ex.co) with other sites under it that kurz does not serve and cannot
 * promise to speak https. No `preload`: that is the domain owner's call.
 */
export const HSTS = 'max-age=31536000';

/**
 * A bodiless redirect, the hot path's answer: the headers as a flat list, so nothing is copied, with HSTS
 * when `hsts`. Every header goes in this one list: a header set before (`setHeader`) would send Node's
 * `writeHead` down its slow path, which removes and appends each header of the list one by one.
 */
export function sendRedirect(res: ServerResponse, status: number, location: string, cache = CACHED_REDIRECT, hsts = false): void {
  res.writeHead(
    status,
    hsts
      ? ['Location', location, 'Cache-Control', cache, 'Content-Length', '0', 'Strict-Transport-Security', HSTS]
      : ['Location', location, 'Cache-Control', cache, 'Content-Length', '0'],
  );
  res.end();
}
