import type { Context } from 'koa';
import type { WebServices } from '../context.ts';
import type { WebState } from './session.ts';

/**
 * Counts `links` creations (a batch counts its links) against the client's limit: `creationRateLimit`
 * for someone known (an API key, a session, YOURLS' credentials), `anonymousRateLimit` through the public form. A request is let in while
 * the client is under its limit, so one batch may take it over. Throws the 429 while the client must wait.
 */
export function takeCreations(ctx: Context, web: WebServices, links: number): void {
  const limit = (ctx.state as WebState).actor ? web.limits.creation : web.limits.anonymousCreation;
  const refused = limit.take(web.pipeline.contextOf(ctx.req).limitKey, links);
  if (refused) throw refused;
}
