import Router from '@koa/router';
import type { Services } from '../app.ts';
import { parseBody } from './body.ts';
import { LINKS_PATH, linksApiHandlers } from './handlers/links-api.ts';
import { pageHandlers } from './handlers/pages.ts';
import { redirectHandlers } from './handlers/redirect.ts';
import { systemHandlers } from './handlers/system.ts';

/**
 * Top-level path segments kurz serves or will serve; no alias may take one (compared lower-cased).
 * A test checks that every route below starts with one of these.
 */
export const RESERVED_PATHS: ReadonlySet<string> = new Set([
  'api',
  'links',
  'healthz',
  'metrics',
  'favicon.ico',
  'robots.txt',
  'login',
  'logout',
  'admin',
  'dashboard',
  'keys',
  'settings',
  'stats',
  'static',
  'assets',
  'docs',
  'openapi.json',
  'qr',
  'export',
  'import',
  'account',
]);

/** Every route kurz serves, in one table. */
export function createRouter(s: Services): Router {
  const pages = pageHandlers(s);
  const api = linksApiHandlers(s);
  const system = systemHandlers(s);
  const { redirect } = redirectHandlers(s);
  const router = new Router({ sensitive: true });

  // Pages
  router.get('/', pages.showForm);
  router.post('/', parseBody, pages.createLinkFromForm);
  router.get('/links/:code', pages.showLink);

  // JSON API
  router.post(LINKS_PATH, parseBody, api.createLink);
  router.get(`${LINKS_PATH}/:code`, api.showLink);

  // System
  router.get('/healthz', system.checkHealth);
  router.get('/favicon.ico', system.showFavicon);
  router.get('/robots.txt', system.showRobots);

  // Redirects: last, so that every path above wins over a code
  router.get('/:code', redirect);

  return router;
}
