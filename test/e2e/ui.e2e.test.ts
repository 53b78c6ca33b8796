import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { chromium, type Browser, type Page } from 'playwright-core';
import { listen, startKurz, ADMIN_PASSWORD, type TestKurz } from '../helpers.ts';
import { SERVER_ADMIN } from '../../src/auth/actor.ts';
import { DESKTOP, fitsWidth, shoot, unfold } from './browser.ts';

/**
 * The web UI in a real browser (Chromium): the admin's work from login to revoking a key, paging at phone
 * width, and screenshots of every page, light and dark, desktop and phone, in test/e2e/screenshots/.
 */

const test = anyTest as TestFn<{ browser: Browser }>;

const CHROMIUM = '/usr/bin/chromium';
const PHONE = { width: 360, height: 740 };
// Targets must not lead back to kurz (127.0.0.1 is refused), so the target server gets a name of its own.
const TARGET_HOST = 'target.test';

test.before(async (t) => {
  t.context.browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', `--host-resolver-rules=MAP ${TARGET_HOST} 127.0.0.1`],
  });
});

test.after.always(async (t) => {
  await t.context.browser?.close();
});

/** A page in a fresh context, and the console errors it logs (a CSP violation, a failed script), which the test checks. */
async function openPage(
  t: ExecutionContext<{ browser: Browser }>,
  k: TestKurz,
  options: { viewport?: { width: number; height: number } } = {},
) {
  const context = await t.context.browser.newContext({ viewport: options.viewport ?? DESKTOP, baseURL: k.base });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: k.base });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  return { context, page, problems };
}

/** Logs in through the form (the test app's admin password is set by its first `k.login()`). */
async function logIn(page: Page, k: TestKurz): Promise<void> {
  await k.login();
  await page.goto('/login');
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('/');
}

/** A tiny site to be redirected to: it says which path it was asked for. */
async function targetSite(t: ExecutionContext): Promise<string> {
  const base = await listen(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Target</title><h1>Target page ${(req.url ?? '').replace(/[^\w/?=&-]/g, '')}</h1>`);
  });
  return base.replace('127.0.0.1', TARGET_HOST);
}

/** The code in a link page's address: /links/CODE?created → CODE. */
function codeOf(page: Page): string {
  const code = /\/links\/([^/?]+)/.exec(new URL(page.url()).pathname)?.[1];
  if (!code) throw new Error(`not a link page: ${page.url()}`);
  return decodeURIComponent(code);
}

test('the admin logs in, shortens, copies, follows, edits, protects, bulk-creates and manages keys', async (t) => {
  const k = await startKurz(t);
  const target = await targetSite(t);
  const { page, problems } = await openPage(t, k);
  await logIn(page, k);

  // Shorten through the form and land on the result.
  await page.getByLabel('Long URL').fill(`${target}/first`);
  await page.getByRole('button', { name: 'Shorten' }).click();
  await page.waitForURL(/\/links\/[^/]+\?created$/);
  const code = codeOf(page);
  t.is(await page.locator('#short-url').textContent(), `https://kurz.test/${code}`);

  // Copy: the button (shown by kurz.js) puts the short URL on the clipboard.
  const copy = page.locator('button[data-copy]');
  t.is(await copy.textContent(), 'Copy short URL');
  await copy.click();
  await page.getByText('Copied to the clipboard.').waitFor();
  t.is(await copy.getAttribute('data-state'), 'copied');
  t.is(await page.evaluate('navigator.clipboard.readText()'), `https://kurz.test/${code}`);

  // Follow it.
  await page.goto(`/${code}`);
  t.is(await page.locator('h1').textContent(), 'Target page /first');

  // Edit the target: the redirect follows at once.
  await page.goto(`/links/${code}`);
  await unfold(page, 'edit-fold');
  await page.getByLabel('Long URL').fill(`${target}/second`);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL(`/links/${code}?saved`);
  // This browser keeps the first redirect for its max-age (90 s); a browser that has not followed it yet sees the change.
  const { page: visitor, problems: visitorProblems } = await openPage(t, k);
  await visitor.goto(`/${code}`);
  t.is(await visitor.locator('h1').textContent(), 'Target page /second');

  // A password link, unlocked by a visitor.
  await page.goto('/');
  await page.getByLabel('Long URL').fill(`${target}/secret`);
  await page.getByText('More options').click();
  await page.getByLabel('Password (optional)').fill('open sesame');
  await page.getByRole('button', { name: 'Shorten' }).click();
  await page.waitForURL(/\/links\/[^/]+\?created$/);
  const locked = codeOf(page);
  t.is(await page.locator('#password-state').textContent(), 'yes');
  await visitor.goto(`/${locked}`);
  await visitor.getByLabel('Password').fill('wrong');
  await visitor.getByRole('button', { name: 'Open link' }).click();
  await visitor.getByText('wrong password').waitFor();
  await visitor.getByLabel('Password').fill('open sesame');
  await visitor.getByRole('button', { name: 'Open link' }).click();
  await visitor.waitForURL(`${target}/secret`);
  t.is(await visitor.locator('h1').textContent(), 'Target page /secret');

  // An API key: shown once, works, then revoked.
  await page.goto('/keys');
  await page.getByLabel('Name').fill('e2e script');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = (await page.locator('#new-key-value').textContent()) ?? '';
  t.regex(secret, /^kurz_/);
  const withKey = () => fetch(`${k.base}/api/v1/links`, { headers: { authorization: `Bearer ${secret}` } });
  t.is((await withKey()).status, 200);
  await page.goto('/keys');
  t.false((await page.content()).includes(secret), 'the list never shows the key again');
  await page.getByRole('link', { name: 'Revoke… e2e script' }).click();
  await page.getByRole('button', { name: 'Revoke key' }).click();
  await page.getByText('The key “e2e script” was revoked').waitFor();
  t.is((await withKey()).status, 401);

  // Bulk: three links at once.
  await page.goto('/import');
  await page.getByLabel('URLs, one per line').fill([1, 2, 3].map((n) => `${target}/bulk/${n}`).join('\n'));
  await page.getByRole('button', { name: 'Shorten all' }).click();
  await page.getByText('3 created, 0 already shortened, 0 failed.').waitFor();
  t.is(await page.locator('#results tbody tr').count(), 3);
  t.deepEqual(problems, [], 'no console errors');
  t.deepEqual(
    visitorProblems.filter((p) => !p.includes('401')),
    [],
    'no console errors but the wrong password',
  );
});

