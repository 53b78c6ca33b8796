import type { Context } from 'koa';
import { readAsset } from '../../assets.ts';
import type { WebServices } from '../../context.ts';
import { send, sendJson } from '../../http/respond.ts';

// Short links are for people; crawlers following them only skew the counts, and kurz's pages are not content.
const ROBOTS = 'User-agent: *\nDisallow: /\n';

/** /healthz, /favicon.ico, /robots.txt. */
export function systemHandlers(web: WebServices) {
  const favicon = readAsset('views/favicon.ico');
  return {
    async checkHealth(ctx: Context): Promise<void> {
      const ok = await web.isDatabaseReachable().catch(() => false);
      ctx.res.setHeader('Cache-Control', 'no-store');
      sendJson(ctx.res, ok ? 200 : 503, { status: ok ? 'ok' : 'database unreachable' });
    },

    showFavicon(ctx: Context): void {
      send(ctx.res, 200, { 'Content-Type': 'image/x-icon', 'Cache-Control': 'public, max-age=604800' }, favicon);
    },

    showRobots(ctx: Context): void {
      send(ctx.res, 200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=86400' }, ROBOTS);
    },
  };
}
