import Router from '@koa/router';
import type { WebServices } from '../context.ts';
import { linksApiHandlers } from './handlers/links-api.ts';
import { pageHandlers } from './handlers/pages.ts';
import { systemHandlers } from './handlers/system.ts';

/**
 * Every route Koa serves, in one table. The redirect (`GET|HEAD /CODE`) is the edge's (src/edge/); every
 * top-level segment here is in RESERVED_PATHS, so the edge hands it to Koa (a test checks this).
 */
export function createRouter(web: WebServices): Router {
  const pages = pageHandlers(web);
  const api = linksApiHandlers(web);
  const system = systemHandlers(web);
  const router = new Router({ sensitive: true });

  // Pages
  router.get('/', pages.showForm);
  router.post('/', pages.createLinkFromForm);
  router.get('/links/:code', pages.showLink);

  // JSON API
  router.post('/api/v1/links', api.createLink);
  router.get('/api/v1/links/:code', api.showLink);

  // System
  router.get('/healthz', system.checkHealth);
  router.get('/favicon.ico', system.showFavicon);
  router.get('/robots.txt', system.showRobots);

  return router;
}