test('the link list pages through at phone width without scrolling sideways', async (t) => {
  const k = await startKurz(t);
  const created = await k.postJson('/api/v1/links/batch', {
    links: Array.from({ length: 45 }, (_, i) => ({ url: `https://example.com/page/${i}`, tags: i % 2 ? ['odd'] : ['even'] })),
  });
  t.is(created.status, 200);
  const { page, problems } = await openPage(t, k, { viewport: PHONE });
  await logIn(page, k);
  await page.goto('/links');
  const seen = new Set<string>();
  for (let pageNo = 1; ; pageNo++) {
    t.true(await fitsWidth(page), `page ${pageNo} fits 360 px`);
    for (const code of await page.locator('table.cards tbody tr td:first-child a').allTextContents()) seen.add(code);
    const next = page.getByRole('link', { name: 'Next page' });
    if ((await next.count()) === 0) break;
    await next.click();
    await page.getByRole('link', { name: 'First page' }).waitFor();
  }
  t.is(seen.size, 45);
  // Filters survive paging.
  await page.goto('/links');
  await page.getByLabel('Tags', { exact: true }).selectOption('odd');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.getByRole('link', { name: 'Next page' }).click();
  t.is(new URL(page.url()).searchParams.get('tag'), 'odd');
  t.is(await page.locator('table.cards tbody tr').count(), 2);
  t.deepEqual(problems, [], 'no console errors');
});

