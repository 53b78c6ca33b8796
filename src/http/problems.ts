import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { AppError, asSentence, STATUS, type ErrorCode } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { Pipeline } from './pipeline.ts';
import { sendPage, sendProblem, wantsHtml, type Renderer } from './respond.ts';

export interface ClientError {
  status: number;
  code: ErrorCode;
  message: string;
  field?: string | undefined;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number | undefined;
}

/** What a client is told of a failure that is not its own (logged with the request). */
export const INTERNAL_ERROR: ClientError = {
  status: 500,
  code: 'internal',
  message: 'something went wrong on our side; it has been logged',
};

const CODE_BY_STATUS: Record<number, ErrorCode> = Object.fromEntries(
  Object.entries(STATUS).map(([code, status]) => [status, code as ErrorCode]),
);

/** The error code a status maps to; `invalid` for 4xx statuses without a code of their own (405, 415). */
function codeOfStatus(status: number): ErrorCode {
  return CODE_BY_STATUS[status] ?? 'invalid';
}

/**
 * The client's error that `err` is (AppError, or a 4xx or 501 HttpError meant to be shown), or undefined.
 * A 501 is the client's too: it asked for a method kurz implements nowhere, and nothing failed.
 */
export function asClientError(err: unknown): ClientError | undefined {
  if (err instanceof AppError)
    return err.code === 'internal'
      ? undefined
      : { status: STATUS[err.code], code: err.code, message: err.message, field: err.field, retryAfter: err.retryAfter };
  const e = err as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof e?.status === 'number' && ((e.status >= 400 && e.status < 500) || e.status === 501) && e.expose === true) {
    return { status: e.status, code: codeOfStatus(e.status), message: String(e.message) };
  }
  return undefined;
}

/** A 4xx (or 501) error that carries its own status (415, 405), shown to the client like an AppError. */
export function httpError(status: number, message: string): Error {
  return Object.assign(new Error(message), { status, expose: true });
}

/** What answering an error takes: the pages, the log, and the pipeline (request ids). */
export interface Answering {
  render: Renderer;
  log: Logger;
  pipeline: Pipeline;
}

/**
 * The one place a failure becomes an answer, for the edge and for Koa alike: a client error shows its
 * message; anything else is logged with the request and answered with a generic 500. A page for browsers,
 * problem+json for everyone else (`wantsHtml`). Either way the answer carries the request id
 * (`X-Request-Id`), the id in the log. A response already under way is cut off instead.
 */
export function sendError(req: IncomingMessage, res: ServerResponse, err: unknown, web: Answering): void {
  const problem = asClientError(err);
  const { id, client } = web.pipeline.contextOf(req);
  if (!problem) web.log.error('request failed', { requestId: id, method: req.method, path: req.url, client, err });
  if (!res.headersSent) res.setHeader('X-Request-Id', id);
  sendClientError(req, res, problem ?? INTERNAL_ERROR, web.render);
}

/** Answers with a client error, as a page or problem+json. */
export function sendClientError(req: IncomingMessage, res: ServerResponse, problem: ClientError, render: Renderer): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const { status, code, message, field } = problem;
  sendRetryAfter(res, problem);
  if (wantsHtml(req))
    sendPage(res, status, render('error', { title: STATUS_CODES[status] ?? 'Error', status, message: asSentence(message) }));
  else sendProblem(res, status, code, message, field);
}

/** The Retry-After of a rate-limit refusal, however it is answered (a page, a form, problem+json). */
export function sendRetryAfter(res: ServerResponse, refusal: Pick<ClientError, 'retryAfter'>): void {
  if (refusal.retryAfter !== undefined) res.setHeader('Retry-After', String(refusal.retryAfter));
}
