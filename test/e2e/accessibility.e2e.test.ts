import test, { type ExecutionContext } from 'ava';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { browserFor, DESKTOP, logIn, openPage } from './browser.ts';
import { ADMIN_PASSWORD, startKurz, waitFor, type TestKurz } from '../helpers.ts';
import { webhookReceiver } from '../support/webhook-receiver.ts';
import { UA } from '../fixtures/user-agents.ts';
import { SERVER_ADMIN, type Actor } from '../../src/auth/actor.ts';

/**
 * axe-core (WCAG 2.0/2.1/2.2 A and AA rules and axe's best practices) over every page kurz serves, as the
 * admin, as a member, and as a visitor (login, the pages before a redirect, the error pages), in light and
 * dark, at 1280 px (every rule) and 390 px (the rules a narrow layout changes): no serious or critical
 * violation anywhere. A form shown again with its error is checked too. The report of a failure names the
 * rule, the page and the elements. Every page also fits its width, at 1280, 390 and 360 px.
 */

const PHONE = { width: 390, height: 844 };
const SMALLEST = { width: 360, height: 740 };
const SERIOUS = new Set(['serious', 'critical']);

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
/** The rules whose outcome a narrow screen can change: the layout's touch targets and contrast. */
const NARROW_RULES = ['target-size', 'color-contrast'];

/**
 * The serious and critical violations on the page now, and whether it fits its width: at 1280 px every rule
 * in light and the colour contrast in dark; at 390 px the rules a narrow layout can change; at 360 px, that
 * nothing scrolls sideways. The page is left at 1280 px, light.
 */