test('the admin adds a domain, shortens on it with the select, and filters the list by it', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/on-the-default', alias: 'same' });
  const { page, problems } = await openPage(t, k, { viewport: PHONE });
  await logIn(page, k);
  t.is(await page.getByLabel('Domain').count(), 0, 'one domain: no select');
  await page.getByRole('link', { name: 'Domains' }).click();
  await page.getByLabel('Host').fill('S2.Kurz.Test');
  await page.getByLabel('Root redirect').fill('https://example.com/welcome');
  await page.getByRole('button', { name: 'Add domain' }).click();
  await page.getByText('The domain s2.kurz.test was added').waitFor();
  t.true(await fitsWidth(page), 'the domains page fits 360 px');

  await page.goto('/');
  t.is(await page.getByLabel('Domain').inputValue(), 'kurz.test', 'the default is preselected');
  await page.getByLabel('Long URL').fill('https://example.com/on-the-second');
  await page.getByLabel('Domain').selectOption('s2.kurz.test');
  await page.getByLabel('Custom alias').fill('same');
  await page.getByRole('button', { name: 'Shorten' }).click();
  await page.locator('#short-url').waitFor();
  t.is(await page.locator('#short-url').textContent(), 'https://s2.kurz.test/same');
  t.is(new URL(page.url()).searchParams.get('domain'), 's2.kurz.test');
  t.is(await page.locator('#link-domain').textContent(), 's2.kurz.test');

  await page.goto('/links');
  t.is(await page.locator('table.cards tbody tr').count(), 2);
  await page.getByLabel('Domain').selectOption('s2.kurz.test');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL(/domain=s2\.kurz\.test/);
  t.deepEqual(await page.locator('table.cards tbody tr .short-host').allTextContents(), ['https://s2.kurz.test/same']);
  await page.getByRole('link', { name: 'same', exact: true }).click();
  await page.waitForURL(/\/links\/same\?domain=s2\.kurz\.test/);
  t.is(await page.locator('#target-url').textContent(), 'https://example.com/on-the-second');

  await page.goto('/domains/s2.kurz.test/remove');
  t.is(await page.getByRole('button', { name: 'Remove domain' }).count(), 0, 'refused while a link is on it');
  t.deepEqual(problems, [], 'no console errors');
});

