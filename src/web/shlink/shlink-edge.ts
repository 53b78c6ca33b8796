import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { sendNoContent } from '../../http/respond.ts';
import { principalOf } from '../session.ts';
import { AppError } from '../../core/errors.ts';
import { asShlinkProblem, missingAuthentication, routeNotFound, sendShlinkProblem } from './problems.ts';

/** Where Shlink's REST API lives: /rest/v1, /rest/v2 and /rest/v3 (which answer alike) and /rest/health. */
export const SHLINK_PREFIX = '/rest';

/** The methods a preflight of a path no route takes is told, as Shlink tells it. */
const ALL_METHODS = 'GET,POST,PUT,PATCH,DELETE';

/** How long a browser may keep a preflight's answer, in seconds: Shlink's default. */
const PREFLIGHT_MAX_AGE = '3600';

/** The paths Shlink serves under /rest: a version it has (the route table takes any `:version`), or health. */
const SHLINK_PATH = /^\/rest\/(v[123]\/|health$)/;

function isShlinkPath(path: string): boolean {
  return path === SHLINK_PREFIX || path.startsWith(`${SHLINK_PREFIX}/`);
}

/**
 * Shlink's edge around every request under /rest: CORS as Shlink answers it (any origin, `*`; a preflight
 * gets 204 with the path's methods, the requested headers echoed and a max age, without a key), a path no
 * route takes is Shlink's 404, and every error is Shlink's problem+json. Put before the method check and
 * authentication, so that their refusals are told in Shlink's words too; server errors go on to kurz's
 * handling (logged, a generic 500).
 */
export function shlinkEdge(router: Router) {
  return async function shlink(ctx: Context, next: Next): Promise<void> {
    if (!isShlinkPath(ctx.path)) return next();
    const origin = ctx.get('Origin');
    if (origin !== '') ctx.res.setHeader('Access-Control-Allow-Origin', '*');
    if (ctx.method === 'OPTIONS') {
      const methods = [...new Set(router.match(ctx.path, 'OPTIONS').path.flatMap((layer) => layer.methods))].filter(
        (method) => method !== 'HEAD',
      );
      const allowed = methods.length > 0 ? methods.join(',') : ALL_METHODS;
      ctx.res.setHeader('Allow', allowed);
      if (origin !== '') {
        ctx.res.setHeader('Access-Control-Allow-Methods', allowed);
        ctx.res.setHeader('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers'));
        ctx.res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
      }
      return sendNoContent(ctx.res);
    }
    try {
      if (!SHLINK_PATH.test(ctx.path)) throw routeNotFound(ctx.method, ctx.originalUrl);
      await next();
      if (!ctx.res.headersSent) throw routeNotFound(ctx.method, ctx.originalUrl);
    } catch (err) {
      const problem = asShlinkProblem(err);
      if (!problem) throw err;
      sendShlinkProblem(ctx.res, problem, err instanceof AppError ? err.retryAfter : undefined);
    }
  };
}

/** A Shlink route acts only for an API key given as `X-Api-Key` (kurz's authentication found it, or refused it already). */
export async function shlinkKey(ctx: Context, next: Next): Promise<void> {
  if (principalOf(ctx)?.kind !== 'key') throw missingAuthentication();
  await next();
}