async function problemsOf(page: Page, name: string): Promise<string[]> {
  const found: string[] = [];
  const run = async (label: string, rules?: string[]) => {
    const axe = new AxeBuilder({ page }).withTags(TAGS);
    const { violations } = await (rules ? axe.withRules(rules) : axe).analyze();
    for (const v of violations.filter((v) => SERIOUS.has(v.impact ?? '')))
      found.push(`${name} (${label}): ${v.id} [${v.impact}] ${v.help}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  };
  const fits = async (width: number) => {
    if ((await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) !== true)
      found.push(`${name}: wider than ${width} px`);
  };
  await run('1280 px, light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await run('1280 px, dark', ['color-contrast']);
  await page.emulateMedia({ colorScheme: 'light' });
  await fits(DESKTOP.width);
  await page.setViewportSize(PHONE);
  await run('390 px, light', NARROW_RULES);
  await page.emulateMedia({ colorScheme: 'dark' });
  await run('390 px, dark', ['color-contrast']);
  await page.emulateMedia({ colorScheme: 'light' });
  await fits(PHONE.width);
  await page.setViewportSize(SMALLEST);
  await fits(SMALLEST.width);
  await page.setViewportSize(DESKTOP);
  return found;
}

/** Links, rules, pages, a split, tags, a second domain and a member: something on every page. */
async function furnish(k: TestKurz): Promise<void> {
  await k.postJson('/api/v1/domains', { host: 's2.kurz.test' });
  ok(await k.postJson('/api/v1/users', { name: 'mia' }));
  await k.postJson('/api/v1/links', {
    url: 'https://example.com/alpha/a/long/path',
    alias: 'alpha',
    tags: ['news', 'press'],
    title: 'Alpha',
  });
  await k.postJson('/api/v1/links', { url: 'https://example.com/plain' });
  await k.postJson('/api/v1/links', { url: 'https://example.com/guarded', alias: 'guarded', password: 'open sesame' });
  await k.postJson('/api/v1/links', { url: 'https://example.com/gone', alias: 'gone' });
  await k.request('DELETE', '/api/v1/links/gone');
  await k.postJson('/api/v1/links', {
    url: 'https://example.com/ab',
    alias: 'ab',
    split: [
      { url: 'https://example.com/a', weight: 2 },
      { url: 'https://example.com/b', weight: 1 },
    ],
  });
  await k.postJson('/api/v1/links', { url: 'https://example.com/warn', alias: 'warn' });
  await k.request('PATCH', '/api/v1/links/warn', { pages: { notice: { title: 'You are leaving', message: 'Go on?', button: 'Go on' } } });
  await k.request('PUT', '/api/v1/links/warn/rules', { rules: [{ conditions: [], page: 'notice' }] });
  await k.postJson('/api/v1/links', { url: 'https://example.com/survey', alias: 'survey' });
  await k.request('PATCH', '/api/v1/links/survey', {
    pages: { form: { fields: [{ type: 'name', required: true }, { type: 'email' }], consent: 'I agree.' } },
  });
  await k.request('PUT', '/api/v1/links/survey/rules', { rules: [{ conditions: [], page: 'form' }] });
  await k.postJson('/api/v1/links', { url: 'https://example.com/region', alias: 'region' });
  await k.request('PUT', '/api/v1/links/region/rules', { rules: [{ conditions: [], refuse: 451 }] });
  await k.postJson('/api/v1/links', { url: 'https://apps.apple.com/app/id1234567890', alias: 'app' });
  for (const code of ['alpha', 'ab', 'alpha'])
    await fetch(`${k.base}/${code}`, { headers: { 'user-agent': UA.desktopChromeWindows }, redirect: 'manual' });
  await k.flushVisits();
}

function ok(res: Response): void {
  if (res.status >= 400) throw new Error(`setting up: ${res.status}`);
}

async function everyPage(t: ExecutionContext): Promise<void> {
  t.timeout(600_000, 'about 45 pages, each checked at three widths');
  const k = await startKurz(t, { reviewNewLinks: 'members', webhookAllowPrivate: true });
  await k.login();
  const browser = await browserFor(t);
  const found: string[] = [];
  const check = async (page: Page, path: string | null, name = path ?? page.url()) => {
    if (path !== null) await page.goto(path);
    found.push(...(await problemsOf(page, name)));
  };

  const { page } = await openPage(browser, k, DESKTOP);
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await check(page, '/', 'the first-run dashboard');
  await furnish(k);
  const mia: Actor = {
    userId: (await k.kurz.services.access.userByName('mia'))!.id,
    name: 'mia',
    role: 'member',
    via: { kind: 'session' },
  };
  await k.kurz.services.creation.createLink(mia, { url: 'https://example.org/waiting', alias: 'waiting' });
  // A hook whose receiver says no: its log shows a delivery being retried.
  const receiver = await webhookReceiver(t, [500]);
  const { hook } = await k.kurz.services.webhooks.add(SERVER_ADMIN, receiver.url, ['link.created', 'link.clicked']);
  await k.kurz.services.webhooks.ping(SERVER_ADMIN, hook.id);
  await waitFor(() => receiver.received.length === 1);

  for (const path of [
    '/',
    '/links',
    '/links?state=deleted',
    '/links/alpha',
    '/links/alpha?existing',
    '/links/gone',
    '/links/ab',
    '/links/ab/stats',
    '/links/warn/stats',
    '/links/alpha/stats',
    '/links/alpha/stats?period=24h',
    '/stats/compare?code=alpha&code=ab',
    '/stats/compare',
    '/?period=30d',
    '/links/alpha/delete',
    '/links/survey',
    '/links/survey/form-answers',
    '/links/waiting',
    '/tags',
    '/tags/news/delete',
    '/import',
    '/domains',
    '/domains/s2.kurz.test',
    '/domains/s2.kurz.test/remove',
    '/users',
    '/activity',
    '/review',
    '/keys',
    '/share?url=https%3A%2F%2Fexample.com%2Fpage&title=A%20page',
    '/webhooks',
    `/webhooks/${hook.id}/delete`,
    '/settings',
    '/account/password',
    '/no-such-page-here',
  ])
    await check(page, path);

  // Folded parts opened, and forms shown again with their errors.
  await page.goto('/links/alpha');
  await page.getByRole('link', { name: 'Edit link' }).click();
  await page.locator('#edit-form').waitFor();
  await page.locator('details#rule-editor > summary').click();
  await page.locator('details#pages-editor > summary').click();
  await check(page, null, 'the link page, every part open');
  await page.goto('/?period=24h');
  await page.locator('details#per-day > summary').click();
  await check(page, null, 'the dashboard by the hour, its table open');
  /** A form at `path` filled by label and sent with `button`, checked once `shown` appears. */
  const sent = async (path: string, fields: Array<[string, string]>, button: string, shown: string, name: string) => {
    await page.goto(path);
    if (fields.some(([label]) => label === 'Title')) await page.getByText('More options').click();
    for (const [label, value] of fields) await page.getByLabel(label).fill(value);
    await page.getByRole('button', { name: button }).click();
    await page.locator(shown).waitFor();
    await check(page, null, name);
  };
  await sent('/', [['Long URL', 'javascript:alert(1)']], 'Shorten', '#url-error', 'the dashboard form with an error');
  await sent(
    '/',
    [
      ['Long URL', 'https://example.com/plain'],
      ['Title', 'Again'],
    ],
    'Shorten',
    '#same-url',
    'the dashboard offering a separate link',
  );
  await sent('/import', [['URLs, one per line', 'https://example.com/x\nnot a url']], 'Shorten all', '#bulk-summary', 'the bulk results');
  await page.goto('/keys');
  await page.getByLabel('Name').fill('axe');
  await page.getByRole('button', { name: /create/i }).click();
  await page.waitForURL(/\/keys/);
  await check(page, null, 'the keys page with a new key');

  // A visitor: the login, the pages before a redirect, a password, a refusal, gone and unknown links.
  const visitor = (await openPage(browser, k, DESKTOP, { userAgent: UA.desktopChromeWindows })).page;
  for (const path of ['/login', '/warn', '/survey', '/guarded', '/region', '/gone', '/waiting', '/nothing-here', '/welcome/not-a-token'])
    await check(visitor, path, `${path} (visitor)`);
  const inApp = (await openPage(browser, k, DESKTOP, { userAgent: UA.instagramIos })).page;
  await check(inApp, '/app', '/app in an in-app browser');
  await visitor.goto('/login');
  await visitor.getByLabel('User name').fill('admin');
  await visitor.getByLabel('Password').fill('wrong password');
  await visitor.getByRole('button', { name: 'Log in' }).click();
  await visitor.locator('.alert').first().waitFor();
  await check(visitor, null, 'the login refused');

  t.deepEqual(found, [], found.join('\n'));
}

test('every page, light and dark, at 1280, 390 and 360 px: no serious or critical axe-core violation, nothing wider than the screen', async (t) => {
  await everyPage(t);
});
