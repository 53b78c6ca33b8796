import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Context } from 'koa';
import { Eta } from 'eta';
import { readAsset } from '../assets.ts';
import type { ErrorCode } from '../errors.ts';
import type { ClientError } from './errors.ts';

const VIEWS = ['layout', 'home', 'link', 'error'] as const;
export type View = (typeof VIEWS)[number];
export type Renderer = (view: View, data: Record<string, unknown>) => string;

/** Loads every template from views/ once; output is HTML-escaped unless a template says otherwise. */
export function createRenderer(): Renderer {
  const eta = new Eta({ autoEscape: true, cache: true });
  for (const view of VIEWS) eta.loadTemplate(`@${view}`, readAsset(`views/${view}.eta`).toString('utf8'));
  return (view, data) => eta.render(`@${view}`, data);
}

const PAGE_SECURITY = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Browsers (which list text/html) get pages; API clients, curl's *\/* and empty Accept get JSON. */
export function wantsHtml(ctx: Context): boolean {
  return ctx.accepts('json', 'html') === 'html';
}

export function sendPage(ctx: Context, status: number, html: string): void {
  ctx.status = status;
  ctx.set(PAGE_SECURITY);
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
}

export function sendJson(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = body;
}

/** RFC 9457 problem details; `code` and `field` let clients react without parsing the message. */
export function problem(status: number, code: ErrorCode, detail: string, field?: string) {
  return { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, code, detail, ...(field ? { field } : {}) };
}

export const PROBLEM_TYPE = 'application/problem+json';

export function sendProblem(ctx: Context, status: number, code: ErrorCode, detail: string, field?: string): void {
  ctx.status = status;
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = problem(status, code, detail, field);
  ctx.type = PROBLEM_TYPE;
}

// What Koa gives a JSON body (`ctx.body = object`).
const JSON_TYPE = 'application/json; charset=utf-8';

/** sendJson on Node's own response, for the fast paths: the status, headers and bytes Koa would send. */
export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  writeText(res, status, JSON_TYPE, JSON.stringify(body));
}

/** sendProblem on Node's own response, for the fast paths. */
export function writeProblem(res: ServerResponse, { status, code, message, field }: ClientError): void {
  writeText(res, status, PROBLEM_TYPE, JSON.stringify(problem(status, code, message, field)));
}

function writeText(res: ServerResponse, status: number, type: string, text: string): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text), 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}

/**
 * True when an Accept header certainly prefers JSON to HTML (absent, *\/*, or JSON without any text/html
 * or text/*): such clients can be answered without content negotiation. Anything else is left to Koa.
 */
export function surelyWantsJson(accept: string | undefined): boolean {
  return accept === undefined || accept === '*/*' || (accept.includes('json') && !accept.includes('text/'));
}
