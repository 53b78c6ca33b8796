import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { REDIRECT_METHODS, redirectPathSegment } from '../edge/redirect.ts';
import { httpError } from '../http/problems.ts';

/**
 * Koa's first say on a request's method, before anyone asks who it acts for: a method no route takes
 * anywhere (TRACE, PROPFIND, PURGE, …) is a 501, and one a path does not take a 405 with its `Allow`
 * (a redirect's path: GET, HEAD). Both are client errors, answered and counted like an unknown path
 * (handleErrors). OPTIONS is left to the router's allowedMethods.
 */
export function checkMethod(router: Router) {
  const implemented = new Set(['OPTIONS', ...REDIRECT_METHODS, ...router.stack.flatMap((layer) => layer.methods)]);
  const known = [...implemented].join(', ');
  return async function methods(ctx: Context, next: Next): Promise<void> {
    const { method } = ctx;
    if (!implemented.has(method)) throw httpError(501, `kurz does not implement ${method}; it answers ${known}`);
    if (method !== 'OPTIONS') {
      const allow = allowedAt(router, ctx.path, method);
      if (allow !== undefined) {
        ctx.set('Allow', allow);
        throw httpError(405, `${method} is not allowed here; allowed: ${allow}`);
      }
    }
    await next();
  };
}

/** The `Allow` of a path that exists but does not take `method`; undefined when it does, or nothing is there. */
function allowedAt(router: Router, path: string, method: string): string | undefined {
  const match = router.match(path, method);
  if (match.route) return undefined;
  if (match.path.length > 0) return [...new Set(match.path.flatMap((layer) => layer.methods))].join(', ');
  return redirectPathSegment(path) !== undefined ? REDIRECT_METHODS.join(', ') : undefined;
}