/** Every page worth looking at, with what to do to reach it. */
const SCREENS: Array<{ name: string; open: (page: Page, k: TestKurz, code: string) => Promise<unknown>; loggedIn?: boolean }> = [
  { name: 'login', open: (page) => page.goto('/login'), loggedIn: false },
  { name: 'error-404', open: (page) => page.goto('/nope-nothing'), loggedIn: false },
  { name: 'error-410', open: (page) => page.goto('/gone'), loggedIn: false },
  { name: 'password', open: (page) => page.goto('/locked'), loggedIn: false },
  {
    // What a chat app's preview fetches of a one-time link: its state, never its target.
    name: 'guarded',
    open: async (page) => {
      await page.setExtraHTTPHeaders({ 'user-agent': 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' });
      await page.goto('/once');
      await page.setExtraHTTPHeaders({});
    },
    loggedIn: false,
  },
  { name: 'dashboard', open: (page) => page.goto('/') },
  {
    name: 'dashboard-error',
    open: async (page) => {
      await page.goto('/');
      await page.getByLabel('Long URL').fill('ftp://example.com/x');
      await page.getByLabel('Custom alias').fill('x');
      await page.getByRole('button', { name: 'Shorten' }).click();
    },
  },
  { name: 'result', open: (page, _k, code) => page.goto(`/links/${code}?created`) },
  { name: 'link', open: (page) => page.goto('/links/locked') },
  { name: 'links', open: (page) => page.goto('/links') },
  { name: 'delete', open: (page, _k, code) => page.goto(`/links/${code}/delete`) },
  {
    name: 'import',
    open: async (page) => {
      await page.goto('/import');
      await page.getByLabel('URLs, one per line').fill('https://example.com/a\nhttps://example.com/b\nnot a url');
      await page.getByRole('button', { name: 'Shorten all' }).click();
    },
  },
  {
    name: 'keys',
    open: async (page) => {
      await page.goto('/keys');
      await page.getByLabel('Name').fill(`laptop ${Math.random().toString(36).slice(2, 8)}`);
      await page.getByRole('button', { name: 'Create key' }).click();
    },
  },
  { name: 'key-revoke', open: (page) => page.goto('/keys/revoke?name=tests') },
  { name: 'domains', open: (page) => page.goto('/domains') },
  { name: 'domain-edit', open: (page) => page.goto('/domains/s2.kurz.test') },
  { name: 'domain-remove', open: (page) => page.goto('/domains/s2.kurz.test/remove') },
  { name: 'activity', open: (page) => page.goto('/activity') },
  { name: 'activity-filtered', open: (page) => page.goto('/activity?user=ana&action=link') },
  { name: 'settings', open: (page) => page.goto('/settings') },
  { name: 'account-password', open: (page) => page.goto('/account/password') },
  { name: 'tags', open: (page) => page.goto('/tags') },
  { name: 'tag-delete', open: (page) => page.goto('/tags/docs/delete') },
];

test('screenshots of every page, light and dark, desktop and phone', async (t) => {
  const k = await startKurz(t);
  const link = await (
    await k.postJson('/api/v1/links', {
      url: 'https://example.com/articles/2026/a-rather-long-path-that-goes-on/and-on?with=query&parameters=too',
      title: 'Quarterly report',
      note: 'Shared in the newsletter.',
      tags: ['newsletter', 'reports'],
    })
  ).json();
  await k.postJson('/api/v1/links', {
    url: 'https://example.com/locked',
    alias: 'locked',
    password: 'password',
    maxVisits: 100,
    tags: ['private'],
  });
  await k.postJson('/api/v1/links', { url: 'https://example.com/once', alias: 'once', maxVisits: 1 });
  await k.postJson('/api/v1/links', { url: 'https://example.com/gone', alias: 'gone' });
  await k.request('DELETE', '/api/v1/links/gone');
  for (let i = 0; i < 8; i++) await k.postJson('/api/v1/links', { url: `https://example.com/docs/${i}`, tags: i % 3 ? ['docs'] : [] });
  // A second domain, with a link on it: the pages then offer the choice, and removing it is refused.
  await k.postJson('/api/v1/domains', { host: 's2.kurz.test', rootRedirect: 'https://example.com/welcome' });
  await k.postJson('/api/v1/links', { url: 'https://example.com/on-the-second-domain', alias: 'guide', domain: 's2.kurz.test' });
  const code = (link as { code: string }).code;
  // The audit trail beside the creations above (each link's row records its own): the Activity page and the
  // link page's History show it.
  const { audit, links } = k.kurz.services;
  const locked = { kind: 'link' as const, id: (await links.existingLink(SERVER_ADMIN, 'locked')).id, label: 'kurz.test/locked' };
  const ana = { userId: 2, name: 'ana', role: 'member' as const, via: { kind: 'key' as const, key: 'deploy' }, client: '198.51.100.7' };
  const admin = { userId: 1, name: 'admin', role: 'admin' as const, via: { kind: 'session' as const }, client: '203.0.113.5' };
  await audit.record(admin, 'domain.add', { kind: 'domain', id: 1, label: 's2.kurz.test' });
  k.clock.advance(90_000);
  await audit.record(ana, 'link.edit', locked, { maxVisits: 100, password: 'set' });
  await audit.record(admin, 'link.move', { ...locked, label: 's2.kurz.test/locked-elsewhere' }, { from: 'kurz.test', to: 's2.kurz.test' });
  await audit.record(admin, 'key.revoke', { kind: 'key', id: 3, label: 'old laptop' });

  for (const viewport of [DESKTOP, PHONE]) {
    const { page: admin, problems } = await openPage(t, k, { viewport });
    await logIn(admin, k);
    const { page: stranger, problems: strangerProblems } = await openPage(t, k, { viewport });
    for (const screen of SCREENS) {
      const page = screen.loggedIn === false ? stranger : admin;
      await page.emulateMedia({ colorScheme: 'light' });
      await screen.open(page, k, code);
      await shoot(t, page, screen.name, viewport);
    }
    t.deepEqual(
      problems.filter((p) => !/status of 400/.test(p)),
      [],
      'no console errors but the refused forms',
    );
    t.deepEqual(
      strangerProblems.filter((p) => !/status of 40[14]|status of 410/.test(p)),
      [],
      'no console errors but the error pages',
    );
  }
});

test('screenshots of the public shorten form, its result and its rate limit', async (t) => {
  const k = await startKurz(t, { anonymousShortening: true, anonymousRateLimit: 1 });
  for (const viewport of [DESKTOP, PHONE]) {
    const { page, problems } = await openPage(t, k, { viewport });
    await page.goto('/');
    await shoot(t, page, 'public', viewport);
    await page.getByLabel('Long URL').fill(`https://example.com/public/${viewport.width}`);
    await page.getByRole('button', { name: 'Shorten' }).click();
    await page.locator('#short-url').waitFor();
    await shoot(t, page, 'public-result', viewport);
    await page.getByLabel('Long URL').fill('https://example.com/one-too-many');
    await page.getByRole('button', { name: 'Shorten' }).click();
    await page.getByText('try again in').waitFor();
    await shoot(t, page, 'public-429', viewport);
    t.deepEqual(
      problems.filter((p) => !/status of 429/.test(p)),
      [],
      'no console errors but the rate limit',
    );
    k.clock.advance(60_000);
  }
});

/** User agents of people and of bots, as their software sends them. */
const VISITORS = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
];
const BOTS = ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'Twitterbot/1.0'];

