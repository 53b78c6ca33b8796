import type { Context } from 'koa';
import type { Services } from '../../app.ts';
import { readAsset } from '../../assets.ts';
import { sendJson } from '../respond.ts';

// Short links are for people; crawlers following them only skew the counts, and kurz's pages are not content.
const ROBOTS = 'User-agent: *\nDisallow: /\n';

/** /healthz, /favicon.ico, /robots.txt. */
export function systemHandlers(s: Services) {
  const favicon = readAsset('views/favicon.ico');
  return {
    checkHealth(ctx: Context): void {
      let ok: boolean;
      try {
        ok = s.isDatabaseReachable();
      } catch {
        ok = false;
      }
      sendJson(ctx, ok ? 200 : 503, { status: ok ? 'ok' : 'database unreachable' });
      ctx.set('Cache-Control', 'no-store');
    },

    showFavicon(ctx: Context): void {
      ctx.type = 'image/x-icon';
      ctx.set('Cache-Control', 'public, max-age=604800');
      ctx.body = favicon;
    },

    showRobots(ctx: Context): void {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = ROBOTS;
    },
  };
}
