import type { Context, Next } from 'koa';
import type { WebServices } from '../context.ts';
import { UNMATCHED } from '../http/pipeline.ts';
import { httpError, sendError } from '../http/problems.ts';
import { send } from '../http/respond.ts';

/** What a request no route took is answered: nothing there, a method the path does not take, or none kurz takes. */
const UNROUTED = new Set([404, 405, 501]);

/**
 * Koa's outermost middleware. Handlers write their answers with http/respond.ts, so Koa itself writes
 * nothing (`respond = false`); a request no route answered (404, or 405 and 501 from checkMethod) and
 * every thrown error go to the shared `sendError`. Every answer is reported to the request counter under
 * the route that took it; a 404, 405 or 501 of no route counts against the client's `notFoundRateLimit`.
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
      // A path nothing serves, or a method it does not take, counts like an unknown code: scanners probe
      // paths and methods too.
      if (!matched && UNROUTED.has(ctx.res.statusCode)) {
        const key = pipeline.notFoundKeyOf(ctx.req);
        if (key !== undefined) web.limits.notFound.failed(key);
      }
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
