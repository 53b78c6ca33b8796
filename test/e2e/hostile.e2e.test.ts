import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ADMIN_PASSWORD, BROWSER_UA, startKurz, type TestKurz } from '../helpers.ts';
import { rawRequest } from '../support/hostile.ts';

/**
 * Stored and reflected payloads in a real browser (Chromium): every field that a page shows later holds one
 * (target, title, note, tag and alias where they are accepted, referrer, user agent, a key name, a search, a
 * login name, a path), and every page that shows one is opened. Nothing may run: no dialog, no
 * `window.__pwned`, no Content-Security-Policy violation, no script error; and the payload's text is on the
 * page as text.
 */

const test = anyTest as TestFn<{ browser: Browser }>;

// Each sets the marker and opens a dialog if it ever runs.
const PAYLOADS = [
  '<script>window.__pwned=1;alert(1)</script>',
  '"><img src=x onerror="window.__pwned=2;alert(2)">',
  '\'><svg onload="window.__pwned=3;alert(3)">',
  '</textarea><script>window.__pwned=4</script>',
  '<iframe srcdoc="<script>parent.__pwned=5</script>"></iframe>',
  '" autofocus onfocus="window.__pwned=6',
];
const TITLE = PAYLOADS.slice(0, 3).join(' ');
const NOTE = PAYLOADS.join('\n');

test.before(async (t) => {
  t.context.browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});

test.after.always(async (t) => {
  await t.context.browser?.close();
});

interface Watched {
  page: Page;
  /** Dialogs opened, script errors, CSP violations and console errors, each described. */
  events: string[];
}

/** A page in a fresh context (with `cookie`) that records everything a payload running would cause. */
async function watchedPage(t: ExecutionContext<{ browser: Browser }>, k: TestKurz, cookie = ''): Promise<Watched> {
  const context = await t.context.browser.newContext({ baseURL: k.base });
  t.teardown(() => context.close());
  if (cookie) {
    await context.addCookies(
      cookie.split('; ').map((pair) => {
        const at = pair.indexOf('=');
        const name = pair.slice(0, at);
        // A __Host- cookie (kurz's under an https publicUrl, as here) must be Secure with no Domain: given by
        // its host and path, since a cookie given by an http URL is never Secure.
        if (name.startsWith('__Host-'))
          return { name, value: pair.slice(at + 1), domain: new URL(k.base).hostname, path: '/', secure: true };
        return { name, value: pair.slice(at + 1), url: k.base };
      }),
    );
  }
  // Runs before any page script and is not subject to the page's CSP: it sees violations the CSP reports.
  await context.addInitScript(
    "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.sample));",
  );
  const page = await context.newPage();
  const events: string[] = [];
  page.on('dialog', (dialog) => {
    events.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (err) => events.push(`script error: ${err.message}`));
  page.on('console', (message) => {
    // A page answered with a 4xx is logged as a failed load; that is the answer the test asked for.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) events.push(`console: ${message.text()}`);
  });
  return { page, events };
}

/** Nothing ran on the page, and `texts` are shown on it as text. */
async function assertInert(t: ExecutionContext, { page, events }: Watched, where: string, texts: string[]): Promise<void> {
  // Give an onerror or onfocus handler the chance to run before looking.
  await page.waitForLoadState('load');
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))');
  t.is(await page.evaluate('window.__pwned ?? null'), null, `${where}: a payload ran`);
  t.is(await page.evaluate('parent.__pwned ?? null'), null, `${where}: a payload ran in a frame`);
  t.is(await page.locator('iframe, img[src="x"], svg[onload], script:not([src])').count(), 0, `${where}: a payload became markup`);
  t.deepEqual(events, [], where);
  const text = (await page.evaluate(
    'document.body.innerText + " " + [...document.querySelectorAll("input, textarea")].map((e) => e.value).join(" ")',
  )) as string;
  for (const expected of texts) t.true(text.includes(expected), `${where}: ${JSON.stringify(expected.slice(0, 40))} is not shown as text`);
}

