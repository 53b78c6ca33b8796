/**
 * Top-level path segments kurz serves or will serve; no alias may take one (compared lower-cased).
 * A test checks that every route in web/routes.ts starts with one of these.
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
  'domains',
  'users',
  'welcome',
  'activity',
  'review',
  'tags',
  'rest',
]);
