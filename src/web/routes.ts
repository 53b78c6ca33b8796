import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Scope } from '../auth/scopes.ts';
import type { WebServices } from '../context.ts';
import { accessPageHandlers } from './handlers/access-pages.ts';
import { activityUiHandlers } from './handlers/activity-ui.ts';
import { auditApiHandlers } from './handlers/audit-api.ts';
import { dashboardHandlers } from './handlers/dashboard.ts';
import { domainsUiHandlers } from './handlers/domains-ui.ts';
import { importUiHandlers } from './handlers/import-ui.ts';
import { keysUiHandlers } from './handlers/keys-ui.ts';
import { webhooksApiHandlers } from './handlers/webhooks-api.ts';
import { webhooksUiHandlers } from './handlers/webhooks-ui.ts';
import { tagsUiHandlers } from './handlers/tags-ui.ts';
import { domainsApiHandlers } from './handlers/domains-api.ts';
import { linksApiHandlers } from './handlers/links-api.ts';
import { linksBulkHandlers } from './handlers/links-bulk.ts';
import { linksUiHandlers } from './handlers/links-ui.ts';
import { metricsHandlers } from './handlers/metrics.ts';
import { settingsUiHandlers } from './handlers/settings-ui.ts';
import { statsApiHandlers } from './handlers/stats-api.ts';
import { statsPageHandlers } from './handlers/stats-pages.ts';
import { qrHandlers } from './handlers/qr.ts';
import { reviewHandlers } from './handlers/review.ts';
import { systemHandlers } from './handlers/system.ts';
import { unlockHandlers } from './handlers/unlock.ts';
import { pageFlowHandlers } from './handlers/page-flow.ts';
import { formAnswersHandlers } from './handlers/form-answers.ts';
import { usersApiHandlers } from './handlers/users-api.ts';
import { usersUiHandlers } from './handlers/users-ui.ts';
import { yourlsApiHandlers } from './handlers/yourls-api.ts';
import { shareHandlers } from './handlers/share.ts';
import { adminRequired, loginRequired, needs } from './middleware/authenticate.ts';
import { scopedOpenApi } from './openapi.ts';
import { shlinkHealthHandlers } from './shlink/health.ts';
import { SHLINK_PREFIX, shlinkKey } from './shlink/shlink-edge.ts';
import { shortUrlHandlers } from './shlink/short-urls.ts';
import { shlinkDomainHandlers } from './shlink/domains.ts';
import { shlinkTagHandlers } from './shlink/tags.ts';
import { shlinkVisitHandlers } from './shlink/visits.ts';
import { shlinkRuleHandlers } from './shlink/redirect-rules.ts';

/**
 * The scope an API key needs for each API route (`METHOD /path`, as registered below); a session has every
 * scope, and `admin` grants every scope. The OpenAPI document shows them.
 */
export const API_SCOPES = {
  'GET /api/v1/links': 'links:read',
  'POST /api/v1/links': 'links:write',
  'POST /api/v1/links/batch': 'links:write',
  'GET /api/v1/links/:code': 'links:read',
  'PATCH /api/v1/links/:code': 'links:write',
  'DELETE /api/v1/links/:code': 'links:write',
  'POST /api/v1/links/:code/approve': 'links:write',
  'POST /api/v1/links/:code/reject': 'links:write',
  'GET /api/v1/links/:code/qr': 'links:read',
  'GET /api/v1/links/:code/stats': 'stats:read',
  'GET /api/v1/links/:code/audit': 'links:read',
  'GET /api/v1/links/:code/rules': 'links:read',
  'PUT /api/v1/links/:code/rules': 'links:write',
  'GET /api/v1/links/:code/form-answers': 'links:read',
  'GET /api/v1/tags': 'links:read',
  'PATCH /api/v1/tags/:tag': 'links:write',
  'DELETE /api/v1/tags/:tag': 'links:write',
  'GET /api/v1/stats': 'stats:read',
  'GET /api/v1/export': 'export',
  'GET /api/v1/domains': 'links:read',
  'POST /api/v1/domains': 'domains',
  'GET /api/v1/users': 'admin',
  'POST /api/v1/users': 'admin',
  'GET /api/v1/users/:name': 'admin',
  'PATCH /api/v1/users/:name': 'admin',
  'POST /api/v1/users/:name/reset': 'admin',
  'POST /api/v1/users/:name/handover': 'admin',
  'GET /api/v1/domains/:host': 'links:read',
  'PATCH /api/v1/domains/:host': 'domains',
  'DELETE /api/v1/domains/:host': 'domains',
  'GET /api/v1/audit': 'admin',
  'GET /api/v1/webhooks': 'links:read',
  'POST /api/v1/webhooks': 'links:write',
  'PATCH /api/v1/webhooks/:id': 'links:write',
  'DELETE /api/v1/webhooks/:id': 'links:write',
  'POST /api/v1/webhooks/:id/ping': 'links:write',
  'GET /api/v1/webhooks/:id/deliveries': 'links:read',
} as const satisfies Record<string, Scope>;
export type ApiRoute = keyof typeof API_SCOPES;