test('payloads stored in every field that is shown later, and reflected ones, never run on any page', async (t) => {
  const k = await startKurz(t);
  const cookie = await k.login();
  const post = async (body: Record<string, unknown>) => {
    const res = await k.postJson('/api/v1/links', body);
    t.is(res.status, 201, JSON.stringify(body));
    return ((await res.json()) as { code: string; url: string }).code;
  };
  const target = 'https://example.com/"><script>window.__pwned=7</script>?q=\'><svg onload="window.__pwned=8">';
  const code = await post({ url: target, title: TITLE, note: NOTE, tags: ['docs'] });
  const storedTarget = ((await (await k.get(`/api/v1/links/${code}`)).json()) as { url: string }).url;
  await post({ url: 'https://example.com/deleted', alias: 'deleted', title: TITLE });
  await k.request('DELETE', '/api/v1/links/deleted');
  await post({ url: 'https://example.com/off', alias: 'off', title: TITLE, enabled: false });
  await post({ url: 'https://example.com/locked', alias: 'locked', title: TITLE, password: 'secret password' });
  // Visits whose referrer host and user agent carry payloads (a referrer host keeps quotes, not brackets).
  const referrer = 'x"onmouseover="window.__pwned=9"autofocus"onfocus="window.__pwned=10';
  await rawRequest(k.base, 'GET', `/${code}`, { 'user-agent': BROWSER_UA, referer: `http://${referrer}/` });
  await rawRequest(k.base, 'GET', `/${code}`, { 'user-agent': 'Evil<svg/onload=window.__pwned=11>Bot/1.0' });
  await k.flushVisits();

  const pages: Array<[string, string[]]> = [
    ['/', [TITLE]],
    ['/links', [TITLE, storedTarget]],
    [`/links?q=${encodeURIComponent(PAYLOADS[1] ?? '')}`, [PAYLOADS[1] ?? '']],
    [`/links/${code}`, [TITLE, NOTE, storedTarget]],
    [`/links/${code}/stats`, [referrer.toLowerCase(), 'Evil']],
    ['/links/deleted', [TITLE]],
    ['/links/deleted/delete', []],
    [`/keys/revoke?name=${encodeURIComponent(PAYLOADS[0] ?? '')}`, [PAYLOADS[0] ?? '']],
    // The message quotes the code as a JSON string.
    [`/links/${encodeURIComponent(PAYLOADS[2] ?? '')}`, [JSON.stringify(PAYLOADS[2])]],
    [`/${encodeURIComponent(PAYLOADS[0] ?? '')}/x`, []],
    ['/settings', []],
    // The bookmarklet's target, with another site's address and title as they come (no share token: the form).
    [`/share?url=${encodeURIComponent(target)}&title=${encodeURIComponent(TITLE)}`, []],
  ];
  for (const [path, texts] of pages) {
    const watched = await watchedPage(t, k, cookie);
    await watched.page.goto(path);
    await assertInert(t, watched, path, texts);
  }

  // Pages anyone sees: the 410 of a deleted or disabled link, the password form and its refusal, a 404.
  for (const [path, texts] of [
    ['/deleted', ['deleted']],
    ['/off', ['disabled']],
    ['/locked', []],
    [`/${encodeURIComponent(PAYLOADS[1] ?? '')}`, []],
  ] as Array<[string, string[]]>) {
    const watched = await watchedPage(t, k);
    await watched.page.goto(path);
    await assertInert(t, watched, path, texts);
  }
  const visitor = await watchedPage(t, k);
  await visitor.page.goto('/locked');
  await visitor.page.getByLabel('Password').fill(PAYLOADS[1] ?? '');
  await visitor.page.getByRole('button', { name: 'Open link' }).click();
  await visitor.page.getByText('wrong password').waitFor();
  await assertInert(t, visitor, 'the password form refused', []);

  // Typed into forms: a key name and a link are refused and shown back as typed; a login name likewise.
  const admin = await watchedPage(t, k, cookie);
  await admin.page.goto('/keys');
  await admin.page.getByLabel('Name').fill(PAYLOADS[1] ?? '');
  await admin.page.getByRole('button', { name: 'Create key' }).click();
  await admin.page.getByText('Name must be').waitFor();
  await assertInert(t, admin, 'a key name refused', [PAYLOADS[1] ?? '']);
  await admin.page.goto('/');
  await admin.page.getByLabel('Long URL').fill('https://example.com/typed');
  await admin.page.getByText('More options').click();
  await admin.page.getByLabel('Title (optional)').fill(TITLE);
  await admin.page.getByLabel('Tags (optional)').fill(PAYLOADS[0] ?? '');
  await admin.page.getByRole('button', { name: 'Shorten' }).click();
  await admin.page.getByText('may only hold letters').waitFor();
  await assertInert(t, admin, 'a link refused for its tag', [TITLE, PAYLOADS[0] ?? '']);

  const stranger = await watchedPage(t, k);
  await stranger.page.goto(`/login?next=${encodeURIComponent('javascript:window.__pwned=12')}`);
  await stranger.page.getByLabel('User name').fill(PAYLOADS[1] ?? '');
  await stranger.page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await stranger.page.getByRole('button', { name: 'Log in' }).click();
  await stranger.page.getByText('wrong user name or password').waitFor();
  await assertInert(t, stranger, 'a login refused', [PAYLOADS[1] ?? '']);
  await stranger.page.getByLabel('User name').fill('admin');
  await stranger.page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await stranger.page.getByRole('button', { name: 'Log in' }).click();
  await stranger.page.waitForURL('/');
  await assertInert(t, stranger, 'the page after the login', [TITLE]);
  t.log(
    `${pages.length + 8} pages opened, ${PAYLOADS.length} payloads in ${['target', 'title', 'note', 'tag', 'alias', 'referrer', 'user agent', 'key name', 'search', 'login name', 'path'].length} places`,
  );
});
