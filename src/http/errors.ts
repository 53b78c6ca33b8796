import type { Context, Next } from 'koa';
import { AppError, STATUS, type ErrorCode } from '../errors.ts';
import type { Logger } from '../log.ts';
import { sendPage, sendProblem, wantsHtml, type Renderer } from './respond.ts';

export interface ClientError {
  status: number;
  code: ErrorCode;
  message: string;
  field?: string | undefined;
}

/**
 * The one place errors become responses. Client errors (AppError, or Koa's own 4xx errors) show their
 * message; anything else is logged with the request and answered with a generic 500.
 * Also gives a body to bodiless error statuses left by routing (404 no route, 405 wrong method).
 */
export function handleErrors(render: Renderer, log: Logger) {
  return async function errors(ctx: Context, next: Next): Promise<void> {
    let problem: ClientError | undefined;
    try {
      await next();
      if (ctx.body != null || ctx.status < 400) return;
      problem = routingError(ctx);
    } catch (err) {
      problem = asClientError(err);
      if (!problem) log.error('request failed', { method: ctx.method, path: ctx.path, err });
    }
    const { status, code, message, field } = problem ?? INTERNAL_ERROR;
    if (wantsHtml(ctx)) {
      ctx.status = status;
      sendPage(ctx, status, render('error', { title: ctx.message, status, message }));
    } else {
      sendProblem(ctx, status, code, message, field);
    }
  };
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

function routingError(ctx: Context): ClientError {
  const status = ctx.status;
  const allow = ctx.response.get('Allow');
  const message =
    status === 404
      ? `nothing at ${ctx.path}`
      : status === 405 && allow
        ? `${ctx.method} is not allowed here; allowed: ${allow}`
        : ctx.message;
  return { status, code: CODE_BY_STATUS[status] ?? 'invalid', message };
}

/** The client's error that `err` is (AppError, or a 4xx HttpError meant to be shown), or undefined. */
export function asClientError(err: unknown): ClientError | undefined {
  if (err instanceof AppError)
    return err.code === 'internal' ? undefined : { status: STATUS[err.code], code: err.code, message: err.message, field: err.field };
  const e = err as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true) {
    return { status: e.status, code: CODE_BY_STATUS[e.status] ?? 'invalid', message: String(e.message) };
  }
  return undefined;
}