/**
 * The scope an API key needs for each route of Shlink's REST API (src/web/shlink/), as for kurz's own API
 * doing the same work. Only an API key (`X-Api-Key`) reaches them: Shlink's clients have no session.
 */
export const SHLINK_SCOPES = {
  'GET /rest/:version/mercure-info': 'links:read',
  'GET /rest/:version/short-urls': 'links:read',
  'POST /rest/:version/short-urls': 'links:write',
  'GET /rest/:version/short-urls/:shortCode': 'links:read',
  'PATCH /rest/:version/short-urls/:shortCode': 'links:write',
  'DELETE /rest/:version/short-urls/:shortCode': 'links:write',
  'GET /rest/:version/short-urls/:shortCode/visits': 'stats:read',
  'GET /rest/:version/short-urls/:shortCode/redirect-rules': 'links:read',
  'POST /rest/:version/short-urls/:shortCode/redirect-rules': 'links:write',
  'GET /rest/:version/tags': 'links:read',
  'PUT /rest/:version/tags': 'links:write',
  'DELETE /rest/:version/tags': 'links:write',
  'GET /rest/:version/tags/stats': 'stats:read',
  'GET /rest/:version/tags/:tag/visits': 'stats:read',
  'GET /rest/:version/domains': 'links:read',
  'PATCH /rest/:version/domains/redirects': 'domains',
  'GET /rest/:version/domains/:domain/visits': 'stats:read',
  'GET /rest/:version/visits': 'stats:read',
  'GET /rest/:version/visits/non-orphan': 'stats:read',
  'GET /rest/:version/visits/orphan': 'stats:read',
  'DELETE /rest/:version/visits/orphan': 'links:write',
} as const satisfies Record<string, Scope>;
export type ShlinkRoute = keyof typeof SHLINK_SCOPES;

/** Paths whose matches are remembered per method; past it they are forgotten and remembered again. */
const REMEMBERED_PATHS = 1000;
/** Longer paths are matched every time: a client sending long ones cannot make the memory grow past 256 KB a method. */
const REMEMBERED_LENGTH = 256;
/** Methods remembered; others (the method check refuses any no route takes before the router sees it) are matched every time. */
const REMEMBERED_METHODS = 16;

type Match = ReturnType<Router['match']>;

/**
 * The router, remembering which routes a path and method match: matching walks every route's pattern, and
 * a request is matched twice (the method check, then the dispatch). The table never changes once built.
 * Each caller gets its own copy of the lists, which the router may extend.
 */
class RememberingRouter extends Router {
  readonly #matches = new Map<string, Map<string, Match>>();