test('the stats page and the dashboard show their charts and tables, light and dark, desktop and phone', async (t) => {
  const k = await startKurz(t);
  const { code } = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/launch', title: 'Launch post' })).json()) as {
    code: string;
  };
  // Visits over the last three days, a few an hour: 3 hours back → 1 visit, 2 hours back → 2, 1 hour back → 3…
  const visit = (ua: string, referrer: string) =>
    fetch(`${k.base}/${code}`, {
      redirect: 'manual',
      headers: { 'user-agent': ua, referer: referrer, 'accept-language': 'de-DE,de;q=0.9' },
    });
  k.clock.advance(-3 * 86_400_000);
  const perHour: number[] = [];
  for (let hour = 0; hour < 72; hour += 5) {
    const count = 1 + (hour % 4);
    for (let i = 0; i < count; i++)
      await visit(VISITORS[i % VISITORS.length]!, i % 2 ? 'https://news.example.org/item' : 'https://www.example.net/');
    perHour.push(count);
    await visit(BOTS[hour % 2]!, '');
    await k.flushVisits();
    k.clock.advance(5 * 3_600_000);
  }
  k.clock.advance(3 * 86_400_000 - 75 * 3_600_000);
  const humans = perHour.reduce((a, b) => a + b, 0);

  for (const viewport of [DESKTOP, PHONE]) {
    const { page, problems } = await openPage(t, k, { viewport });
    await logIn(page, k);
    await page.goto(`/links/${code}/stats`);
    t.is(await page.locator('#figure-humans').textContent(), String(humans));
    t.is(await page.locator('#figure-bots').textContent(), String(perHour.length));
    // The last 30 days' chart (by the day) adds up to every human visit; the last 24 hours' is by the hour.
    const values = async (chart: string) =>
      (await page
        .locator(`${chart} rect.chart-bar`)
        .evaluateAll((bars) => bars.map((b) => Number(b.getAttribute('data-value'))))) as number[];
    t.is(
      (await values('#chart-heading + figure')).reduce((a, b) => a + b, 0),
      humans,
    );
    await page.goto(`/links/${code}/stats?period=24h`);
    t.true((await values('#chart-heading + figure')).length > 0);
    t.regex((await page.locator('#chart-heading + figure svg title').first().textContent()) ?? '', /per hour/);
    await page.goto(`/links/${code}/stats`);
    t.regex((await page.locator('#top-referrers').textContent()) ?? '', /example\.net[\s\S]*news\.example\.org/);
    t.regex((await page.locator('#top-bots').textContent()) ?? '', /Slack[\s\S]*X/);
    t.regex((await page.locator('#top-languages').textContent()) ?? '', /de\s*\d+/);
    await shoot(t, page, 'stats', viewport);
    await page.goto('/');
    t.is(await page.locator('#figure-period-humans').textContent(), String(humans));
    t.true((await page.locator('#activity ~ figure rect.chart-bar').count()) >= 3, 'a bar for each day with visits');
    t.regex((await page.locator('#top-links').textContent()) ?? '', new RegExp(code));
    await shoot(t, page, 'dashboard-stats', viewport);
    t.deepEqual(problems, [], 'no console errors (a CSP violation would be one)');
  }
});
