import type { Context } from 'koa';
import { readAsset } from '../../assets.ts';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { send, sendJson } from '../../http/respond.ts';
import { DEFAULT_DOMAIN } from '../../domains/domain.ts';
import type { OpenApiDocument } from '../openapi.ts';

/** The files under /assets/: the pages' stylesheet and their one, optional, script. */
const ASSETS: Readonly<Record<string, string>> = {
  'kurz.css': 'text/css; charset=utf-8',
  'kurz.js': 'text/javascript; charset=utf-8',
};

/** /healthz, /favicon.ico, /robots.txt, /assets/, /api/v1/openapi.json (the document the route table gives). */
export function systemHandlers(web: WebServices, openApi: OpenApiDocument) {
  const favicon = readAsset('views/favicon.ico');
  const assets = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readAsset(`views/${name}`) }]));
  return {
    /** 200 while the database answers and takes writes; else 503 saying what is wrong. */
    async checkHealth(ctx: Context): Promise<void> {
      const problem = await web.databaseProblem();
      ctx.res.setHeader('Cache-Control', 'no-store');
      const database = web.config.databaseUrl === '' ? 'sqlite' : 'postgres';
      if (problem === undefined) sendJson(ctx.res, 200, { status: 'ok', database });
      else sendJson(ctx.res, 503, { status: 'unhealthy', database, problem });
    },

    showFavicon(ctx: Context): void {
      send(ctx.res, 200, { 'Content-Type': 'image/x-icon', 'Cache-Control': 'public, max-age=604800' }, favicon);
    },

    showAsset(ctx: Context): void {
      const asset = assets.get(ctx.params['name'] ?? '');
      if (!asset) throw new AppError('not_found', `nothing at ${ctx.path}`);
      const headers = { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' };
      send(ctx.res, 200, headers, asset.body);
    },

    /** The robots.txt of the request's domain (links/robots.ts): its crawlable links allowed, every other path not. */
    async showRobots(ctx: Context): Promise<void> {
      const domain = web.registry.domainOfRequest(ctx.req.rawHeaders) ?? DEFAULT_DOMAIN;
      const text = await web.resolver.robotsText(domain, web.now());
      send(ctx.res, 200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }, text);
    },

    /** The OpenAPI document of every route (web/openapi.ts); needs no key. */
    showOpenApi(ctx: Context): void {
      ctx.res.setHeader('Cache-Control', 'public, max-age=3600');
      sendJson(ctx.res, 200, openApi);
    },
  };
}
