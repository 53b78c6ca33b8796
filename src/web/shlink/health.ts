import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { VERSION } from '../../core/version.ts';
import { send } from '../../http/respond.ts';
import { mercureNotConfigured } from './problems.ts';

/**
 * The Shlink release whose REST API kurz answers (its OpenAPI description is test/fixtures/shlink/): Shlink's
 * clients turn features on by this number, so kurz's own version rides along as semver build metadata.
 */
export const SHLINK_API_VERSION = `5.0.0+kurz.${VERSION}`;

/** /rest/health, /rest/v{1,2,3}/health and /rest/v{1,2,3}/mercure-info */
export function shlinkHealthHandlers(web: WebServices) {
  return {
    /** 200 `pass` while the database answers and takes writes, else 503 `fail`: application/health+json, as Shlink's. */
    async checkHealth(ctx: Context): Promise<void> {
      const problem = await web.databaseProblem();
      const body = JSON.stringify({ status: problem === undefined ? 'pass' : 'fail', version: SHLINK_API_VERSION });
      send(ctx.res, problem === undefined ? 200 : 503, { 'Content-Type': 'application/health+json', 'Cache-Control': 'no-store' }, body);
    },

    /** kurz has no Mercure hub: Shlink's 501, on which its web client polls instead of listening. */
    showMercureInfo(): never {
      throw mercureNotConfigured();
    },
  };
}