  override match(path: string, method: string): Match {
    let remembered = this.#matches.get(method);
    if (remembered === undefined && this.#matches.size < REMEMBERED_METHODS) this.#matches.set(method, (remembered = new Map()));
    let found = remembered?.get(path);
    if (found === undefined) {
      found = super.match(path, method);
      if (remembered === undefined || path.length > REMEMBERED_LENGTH) return found;
      if (remembered.size >= REMEMBERED_PATHS) remembered.clear();
      remembered.set(path, found);
    }
    return { ...found, path: [...found.path], pathAndMethod: [...found.pathAndMethod] };
  }
}

/**
 * Every route Koa serves, in one table. The redirect (`GET|HEAD /CODE`) is the edge's (src/edge/); every
 * top-level segment here is in RESERVED_PATHS, so the edge hands it to Koa (a test checks this). Who may
 * call what: every /api/ route needs an API key or a session (middleware/authenticate.ts, except the
 * OpenAPI document), and a key the route's scope (API_SCOPES); pages marked `loginRequired` need a
 * session; /metrics its own key or address.
 */
export function createRouter(web: WebServices): Router {
  const dashboard = dashboardHandlers(web);
  const links = linksUiHandlers(web);
  const linksBulk = linksBulkHandlers(web);
  const bulk = importUiHandlers(web);
  const keys = keysUiHandlers(web);
  const webhooks = webhooksUiHandlers(web);
  const webhooksApi = webhooksApiHandlers(web);
  const tags = tagsUiHandlers(web);
  const domainsUi = domainsUiHandlers(web);
  const settings = settingsUiHandlers(web);
  const audit = auditApiHandlers(web);
  const activity = activityUiHandlers(web);
  const review = reviewHandlers(web);
  const access = accessPageHandlers(web);
  const api = linksApiHandlers(web);
  const domainsApi = domainsApiHandlers(web);
  const usersApi = usersApiHandlers(web);
  const usersUi = usersUiHandlers(web);
  const qr = qrHandlers(web);
  const stats = statsApiHandlers(web);
  const statsPages = statsPageHandlers(web);
  const system = systemHandlers(web, scopedOpenApi(API_SCOPES, SHLINK_SCOPES));
  const metrics = metricsHandlers(web);
  const unlock = unlockHandlers(web);
  const pages = pageFlowHandlers(web);
  const answers = formAnswersHandlers(web);
  const yourls = yourlsApiHandlers(web);
  const share = shareHandlers(web);
  const shlinkHealth = shlinkHealthHandlers(web);
  const shortUrls = shortUrlHandlers(web);
  const shlinkTags = shlinkTagHandlers(web);
  const shlinkDomains = shlinkDomainHandlers(web);
  const shlinkVisits = shlinkVisitHandlers(web);
  const shlinkRules = shlinkRuleHandlers(web);
  const router = new RememberingRouter({ sensitive: true });
  const apiRoute = (route: ApiRoute, ...handlers: Middleware[]) => {
    const [method = '', path = ''] = route.split(' ');
    router.register(path, [method], [needs(API_SCOPES[route]), ...handlers]);
  };

  // Access
  router.get('/login', access.showLogin);
  router.post('/login', access.login);
  router.get('/login/sso', access.startSso);
  router.get('/login/sso/callback', access.finishSso);
  router.post('/logout', access.logout);
  router.get('/account/password', loginRequired, access.showPasswordForm);
  router.post('/account/password', loginRequired, access.changePassword);
  router.get('/welcome/:token', usersUi.showWelcome);
  router.post('/welcome/:token', usersUi.acceptWelcome);

  // Pages
  router.get('/', dashboard.showHome);
  router.post('/', dashboard.createLink);
  router.get('/links', loginRequired, links.listLinks);
  router.get('/stats/compare', loginRequired, statsPages.showComparison);
  router.get('/stats/compare.csv', loginRequired, statsPages.exportComparison);
  router.get('/stats/dashboard.csv', loginRequired, dashboard.exportDashboard);
  // The list's bulk form posts to the list itself: any path below /links/ could be a link's code.
  router.post('/links', loginRequired, linksBulk.changeLinks);
  router.get('/links/:code', loginRequired, links.showLink);
  router.post('/links/:code', loginRequired, links.editLink);
  router.post('/links/:code/state', loginRequired, links.setLinkState);
  router.post('/links/:code/rules', loginRequired, links.changeRules);
  router.post('/links/:code/pages', loginRequired, links.changePages);
  router.get('/links/:code/stats', loginRequired, statsPages.showLinkStats);
  router.get('/links/:code/stats.csv', loginRequired, statsPages.exportLinkStats);
  router.get('/links/:code/delete', loginRequired, links.confirmDelete);
  router.post('/links/:code/delete', loginRequired, links.deleteLink);
  router.post('/links/:code/unlock', unlock.unlockLink);
  router.get('/links/:code/continue', pages.continueLink);
  router.post('/links/:code/continue', pages.continueLink);
  router.get('/links/:code/form-answers', loginRequired, answers.showFormAnswers);
  router.get('/links/:code/form-answers.csv', loginRequired, answers.exportFormAnswers);
  router.post('/links/:code/form-answers/delete', loginRequired, answers.deleteFormAnswers);
  router.get('/tags', loginRequired, tags.listTags);
  router.post('/tags/:tag', loginRequired, tags.renameTag);
  router.get('/tags/:tag/delete', loginRequired, tags.confirmDelete);
  router.post('/tags/:tag/delete', loginRequired, tags.deleteTag);
  router.get('/import', loginRequired, bulk.showImport);
  router.post('/import', loginRequired, bulk.importLinks);
  router.post('/import/file', loginRequired, bulk.previewFile);
  router.post('/import/file/confirm', loginRequired, bulk.importFile);
  router.get('/domains', adminRequired, domainsUi.listDomains);
  router.post('/domains', adminRequired, domainsUi.addDomain);
  router.get('/domains/:host', adminRequired, domainsUi.showDomain);
  router.post('/domains/:host', adminRequired, domainsUi.editDomain);
  router.get('/domains/:host/remove', adminRequired, domainsUi.confirmRemove);
  router.post('/domains/:host/remove', adminRequired, domainsUi.removeDomain);
  router.get('/users', adminRequired, usersUi.listUsers);
  router.post('/users', adminRequired, usersUi.addUser);
  router.post('/users/:name', adminRequired, usersUi.changeUser);
  router.get('/activity', adminRequired, activity.showActivity);
  router.get('/review', adminRequired, review.showQueue);
  router.post('/review/:code/approve', adminRequired, review.approveByForm);
  router.post('/review/:code/reject', adminRequired, review.rejectByForm);
  router.get('/share', loginRequired, share.showShare);
  router.post('/share', loginRequired, share.shareLink);
  router.get('/keys', loginRequired, keys.listKeys);
  router.post('/keys', loginRequired, keys.createKey);
  router.get('/keys/kurz.sxcu', loginRequired, keys.downloadUploader);
  router.get('/keys/revoke', loginRequired, keys.confirmRevoke);
  router.post('/keys/revoke', loginRequired, keys.revokeKey);
  router.get('/webhooks', loginRequired, webhooks.listWebhooks);
  router.post('/webhooks', loginRequired, webhooks.addWebhook);
  router.post('/webhooks/:id/ping', loginRequired, webhooks.pingWebhook);
  router.post('/webhooks/:id/state', loginRequired, webhooks.setWebhookState);
  router.get('/webhooks/:id/delete', loginRequired, webhooks.confirmDelete);
  router.post('/webhooks/:id/delete', loginRequired, webhooks.deleteWebhook);
  router.get('/settings', adminRequired, settings.showSettings);
  router.get('/assets/:name', system.showAsset);

  // JSON API
  apiRoute('GET /api/v1/links', api.listLinks);
  apiRoute('POST /api/v1/links', api.createLink);
  apiRoute('POST /api/v1/links/batch', api.createLinks);
  apiRoute('GET /api/v1/links/:code', api.showLink);
  apiRoute('PATCH /api/v1/links/:code', api.editLink);
  apiRoute('DELETE /api/v1/links/:code', api.deleteLink);
  apiRoute('POST /api/v1/links/:code/approve', review.approveLink);
  apiRoute('POST /api/v1/links/:code/reject', review.rejectLink);
  apiRoute('GET /api/v1/links/:code/qr', qr.showQrCode);
  apiRoute('GET /api/v1/links/:code/stats', stats.showLinkStats);
  apiRoute('GET /api/v1/links/:code/audit', audit.showLinkAudit);
  apiRoute('GET /api/v1/links/:code/rules', api.showRules);
  apiRoute('PUT /api/v1/links/:code/rules', api.setRules);
  apiRoute('GET /api/v1/links/:code/form-answers', answers.exportFormAnswers);
  apiRoute('GET /api/v1/tags', api.listTags);
  apiRoute('PATCH /api/v1/tags/:tag', api.renameTag);
  apiRoute('DELETE /api/v1/tags/:tag', api.deleteTag);
  apiRoute('GET /api/v1/stats', stats.showStats);
  apiRoute('GET /api/v1/export', stats.exportData);
  apiRoute('GET /api/v1/domains', domainsApi.listDomains);
  apiRoute('POST /api/v1/domains', adminRequired, domainsApi.addDomain);
  apiRoute('GET /api/v1/domains/:host', domainsApi.showDomain);
  apiRoute('PATCH /api/v1/domains/:host', adminRequired, domainsApi.editDomain);
  apiRoute('DELETE /api/v1/domains/:host', adminRequired, domainsApi.removeDomain);
  apiRoute('GET /api/v1/users', usersApi.listUsers);
  apiRoute('POST /api/v1/users', usersApi.addUser);
  apiRoute('GET /api/v1/users/:name', usersApi.showUser);
  apiRoute('PATCH /api/v1/users/:name', usersApi.editUser);
  apiRoute('POST /api/v1/users/:name/reset', usersApi.resetPassword);
  apiRoute('POST /api/v1/users/:name/handover', usersApi.handOverLinks);
  apiRoute('GET /api/v1/audit', adminRequired, audit.listAudit);
  apiRoute('GET /api/v1/webhooks', webhooksApi.listWebhooks);
  apiRoute('POST /api/v1/webhooks', webhooksApi.addWebhook);
  apiRoute('PATCH /api/v1/webhooks/:id', webhooksApi.editWebhook);
  apiRoute('DELETE /api/v1/webhooks/:id', webhooksApi.deleteWebhook);
  apiRoute('POST /api/v1/webhooks/:id/ping', webhooksApi.pingWebhook);
  apiRoute('GET /api/v1/webhooks/:id/deliveries', webhooksApi.listDeliveries);
  router.get('/api/v1/openapi.json', system.showOpenApi);

  // YOURLS' API, for the clients written for it (its own credentials: web/yourls-auth.ts)
  router.get('/yourls-api.php', yourls.answerYourls);
  router.post('/yourls-api.php', yourls.answerYourls);
  // Shlink's REST API (src/web/shlink/): v1, v2 and v3 answer alike (shlink-edge.ts refuses any other version),
  // each route for an X-Api-Key with its scope (SHLINK_SCOPES).
  const shlinkRoute = (route: ShlinkRoute, handler: Middleware) => {
    const [method = '', path = ''] = route.split(' ');
    router.register(path, [method], [shlinkKey, needs(SHLINK_SCOPES[route]), handler]);
  };
  router.get(`${SHLINK_PREFIX}/health`, shlinkHealth.checkHealth);
  router.get(`${SHLINK_PREFIX}/:version/health`, shlinkHealth.checkHealth);
  shlinkRoute('GET /rest/:version/mercure-info', shlinkHealth.showMercureInfo);
  shlinkRoute('GET /rest/:version/short-urls', shortUrls.listShortUrls);
  shlinkRoute('POST /rest/:version/short-urls', shortUrls.createShortUrl);
  shlinkRoute('GET /rest/:version/short-urls/:shortCode', shortUrls.showShortUrl);
  shlinkRoute('PATCH /rest/:version/short-urls/:shortCode', shortUrls.editShortUrl);
  shlinkRoute('DELETE /rest/:version/short-urls/:shortCode', shortUrls.deleteShortUrl);
  shlinkRoute('GET /rest/:version/short-urls/:shortCode/visits', shlinkVisits.listShortUrlVisits);
  shlinkRoute('GET /rest/:version/short-urls/:shortCode/redirect-rules', shlinkRules.listRedirectRules);
  shlinkRoute('POST /rest/:version/short-urls/:shortCode/redirect-rules', shlinkRules.setRedirectRules);
  shlinkRoute('GET /rest/:version/tags', shlinkTags.listTags);
  shlinkRoute('PUT /rest/:version/tags', shlinkTags.renameTag);
  shlinkRoute('DELETE /rest/:version/tags', shlinkTags.deleteTags);
  shlinkRoute('GET /rest/:version/tags/stats', shlinkTags.showTagStats);
  shlinkRoute('GET /rest/:version/tags/:tag/visits', shlinkVisits.listTagVisits);
  shlinkRoute('GET /rest/:version/domains', shlinkDomains.listDomains);
  shlinkRoute('PATCH /rest/:version/domains/redirects', shlinkDomains.setDomainRedirects);
  shlinkRoute('GET /rest/:version/domains/:domain/visits', shlinkVisits.listDomainVisits);
  shlinkRoute('GET /rest/:version/visits', shlinkVisits.showVisitsOverview);
  shlinkRoute('GET /rest/:version/visits/non-orphan', shlinkVisits.listNonOrphanVisits);
  shlinkRoute('GET /rest/:version/visits/orphan', shlinkVisits.listOrphanVisits);
  shlinkRoute('DELETE /rest/:version/visits/orphan', shlinkVisits.deleteOrphanVisits);

  // System
  router.get('/healthz', system.checkHealth);
  router.get('/metrics', metrics.showMetrics);
  router.get('/favicon.ico', system.showFavicon);
  router.get('/robots.txt', system.showRobots);

  return router;
}
