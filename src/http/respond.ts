import { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import accepts from 'accepts';
import { Eta } from 'eta';
import { readAsset } from '../assets.ts';
import type { ErrorCode } from '../errors.ts';

const VIEWS = ['layout', 'home', 'link', 'error'] as const;
export type View = (typeof VIEWS)[number];
export type Renderer = (view: View, data: Record<string, unknown>) => string;

/** Loads every template from views/ once; output is HTML-escaped unless a template says otherwise. */
export function createRenderer(): Renderer {
  const eta = new Eta({ autoEscape: true, cache: true });
  for (const view of VIEWS) eta.loadTemplate(`@${view}`, readAsset(`views/${view}.eta`).toString('utf8'));
  return (view, data) => eta.render(`@${view}`, data);
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
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json';

/**
 * The one response writer: every answer kurz gives, from the edge or from Koa, is written here with its
 * status, headers and Content-Length. Headers set earlier on `res` (Allow, Location, cookies) are kept.
 */
export function send(res: ServerResponse, status: number, headers: OutgoingHttpHeaders, body: string | Buffer): void {
  res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, { 'Content-Type': JSON_TYPE, 'X-Content-Type-Options': 'nosniff' }, JSON.stringify(body));
}

export function sendPage(res: ServerResponse, status: number, html: string): void {
  send(res, status, PAGE_HEADERS, html);
}

/** RFC 9457 problem details; `code` and `field` let clients react without parsing the message. */
export function sendProblem(res: ServerResponse, status: number, code: ErrorCode, detail: string, field?: string): void {
  const problem = { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, code, detail, ...(field ? { field } : {}) };
  send(res, status, { 'Content-Type': PROBLEM_TYPE, 'X-Content-Type-Options': 'nosniff' }, JSON.stringify(problem));
}

/** A See Other after a form post. */
export function sendSeeOther(res: ServerResponse, location: string): void {
  send(res, 303, { Location: location, 'Content-Type': 'text/plain; charset=utf-8' }, `Redirecting to ${location}.`);
}

/** A bodiless redirect, the hot path's answer: the headers as a flat list, so nothing is copied. */
export function sendRedirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, ['Location', location, 'Cache-Control', 'private, max-age=90', 'Content-Length', '0']);
  res.end();
}
