import type { Context, Next } from 'koa';
import type { WebServices } from '../context.ts';
import { UNMATCHED } from '../http/pipeline.ts';
import { httpError, sendError } from '../http/problems.ts';
import { send } from '../http/respond.ts';

/**
 * Koa's outermost middleware. Handlers write their answers with http/respond.ts, so Koa itself writes
 * nothing (`respond = false`); a request no route answered (404, or 405 from allowedMethods) and every
 * thrown error go to the shared `sendError`. Every answer is reported to the request counter under the
 * route that took it; a 404 of no route counts against the client's `notFoundRateLimit`.
 */
export function handleErrors(web: WebServices) {
  const { pipeline } = web;
  return async function errors(ctx: Context, next: Next): Promise<void> {
    ctx.respond = false;
    try {
      await next();
      if (ctx.res.headersSent) return;
      // OPTIONS, answered by allowedMethods with its Allow header.
      if (ctx.status < 400) return send(ctx.res, ctx.status, {}, '');
      throw routingError(ctx);
    } catch (err) {
      sendError(ctx.req, ctx.res, err, web);
    } finally {
      const matched = (ctx as Context & { _matchedRoute?: string })._matchedRoute;
      // A path nothing serves counts like an unknown code: scanners probe paths too.
      if (!matched && ctx.res.statusCode === 404) web.limits.notFound.failed(pipeline.clientOf(ctx.req));
      pipeline.answered(matched ? `${ctx.method} ${matched}` : UNMATCHED, ctx.res.statusCode);
    }
  };
}

function routingError(ctx: Context): Error {
  const allow = ctx.response.get('Allow');
  if (ctx.status === 405 && allow) return httpError(405, `${ctx.method} is not allowed here; allowed: ${allow}`);
  if (ctx.status === 404) return httpError(404, `nothing at ${ctx.path}`);
  return httpError(ctx.status, ctx.message);
}
