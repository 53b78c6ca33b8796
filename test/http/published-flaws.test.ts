import { spawn } from 'node:child_process';
import { scryptSync } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import test, { type ExecutionContext } from 'ava';
import { envName, OPTIONS } from '../../src/config.ts';
import {
  ADMIN_PASSWORD,
  BROWSER_ACCEPT,
  BASE_ENV,
  BROWSER_UA,
  cookiesOf,
  csrfOf,
  freshDatabase,
  kurzScript,
  loginAs,
  runCli,
  startKurz,
  startServe,
  tempDir,
  waitFor,
  type TestKurz,
} from '../helpers.ts';
import { requestFrom } from '../support/from-address.ts';
import { escapeHtml, pageText, rawRequest } from '../support/hostile.ts';
import { NGINX_CONF, startNginx } from '../support/nginx.ts';
import { browser } from './ui-session.ts';

/**
 * One regression test per kind of flaw published against other self-hosted shorteners, named after it. The
 * references are the reports found; the same kinds were reported against many more projects.
 */

type LinkBody = Record<string, unknown> & { code: string };

test('stored XSS through a link target or title (as in YOURLS issues #27 and #1079): every page shows them as text', async (t) => {
  const k = await startKurz(t);
  // YOURLS #27: a target ending in "><script>; #1079: a target breaking out of an attribute.
  const target = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/"><script>alert(1)</script>' })).json()) as LinkBody;
  t.is(target['url'], 'https://example.com/%22%3E%3Cscript%3Ealert(1)%3C/script%3E', 'the target is stored percent-encoded');
  const attribute = await k.postJson('/api/v1/links', { url: 'http;//"onmousemove="alert(1)"' });
  t.is(attribute.status, 400, 'a target that is no absolute URL is refused');
  const payload = '"><script>alert(1)</script><img src=x onerror=alert(2)>';
  const titled = (await (
    await k.postJson('/api/v1/links', { url: 'https://example.com/t', title: payload, note: payload, alias: 'titled' })
  ).json()) as LinkBody;
  t.is(titled['title'], payload, 'the title is stored exactly');
  await rawRequest(k.base, 'GET', '/titled', { 'user-agent': BROWSER_UA, referer: 'http://x"onmouseover=alert(3)/' });
  await k.flushVisits();
  const b = await browser(k);
  for (const path of ['/', '/links', `/links/${target.code}`, '/links/titled', '/links/titled/stats', '/links?q=script']) {
    const res = await b.get(path);
    const html = await res.text();
    t.is(res.status, 200, path);
    t.notRegex(html, /<script>alert|<img src=x|onmouseover=alert\(3\)"/, `${path}: a payload is markup`);
    t.regex(res.headers.get('content-security-policy') ?? '', /script-src 'self';/, `${path}: no inline script would run anyway`);
  }
  t.true((await (await b.get('/links/titled')).text()).includes(escapeHtml(payload)), 'shown as text');
  t.true(pageText(await (await b.get('/links/titled/stats')).text()).includes('x"onmouseover=alert(3)'), 'the referrer shown as text');
  // A script: target could run on the page that shows it; it is never accepted, on creation or edit.
  t.is((await k.postJson('/api/v1/links', { url: 'javascript:alert(1)' })).status, 400);
  t.is((await k.request('PATCH', '/api/v1/links/titled', { url: 'JaVaScRiPt:alert(1)' })).status, 400);
});

test('CSRF on admin actions (as in YOURLS, CVE-2022-0088): no state-changing form acts without its token, and the API takes no form', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/x', alias: 'x' });
  await k.kurz.services.access.createKey(1, 'ci');
  const b = await browser(k);
  const stranger = await browser(k, false);
  const forged = csrfOf(await (await stranger.get('/login')).text());
  const actions: Array<[string, string, Record<string, string>]> = [
    ['create a link', '/', { url: 'https://evil.example/', enabled: 'true' }],
    ['edit a link', '/links/x', { url: 'https://evil.example/', enabled: 'true' }],
    ['disable a link', '/links/x/state', { enabled: 'false' }],
    ['delete a link', '/links/x/delete', {}],
    ['bulk-create links', '/import', { urls: 'https://evil.example/1\nhttps://evil.example/2' }],
    ['create an API key', '/keys', { name: 'attacker' }],
    ['revoke an API key', '/keys/revoke', { name: 'ci' }],
    ['log out', '/logout', {}],
  ];
  const state = async () => ({
    link: await (await k.get('/api/v1/links/x')).text(),
    links: await k.linkCount(),
    keys: JSON.stringify(await k.kurz.services.access.listKeys()),
    loggedIn: (await b.get('/settings')).status,
  });
  const before = await state();
  for (const [action, path, fields] of actions) {
    for (const [how, token] of [
      ['without a token', undefined],
      ['with a token of another browser', forged],
      ['with a made-up token', 'A'.repeat(43)],
    ] as const) {
      const res = await b.post(path, token === undefined ? fields : { ...fields, _csrf: token });
      t.is(res.status, 403, `${action} ${how}`);
    }
  }
  t.deepEqual(await state(), before, 'nothing changed, and the session is still open');
  // A cross-site page can post a form or text, never JSON: the API refuses both, even with the session's cookie.
  for (const [type, body] of [
    ['text/plain', '{"url":"https://evil.example/"}'],
    ['application/x-www-form-urlencoded', 'url=https%3A%2F%2Fevil.example%2F'],
    ['multipart/form-data; boundary=b', '--b\r\ncontent-disposition: form-data; name="url"\r\n\r\nhttps://evil.example/\r\n--b--\r\n'],
  ]) {
    const res = await fetch(`${k.base}/api/v1/links`, { method: 'POST', headers: { cookie: b.cookie, 'content-type': type }, body });
    t.is(res.status, 415, type);
  }
  t.deepEqual(await state(), before);
  // The password is changed only by `kurz admin password`, on the machine: no form changes it.
  t.is((await b.post('/settings', {})).status, 405);
});

test('SQL injection through sort or search (as reported in the sort and search parameters of many PHP shorteners): an unknown sort is a 400, a search is literal', async (t) => {
  const k = await startKurz(t);
  const titles = ['100% sure', 'snake_case', "O'Brien", 'back\\slash', 'plain'];
  for (const [i, title] of titles.entries()) await k.postJson('/api/v1/links', { url: `https://example.com/s${i}`, title });
  const found = async (q: string) =>
    ((await (await k.get(`/api/v1/links?q=${encodeURIComponent(q)}`)).json()) as { links: LinkBody[] }).links.map((l) => l['title']);
  t.deepEqual(await found('%'), ['100% sure']);
  t.deepEqual(await found('_'), ['snake_case']);
  t.deepEqual(await found("'"), ["O'Brien"]);
  t.deepEqual(await found('\\'), ['back\\slash']);
  t.deepEqual(await found("' OR '1'='1"), []);
  t.deepEqual(await found('%" OR 1=1 --'), []);
  t.deepEqual(await found("x'); DROP TABLE links; --"), []);
  const b = await browser(k);
  for (const sort of ['created;DROP TABLE links', 'id', 'created DESC, (SELECT 1)', '(CASE WHEN 1=1 THEN created END)', 'visits--']) {
    const api = await k.get(`/api/v1/links?sort=${encodeURIComponent(sort)}`);
    t.is(api.status, 400, sort);
    t.like(await api.json(), { detail: 'sort must be one of created, visits, code, url, title', field: 'sort' });
    t.is((await b.get(`/links?sort=${encodeURIComponent(sort)}`)).status, 400, `page: ${sort}`);
  }
  t.is((await b.get(`/links?q=${encodeURIComponent("' OR 1=1 --")}`)).status, 200);
  t.is(await k.linkCount(), titles.length, 'every link is still there');
});

test('open redirect through the login return parameter (as reported against many login pages): after the login you land on kurz', async (t) => {
  const k = await startKurz(t);
  await k.login();
  const cases: Array<[string, string]> = [
    ['https://evil.example/', '/'],
    ['//evil.example/', '/'],
    ['/\\evil.example', '/'],
    ['\\\\evil.example', '/'],
    ['/.//evil.example', '/'],
    ['/%2e//evil.example', '/'],
    ['/a/..//evil.example', '/'],
    ['javascript:alert(document.cookie)', '/'],
    ['data:text/html,<script>alert(1)</script>', '/'],
    ['/\t/evil.example', '/'],
    ['///evil.example', '/'],
    ['https:evil.example', '/'],
    ['/links?q=a', '/links?q=a'],
  ];
  for (const [next, expected] of cases) {
    const page = await fetch(`${k.base}/login?next=${encodeURIComponent(next)}`, { headers: { accept: BROWSER_ACCEPT } });
    const html = await page.text();
    const jar = cookiesOf(page);
    const res = await fetch(`${k.base}/login`, {
      method: 'POST',
      headers: { cookie: jar, 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER_ACCEPT },
      body: new URLSearchParams({ _csrf: csrfOf(html), user: 'admin', password: ADMIN_PASSWORD, next }),
      redirect: 'manual',
    });
    t.is(res.status, 303, next);
    t.is(res.headers.get('location'), expected, next);
    // Logged in already, the login page sends you on at once: the same rule.
    const again = await fetch(`${k.base}/login?next=${encodeURIComponent(next)}`, {
      headers: { cookie: cookiesOf(res, jar) },
      redirect: 'manual',
    });
    t.is(again.headers.get('location'), expected, `logged in: ${next}`);
  }
});

test('formula injection in exports (CSV injection): no cell of a links or visits export starts a formula, and it reads back exactly', async (t) => {
  const k = await startKurz(t);
  const formulas = ['=HYPERLINK("https://evil.example/?"&A1,"click")', "+1+cmd|' /C calc'!A0", '-2+3', '@SUM(1,2)', "'quoted"];
  for (const [i, text] of formulas.entries()) {
    await k.postJson('/api/v1/links', { url: `https://example.com/f${i}`, alias: `f${i}`, title: text, note: text });
  }
  await k.postJson('/api/v1/links', { url: 'https://example.com/minus', alias: '-12' });
  for (const referer of ['http://=HYPERLINK("x")/', 'http://-2+3/', 'http://@sum(1)/']) {
    await rawRequest(k.base, 'GET', '/f0', { 'user-agent': BROWSER_UA, referer });
  }
  await rawRequest(k.base, 'GET', '/f0', { 'user-agent': '=cmd|calc' });
  await k.flushVisits();
  for (const what of ['links', 'visits']) {
    const csv = await (await k.get(`/api/v1/export?what=${what}&format=csv`)).text();
    const rows = parseCsv(csv) as string[][];
    t.true(rows.length > 1, what);
    for (const cell of rows.flat()) t.notRegex(cell, /^[=+\-@\t\r]/, `${what}: ${cell}`);
  }
  const links = parseCsv(await (await k.get('/api/v1/export?what=links&format=csv')).text(), { columns: true }) as Array<
    Record<string, string>
  >;
  for (const [i, text] of formulas.entries()) {
    t.is(links.find((l) => l['code'] === `f${i}`)?.['title'], `'${text}`, 'a leading quote makes it text');
  }
  t.truthy(
    links.find((l) => l['code'] === "'-12"),
    'the code of alias -12 too',
  );
  const visits = parseCsv(await (await k.get('/api/v1/export?what=visits&format=csv')).text(), { columns: true }) as Array<
    Record<string, string>
  >;
  t.deepEqual(
    visits
      .map((v) => v['referrer'])
      .filter(Boolean)
      .sort(),
    ["'-2+3", '\'=hyperlink("x")', 'sum(1)'],
  );
  // `kurz export` writes the same cells, and `kurz import` reads them back exactly: test/cli/transfer.test.ts,
  // "CSV export is safe to open in a spreadsheet and still reads back exactly".
});

// --- Issue 23: files and secrets ---

test('a password hash of a foreign scrypt cost planted in the database (as an import once could) is never run: the right password does not open it', async (t) => {
  const k = await startKurz(t);
  t.is(
    (await k.postJson('/api/v1/links', { url: 'https://example.com/locked', alias: 'locked', password: 'the right password' })).status,
    201,
  );
  const salt = Buffer.alloc(16, 9);
  const cost = { N: 1024, r: 1, p: 1 };
  const foreign = [
    'scrypt',
    cost.N,
    cost.r,
    cost.p,
    salt.toString('base64url'),
    scryptSync('the right password', salt, 32, cost).toString('base64url'),
  ];
  await k.sql('UPDATE links SET password_hash = ? WHERE code = ?', foreign.join('$'), 'locked');
  const unlock = await fetch(`${k.base}/links/locked/unlock`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': BROWSER_UA },
    body: new URLSearchParams({ password: 'the right password' }),
    redirect: 'manual',
  });
  t.is(unlock.status, 401);
  t.is(unlock.headers.get('location'), null);
});

test("/settings shows no secret: the metrics key is left out, and a database URL's password (user:pw@ or ?password=) is ***", async (t) => {
  // On SQLite there is no database URL to show; the PostgreSQL pass gives one with a password in its query.
  const { settings } = await freshDatabase(t);
  const url = 'databaseUrl' in settings ? new URL(settings.databaseUrl) : undefined;
  url?.searchParams.set('password', 'query-password-s3cret');
  const k = await startKurz(t, { metricsKey: 'metrics-key-s3cret-of-32-chars!!', ...(url ? { databaseUrl: url.href } : {}) });
  const b = await browser(k);
  const html = await (await b.get('/settings')).text();
  t.true(html.includes('metricsAllow'));
  t.false(html.includes('s3cret'));
  if (url) t.true(html.includes('password=***') && html.includes('KURZ_DATABASE_URL_FILE'));
});

/*
 * Issue 23: one-time and password links, and logins, as a careful attacker finds them behind a real proxy. A
 * gated link (a visit limit, an expiry, a password) hands out its target only in an answer that counts; a
 * guess is counted before its slow hash runs; a burst of guesses cannot occupy every core; a browser that
 * logged in before cannot be kept out by anyone else's wrong passwords.
 */

/** A link made through the API, failing the test if it is not created. */
async function createLink(k: TestKurz, body: Record<string, unknown>): Promise<LinkBody> {
  const res = await k.postJson('/api/v1/links', body);
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  return (await res.json()) as LinkBody;
}

/** The value of one series in a /metrics text (`name` with its labels as written), 0 when absent. */
async function metric(k: TestKurz, series: string): Promise<number> {
  const text = await (await fetch(`${k.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** How many answers had each status, e.g. { 401: 6, 429: 24 }. */
function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** POSTs a wrong or right password to a password link's unlock, as `client` (kurz trusts 127.0.0.1 as its proxy). */
const unlockAs = (k: TestKurz, code: string, password: string, client = '198.51.100.7') =>
  fetch(`${k.base}/links/${code}/unlock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
    body: JSON.stringify({ password }),
    redirect: 'manual',
  });

/** A login form ready to post: the page's cookies (with `jar`'s) and CSRF token, fetched as `client`. */
async function loginForm(k: TestKurz, client: string, jar = ''): Promise<{ jar: string; csrf: string }> {
  const page = await fetch(`${k.base}/login`, { headers: { accept: BROWSER_ACCEPT, 'x-forwarded-for': client, cookie: jar } });
  return { jar: cookiesOf(page, jar), csrf: csrfOf(await page.text()) };
}

/** Posts a login form got from `loginForm`, as `client`. */
const postLogin = (k: TestKurz, form: { jar: string; csrf: string }, password: string, client: string) =>
  fetch(`${k.base}/login`, {
    method: 'POST',
    headers: { cookie: form.jar, 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER_ACCEPT, 'x-forwarded-for': client },
    body: new URLSearchParams({ _csrf: form.csrf, user: 'admin', password }),
    redirect: 'manual',
  });

test('issue 23: a used-up one-time link answers HEAD without its target, before and after its visit', async (t) => {
  const k = await startKurz(t);
  const { code } = await createLink(k, { url: 'https://example.com/once', maxVisits: 1 });
  const before = await rawRequest(k.base, 'HEAD', `/${code}`, { 'user-agent': BROWSER_UA });
  t.is(before.status, 200, 'a link checker learns the link is live');
  t.is(before.headers.location, undefined);
  const visit = await rawRequest(k.base, 'GET', `/${code}`, { 'user-agent': BROWSER_UA });
  t.is(visit.status, 302);
  t.is(visit.headers.location, 'https://example.com/once');
  const after = await rawRequest(k.base, 'HEAD', `/${code}`, { 'user-agent': BROWSER_UA });
  t.is(after.status, 410);
  t.is(after.headers.location, undefined);
});

test("issue 23: curl with an empty or its own User-Agent never gets a one-time link's target; only the one visit that counts does", async (t) => {
  const k = await startKurz(t);
  const { code } = await createLink(k, { url: 'https://example.com/secret-plan', maxVisits: 1 });
  const looks: Array<Record<string, string>> = [{ 'user-agent': '' }, {}, { 'user-agent': 'curl/8.5.0' }];
  for (const headers of looks) {
    for (let i = 0; i < 3; i++) {
      const res = await rawRequest(k.base, 'GET', `/${code}`, headers);
      t.is(res.status, 200, `${JSON.stringify(headers)} #${i + 1}`);
      t.is(res.headers.location, undefined);
      t.false(res.text.includes('secret-plan'), 'the body does not name the target either');
      t.like(JSON.parse(res.text), { code, state: 'live' });
    }
  }
  // A chat app's preview gets a page showing the short link, not the target.
  const preview = await rawRequest(k.base, 'GET', `/${code}`, { 'user-agent': 'Slackbot-LinkExpanding 1.0', accept: BROWSER_ACCEPT });
  t.is(preview.status, 200);
  t.regex(preview.text, new RegExp(`/${code}`));
  t.false(preview.text.includes('secret-plan'));
  t.is(((await (await k.get(`/api/v1/links/${code}`)).json()) as LinkBody)['visitsLeft'], 1, 'no look used the visit up');
  const person = await rawRequest(k.base, 'GET', `/${code}`, { 'user-agent': BROWSER_UA });
  t.is(person.status, 302);
  t.is(person.headers.location, 'https://example.com/secret-plan');
  for (const headers of [...looks, { 'user-agent': BROWSER_UA }]) {
    const res = await rawRequest(k.base, 'GET', `/${code}`, headers);
    t.is(res.status, 410, JSON.stringify(headers));
    t.is(res.headers.location, undefined);
  }
});

test("issue 23: a gated link's redirect is never cacheable (no-store), the unlock's included; an ordinary link keeps private, max-age=90", async (t) => {
  const k = await startKurz(t);
  const cacheOf = async (path: string) => (await rawRequest(k.base, 'GET', path, { 'user-agent': BROWSER_UA })).headers['cache-control'];
  const plain = await createLink(k, { url: 'https://example.com/plain' });
  t.is(await cacheOf(`/${plain.code}`), 'private, max-age=90');
  const redirectOnly = await createLink(k, { url: 'https://example.com/moved', redirectStatus: 301 });
  t.is(await cacheOf(`/${redirectOnly.code}`), 'private, max-age=90', 'a redirect option guards nothing');
  const once = await createLink(k, { url: 'https://example.com/once', maxVisits: 2 });
  t.is(await cacheOf(`/${once.code}`), 'no-store');
  const expiring = await createLink(k, { url: 'https://example.com/soon', expiresAt: new Date(k.clock.now() + 60_000).toISOString() });
  t.is(await cacheOf(`/${expiring.code}`), 'no-store');
  const locked = await createLink(k, { url: 'https://example.com/locked', password: 'open sesame' });
  const unlocked = await unlockAs(k, locked.code, 'open sesame');
  t.is(unlocked.status, 303);
  t.is(unlocked.headers.get('cache-control'), 'no-store');
});

test('issue 23: 30 wrong passwords sent at once on one link are not all checked: at most the unlock limit, from one client or from thirty', async (t) => {
  // Slots for every hash: only the limit decides what is checked.
  const k = await startKurz(t, { trustedProxies: '127.0.0.1', hashConcurrency: 64 });
  const fromOne = await createLink(k, { url: 'https://example.com/one', password: 'open sesame' });
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => unlockAs(k, fromOne.code, `guess ${i} guess`)));
  t.deepEqual(tally(answers.map((r) => r.status)), { 401: 6, 429: 24 });
  for (const res of answers.filter((r) => r.status === 429)) t.truthy(res.headers.get('retry-after'));
  // The link's own limit holds guesses spread over many addresses.
  const fromMany = await createLink(k, { url: 'https://example.com/many', password: 'open sesame' });
  const spread = await Promise.all(
    Array.from({ length: 30 }, (_, i) => unlockAs(k, fromMany.code, `guess ${i} guess`, `203.0.113.${i + 1}`)),
  );
  t.deepEqual(tally(spread.map((r) => r.status)), { 401: 6, 429: 24 });
  t.is((await unlockAs(k, fromMany.code, 'open sesame', '192.0.2.1')).status, 429, 'a new address waits for the link too');
});

test('issue 23: 20 wrong logins sent at once are not all checked: at most the login limit', async (t) => {
  const k = await startKurz(t, { trustedProxies: '127.0.0.1', hashConcurrency: 64 });
  await k.login();
  const forms = [];
  for (let i = 0; i < 20; i++) forms.push(await loginForm(k, '198.51.100.30'));
  const answers = await Promise.all(forms.map((form, i) => postLogin(k, form, `wrong ${i} wrong`, '198.51.100.30')));
  t.deepEqual(tally(answers.map((r) => r.status)), { 401: 4, 429: 16 });
});

test('issue 23: four wrong logins from anywhere cannot keep the owner out of a browser that logged in before (device cookie)', async (t) => {
  const k = await startKurz(t, { trustedProxies: '127.0.0.1' });
  await k.login();
  const owner = '198.51.100.40';
  const first = await loginForm(k, owner);
  const loggedIn = await postLogin(k, first, ADMIN_PASSWORD, owner);
  t.is(loggedIn.status, 303);
  // __Host-: publicUrl is https.
  const device = loggedIn.headers.getSetCookie().find((c) => c.startsWith('__Host-kurz_device='));
  t.truthy(device, 'a successful login marks the browser');
  t.regex(device ?? '', /; httponly/i);
  t.regex(device ?? '', /; samesite=strict/i);
  t.regex(device ?? '', /; secure/i, 'publicUrl is https');
  t.regex(device ?? '', /; expires=/i, 'it outlives the session');
  const known = cookiesOf(loggedIn, first.jar);

  for (let i = 0; i < 4; i++)
    t.is((await postLogin(k, await loginForm(k, `203.0.113.${i}`), `wrong ${i} wrong`, `203.0.113.${i}`)).status, 401);
  const stranger = await postLogin(k, await loginForm(k, '192.0.2.50'), ADMIN_PASSWORD, '192.0.2.50');
  t.is(stranger.status, 429, 'without a device cookie the account limit applies');
  const forged = known.replace(/__Host-kurz_device=([^;.]+)\./, '__Host-kurz_device=AAAAAAAAAAAAAAAAAAAAAA.');
  t.is(
    (await postLogin(k, await loginForm(k, '192.0.2.51', forged), ADMIN_PASSWORD, '192.0.2.51')).status,
    429,
    'a forged device cookie is none',
  );
  // The owner's browser, even from the attacker's own address, gets in with the right password.
  const again = await postLogin(k, await loginForm(k, '203.0.113.0', known), ADMIN_PASSWORD, '203.0.113.0');
  t.is(again.status, 303);
  t.is(again.headers.get('location'), '/');
  // Its own failures are limited on its own key.
  for (let i = 0; i < 4; i++) t.is((await postLogin(k, await loginForm(k, owner, known), `typo ${i} typo`, owner)).status, 401);
  t.is((await postLogin(k, await loginForm(k, owner, known), ADMIN_PASSWORD, owner)).status, 429);
});

test('issue 23: a burst of password checks runs at most hashConcurrency hashes at once; the rest get 429 with Retry-After, never a 500', async (t) => {
  const k = await startKurz(t, { trustedProxies: '127.0.0.1', hashConcurrency: 1, unlockRateLimit: 0, loginRateLimit: 0 });
  await k.login();
  const { code } = await createLink(k, { url: 'https://example.com/burst', password: 'open sesame' });
  const hashesBefore = await metric(k, 'kurz_password_hashes_total');
  const unlocks = await Promise.all(Array.from({ length: 20 }, (_, i) => unlockAs(k, code, `guess ${i} guess`, `203.0.113.${i + 1}`)));
  const forms = [];
  for (let i = 0; i < 10; i++) forms.push(await loginForm(k, `198.51.100.${i + 1}`));
  const logins = await Promise.all(forms.map((form, i) => postLogin(k, form, `wrong ${i} wrong`, `198.51.100.${i + 1}`)));
  const answers = [...unlocks, ...logins];
  const counts = tally(answers.map((r) => r.status));
  t.deepEqual(Object.keys(counts).sort(), ['401', '429'], JSON.stringify(counts));
  for (const res of answers.filter((r) => r.status === 429)) t.is(res.headers.get('retry-after'), '1');
  t.is(
    (await metric(k, 'kurz_password_hashes_total')) - hashesBefore,
    counts[401] ?? 0,
    'a hash ran for each check answered, and none for a refusal',
  );
  t.is(await metric(k, 'kurz_rate_limited_total{limit="password_hashing"}'), counts[429] ?? 0);
});

test('issue 23: a link password needs at least 8 characters, said by the API, the form and the OpenAPI document', async (t) => {
  const k = await startKurz(t);
  const short = await k.postJson('/api/v1/links', { url: 'https://example.com/p', password: 'seven77' });
  t.is(short.status, 400);
  t.like(await short.json(), { code: 'invalid', field: 'password', detail: 'password must be a string of 8 to 1024 characters' });
  t.is(
    (await k.request('PATCH', `/api/v1/links/${(await createLink(k, { url: 'https://example.com/q' })).code}`, { password: 'seven77' }))
      .status,
    400,
  );
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/p', password: 'eight888' })).status, 201);
  const b = await browser(k);
  const form = await b.page('/');
  t.regex(form.html, /At least 8 characters/);
  const refused = await b.submit('/', { url: 'https://example.com/form', password: 'seven77', enabled: 'true' });
  t.is(refused.status, 400);
  t.regex(await refused.text(), /8 to 1024 characters/);
  const openapi = await (await fetch(`${k.base}/api/v1/openapi.json`)).text();
  t.regex(openapi, /"password":\{"type":\["string","null"\],"minLength":8,/);
});

// --- Issue 23: behind a proxy. kurz as docs/kurz.service runs it, behind the README's nginx configuration
// (docs/nginx-kurz.conf) started by the test, and the requests an attacker would send through it.

/**
 * The settings of docs/kurz.service that decide who a client is, by option name: its Environment=KURZ_… lines and
 * the lines of docs/kurz.env, the EnvironmentFile= it reads (which systemd lets override them).
 */
function unitSettings(): Record<string, string> {
  const docs = join(import.meta.dirname, '..', '..', 'docs');
  const unit = readFileSync(join(docs, 'kurz.service'), 'utf8');
  const lines = [...unit.matchAll(/^Environment=(KURZ_[A-Z_]+=.*)$/gm)].map((m) => m[1] ?? '');
  if (!unit.includes('\nEnvironmentFile=-/etc/kurz/kurz.env\n')) throw new Error('docs/kurz.service no longer reads /etc/kurz/kurz.env');
  lines.push(...readFileSync(join(docs, 'kurz.env'), 'utf8').split('\n'));
  const settings: Record<string, string> = {};
  for (const [, name = '', value = ''] of lines.join('\n').matchAll(/^KURZ_([A-Z_]+)=(.*)$/gm)) {
    const option = OPTIONS.find((o) => envName(o.name) === `KURZ_${name}`);
    if (option && ['trustedProxies', 'clientAddressHeader', 'publicUrl', 'notFoundRateLimit', 'loginRateLimit'].includes(option.name))
      settings[option.name] = value;
  }
  return settings;
}

/** kurz with the shipped unit's settings (and `settings`), behind nginx with the README's configuration. */
async function behindNginx(t: ExecutionContext, settings: Record<string, unknown> = {}) {
  const k = await startKurz(t, { ...unitSettings(), ...settings });
  return { k, nginx: await startNginx(t, k.base) };
}

/** A scanner's unknown codes, one request each from `from` through `base`: the statuses, in order. */
async function scan(from: string, base: string, n: number, headers: (i: number) => Record<string, string> = () => ({})) {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await requestFrom(from, base, `/scan${i}`, { headers: headers(i) })).status);
  return statuses;
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

test('issue 23: the shipped unit trusts its proxy, and the README shows docs/nginx-kurz.conf as it is', (t) => {
  t.like(unitSettings(), { trustedProxies: '127.0.0.1' });
  const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
  t.true(readme.includes('```nginx\n' + readFileSync(NGINX_CONF, 'utf8') + '```'), 'the README quotes the file whole');
});

test('issue 23, behind nginx: a Forwarded, X-Forwarded-For or X-Real-IP naming this machine does not open /metrics', async (t) => {
  const { k, nginx } = await behindNginx(t);
  for (const headers of [{ forwarded: 'for=127.0.0.1' }, { 'x-forwarded-for': '127.0.0.1' }, { 'x-real-ip': '127.0.0.1' }, {}] as Array<
    Record<string, string>
  >) {
    const res = await requestFrom('127.0.0.2', nginx, '/metrics', { headers });
    t.is(res.status, 403, JSON.stringify(headers));
  }
  // Even from this machine's own address, through the proxy: every request there carries its header.
  t.is((await requestFrom('127.0.0.1', nginx, '/metrics')).status, 403, 'nginx on this machine passes it on');
  t.is((await requestFrom('127.0.0.1', k.base, '/metrics')).status, 200, 'a scraper on this machine, not through the proxy');
});

test('issue 23, behind nginx: a new Forwarded or X-Forwarded-For per request does not escape the 404 limit', async (t) => {
  const { nginx } = await behindNginx(t);
  const statuses = await scan('127.0.0.2', nginx, 150, (i) => ({
    forwarded: `for=198.51.100.${i % 250}`,
    'x-forwarded-for': `198.51.100.${i % 250}`,
  }));
  t.is(count(statuses, 404), 100);
  t.is(count(statuses, 429), 50, 'the scanner is one client: the address nginx saw');
});

test('issue 23, behind nginx with the shipped unit: a scanner does not make other visitors wait; two clients are limited apart', async (t) => {
  const { k, nginx } = await behindNginx(t);
  const { code } = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/live' })).json()) as { code: string };
  const statuses = await scan('127.0.0.2', nginx, 150);
  t.is(count(statuses, 429), 50);
  t.is((await requestFrom('127.0.0.2', nginx, `/${code}`)).status, 429, 'the scanner waits for everything');
  const visitor = await requestFrom('127.0.0.3', nginx, `/${code}`);
  t.is(visitor.status, 302, 'another visitor behind the same proxy is not');
  t.is(visitor.headers.location, 'https://example.com/live');
});

test("issue 23, behind nginx: the proxy's own requests and /healthz are never refused by the 404 limit", async (t) => {
  const { k, nginx } = await behindNginx(t);
  // The proxy itself (a load balancer's health check, its own probes): neither counted nor refused.
  const own = await scan('127.0.0.1', k.base, 150);
  t.is(count(own, 404), 150, 'the proxy address is never counted');
  t.is((await requestFrom('127.0.0.1', k.base, '/healthz')).status, 200);
  // A scanner behind the proxy is refused, the health check from the proxy still answered, and /healthz
  // answers even the scanner.
  t.is(count(await scan('127.0.0.2', nginx, 150), 429), 50);
  t.is((await requestFrom('127.0.0.1', k.base, '/healthz')).status, 200);
  t.is((await requestFrom('127.0.0.2', nginx, '/healthz')).status, 200);
  t.is((await requestFrom('127.0.0.2', nginx, '/scan-more')).status, 429);
});

test('issue 23: clientAddressHeader forwarded reads Forwarded alone, the right-most untrusted address', async (t) => {
  const k = await startKurz(t, { trustedProxies: '127.0.0.1', clientAddressHeader: 'forwarded', notFoundRateLimit: 3 });
  const statuses = await scan('127.0.0.1', k.base, 5, (i) => ({
    forwarded: `for=10.9.9.${i}, for=198.51.100.1`,
    'x-forwarded-for': `198.51.100.${i + 10}`,
  }));
  t.deepEqual(statuses, [404, 404, 404, 429, 429], 'neither a made-up left hop nor X-Forwarded-For makes a new client');
  t.is((await requestFrom('127.0.0.1', k.base, '/scan9', { headers: { forwarded: 'for=198.51.100.2' } })).status, 404, 'another client');
});

test('issue 23: per-client limits key IPv6 clients by their /64 and IPv4-mapped ones by the IPv4 address; visitors keep their own', async (t) => {
  const k = await startKurz(t, { trustedProxies: '127.0.0.1', notFoundRateLimit: 3, visitFlushInterval: '60s' });
  const from = (client: string, path: string) =>
    requestFrom('127.0.0.1', k.base, path, { headers: { 'x-forwarded-for': client, 'user-agent': BROWSER_UA } });
  for (let i = 0; i < 3; i++) t.is((await from(`2001:db8:1:2::${i + 1}`, `/scan${i}`)).status, 404);
  t.is((await from('2001:db8:1:2:ffff:ffff:ffff:ffff', '/scan9')).status, 429, 'the same /64');
  t.is((await from('2001:db8:1:3::1', '/scan9')).status, 404, 'the next /64 is another client');
  for (let i = 0; i < 3; i++) t.is((await from('::ffff:198.51.100.7', `/scan${i}`)).status, 404);
  t.is((await from('198.51.100.7', '/scan9')).status, 429, 'IPv4-mapped IPv6 is the IPv4 address');
  t.is((await from('198.51.100.8', '/scan9')).status, 404);
  // The creation limit too: one place decides the key for every limit.
  const creator = await startKurz(t, { trustedProxies: '127.0.0.1', creationRateLimit: 2 });
  const create = (client: string, i: number) =>
    creator.request('POST', '/api/v1/links', { url: `https://example.com/${i}` }, { 'x-forwarded-for': client });
  t.is((await create('2001:db8:5:6::1', 1)).status, 201);
  t.is((await create('2001:db8:5:6::2', 2)).status, 201);
  t.is((await create('2001:db8:5:6:7::3', 3)).status, 429);
  t.is((await create('2001:db8:5:7::1', 4)).status, 201);
  // The visit recorder keeps the whole address: two hosts of one /64 are two visitors.
  const { code } = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/v6' })).json()) as { code: string };
  t.is((await from('2001:db8:9:9::1', `/${code}`)).status, 302);
  t.is((await from('2001:db8:9:9::2', `/${code}`)).status, 302);
  await k.flushVisits();
  const stats = (await (await k.get(`/api/v1/links/${code}/stats`)).json()) as { visits: { uniqueVisitors: number } };
  t.is(stats.visits.uniqueVisitors, 2);
});

const METHODS: Array<[string, string, number, string | undefined]> = [
  ['TRACE', '/', 501, undefined],
  ['PROPFIND', '/CODE', 501, undefined],
  ['MKCOL', '/api/v1/links', 501, undefined],
  ['PURGE', '/metrics', 501, undefined],
  ['QUERY', '/nothing/here', 501, undefined],
  // kurz serves PUT on one route (a link's rules): on a path it knows with other methods, PUT is a 405.
  ['PUT', '/', 405, 'HEAD, GET, POST'],
  ['DELETE', '/', 405, 'HEAD, GET, POST'],
  ['POST', '/CODE', 405, 'GET, HEAD'],
  ['DELETE', '/CODE', 405, 'GET, HEAD'],
  ['PATCH', '/api/v1/links', 405, 'HEAD, GET, POST'],
  ['POST', '/metrics', 405, 'HEAD, GET'],
  ['GET', '/links/CODE/unlock', 405, 'POST'],
  // Past the length whose matches the router remembers: matched every time, with the same answer.
  ['GET', `/links/${'c'.repeat(300)}/unlock`, 405, 'POST'],
];

test('issue 23: a method no route knows is a 405 with Allow or a 501, never a 500; logged at no error level, counted like an unknown path', async (t) => {
  const k = await startKurz(t, { notFoundRateLimit: 0 });
  await k.postJson('/api/v1/links', { url: 'https://example.com/m', alias: 'CODE' });
  for (const [method, path, status, allow] of METHODS) {
    for (const headers of [{}, { authorization: `Bearer ${k.key}` }, { accept: BROWSER_ACCEPT }] as Array<Record<string, string>>) {
      const res = await requestFrom('127.0.0.1', k.base, path, { method, headers });
      const name = `${method} ${path} ${JSON.stringify(headers)}`;
      t.is(res.status, status, name);
      t.is(res.headers.allow, allow, name);
      t.notRegex(res.text, /something went wrong/, name);
    }
  }
  t.deepEqual(
    k.log.records.filter((r) => r.level === 'error'),
    [],
  );
  const metrics = await (await fetch(`${k.base}/metrics`)).text();
  t.regex(metrics, /kurz_http_requests_total\{route="unmatched",status="501"\} 15\b/);
  t.regex(metrics, /kurz_http_requests_total\{route="unmatched",status="405"\} 24\b/);
  t.notRegex(metrics, /status="500"/);
  // Like a 404, each counts against the client's 404 limit.
  const limited = await startKurz(t, { notFoundRateLimit: 3 });
  for (const method of ['TRACE', 'PROPFIND', 'DELETE']) t.not((await requestFrom('127.0.0.1', limited.base, '/x', { method })).status, 429);
  t.is((await fetch(`${limited.base}/`)).status, 429);
});

test('more paths than the router remembers: each still gets its own answer, the forgotten ones as before', async (t) => {
  const k = await startKurz(t, { notFoundRateLimit: 0 });
  await k.postJson('/api/v1/links', { url: 'https://example.com/m', alias: 'CODE' });
  const unlock = async (code: string) => requestFrom('127.0.0.1', k.base, `/links/${code}/unlock`);
  const first = await unlock('c0');
  t.is(first.status, 405);
  t.is(first.headers.allow, 'POST');
  // 1,100 more paths of one method than the router keeps: it forgets and starts again.
  for (let i = 1; i <= 1100; i++) t.is((await unlock(`c${i}`)).status, 405);
  const again = await unlock('c0');
  t.is(again.status, 405);
  t.is(again.headers.allow, 'POST');
  t.is((await k.get('/api/v1/links/CODE')).status, 200);
  t.is((await requestFrom('127.0.0.1', k.base, '/api/v1/links/CODE', { method: 'PUT' })).headers.allow, 'HEAD, GET, PATCH, DELETE');
});

test('issue 23: kurz serve on loopback with an https publicUrl and no trustedProxies warns what to set', async (t) => {
  const db = await freshDatabase(t);
  const bare = await startServe(t, { ...db.env, KURZ_PUBLIC_URL: 'https://s.example.com' });
  t.is(await bare.stop(), 0);
  const warning = bare
    .output()
    .stderr.split('\n')
    .find((line) => / warn /.test(line));
  t.truthy(warning);
  t.regex(warning ?? '', /trustedProxies is empty.*Set KURZ_TRUSTED_PROXIES=127\.0\.0\.1 \(trustedProxies\)/);
  const set = await startServe(t, { ...db.env, KURZ_PUBLIC_URL: 'https://s.example.com', KURZ_TRUSTED_PROXIES: '127.0.0.1' });
  t.is(await set.stop(), 0);
  t.notRegex(set.output().stderr, / warn /);
});

// --- Issue 23: API keys, authenticated answers, and the first start's password ---

type Problem = { status: number; code: string; detail: string };

test('issue 23: a key with links:read only gets 403 naming links:write on create; a key made without scopes gets links:read links:write stats:read; a session has every scope', async (t) => {
  const k = await startKurz(t);
  const { access } = k.kurz.services;
  const reader = (await access.createKey(1, 'reader', { scopes: ['links:read'] })).secret;
  const plain = await access.createKey(1, 'plain');
  t.deepEqual(plain.key.scopes, ['links:read', 'links:write', 'stats:read']);
  const call = (key: string, method: string, path: string, body?: unknown) =>
    k.request(method, path, body, { authorization: `Bearer ${key}` });

  const refused = await call(reader, 'POST', '/api/v1/links', { url: 'https://example.com/r' });
  t.is(refused.status, 403);
  t.is(refused.headers.get('content-type'), 'application/problem+json');
  const problem = (await refused.json()) as Problem;
  t.is(problem.code, 'forbidden');
  t.regex(problem.detail, /lacks the scope links:write/);
  t.is(await k.linkCount(), 0, 'nothing was created');
  t.is((await call(reader, 'GET', '/api/v1/links')).status, 200);
  t.regex(((await (await call(reader, 'GET', '/api/v1/stats')).json()) as Problem).detail, /lacks the scope stats:read/);

  t.is((await call(plain.secret, 'POST', '/api/v1/links', { url: 'https://example.com/p', alias: 'p' })).status, 201);
  t.is((await call(plain.secret, 'GET', '/api/v1/links/p/stats')).status, 200);
  const exported = await call(plain.secret, 'GET', '/api/v1/export?what=links');
  t.is(exported.status, 403, 'the default scopes do not take a copy of everything');
  t.regex(((await exported.json()) as Problem).detail, /lacks the scope export/);
  t.is((await call(plain.secret, 'DELETE', '/api/v1/links/p')).status, 204);

  const cookie = await k.login();
  t.is((await fetch(`${k.base}/api/v1/export?what=links`, { headers: { cookie } })).status, 200, 'a session has every scope');
  const admin = (await access.createKey(1, 'all', { scopes: ['admin'] })).secret;
  t.is((await call(admin, 'GET', '/api/v1/export?what=links')).status, 200, 'admin grants every scope');
});

test('issue 23: an expired key is refused like an unknown one, with a 401 that says it expired', async (t) => {
  const k = await startKurz(t);
  const { secret } = await k.kurz.services.access.createKey(1, 'for a day', { expiresIn: 86_400_000 });
  const list = () => k.get('/api/v1/links', { authorization: `Bearer ${secret}` });
  t.is((await list()).status, 200);
  k.clock.advance(86_400_000 - 1);
  t.is((await list()).status, 200, 'alive until the end');
  k.clock.advance(1);
  const res = await list();
  t.is(res.status, 401);
  t.regex(((await res.json()) as Problem).detail, /^the API key "for a day" expired at 2026-01-16T12:00:00\.000Z/);
  t.is(res.headers.get('www-authenticate'), 'Bearer realm="kurz", error="invalid_token"');
});

test("issue 23: a key's last use is recorded with the client's address and shown on the keys page", async (t) => {
  const k = await startKurz(t, { trustedProxies: '127.0.0.1' });
  const { secret } = await k.kurz.services.access.createKey(1, 'ci');
  const res = await k.get('/api/v1/links', { authorization: `Bearer ${secret}`, 'x-forwarded-for': '203.0.113.9' });
  t.is(res.status, 200);
  const key = (await k.kurz.services.access.listKeys()).find((listed) => listed.name === 'ci');
  t.is(key?.lastUsedAt?.getTime(), k.clock.now());
  t.is(key?.lastUsedFrom, '203.0.113.9');
  const html = await (await browser(k)).page('/keys');
  t.regex(html.html, /<td data-label="Last used"><span>[^<]+ from <code>203\.0\.113\.9<\/code><\/span><\/td>/);
  t.regex(html.html, /<td data-label="Scopes"><span>links:read links:write stats:read<\/span><\/td>/);
});

test('issue 23: the API export never contains a password hash; `kurz export` on the server does (a backup)', async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/secret', alias: 'locked', password: 'open sesame' })).status, 201);
  for (const format of ['csv', 'ndjson']) {
    const body = await (await k.get(`/api/v1/export?what=links&format=${format}`)).text();
    t.false(body.includes('passwordHash'), format);
    t.false(body.includes('scrypt$'), format);
  }
  const row = JSON.parse(await (await k.get('/api/v1/export?what=links&format=ndjson')).text()) as Record<string, unknown>;
  t.is(row['hasPassword'], true, 'it says the link has a password');
  const backup = await runCli(['export', '--format', 'ndjson'], k.database.env);
  t.is(backup.code, 0, backup.stderr);
  t.regex(JSON.parse(backup.stdout)['passwordHash'] as string, /^scrypt\$/);
});

test('issue 23: every 401 about credentials carries WWW-Authenticate: Bearer, with error="invalid_token" for a key that is no good', async (t) => {
  const k = await startKurz(t);
  const none = await fetch(`${k.base}/api/v1/links`);
  t.is(none.status, 401);
  t.is(none.headers.get('www-authenticate'), 'Bearer realm="kurz"');
  const wrong = await fetch(`${k.base}/api/v1/links`, { headers: { authorization: 'Bearer kurz_nope' } });
  t.is(wrong.status, 401);
  t.is(wrong.headers.get('www-authenticate'), 'Bearer realm="kurz", error="invalid_token"');
  const malformed = await fetch(`${k.base}/api/v1/links`, { headers: { authorization: 'Basic YWRtaW46eA==' } });
  t.is(malformed.headers.get('www-authenticate'), 'Bearer realm="kurz", error="invalid_request"');
  const form = await fetch(`${k.base}/links/x/delete`, { method: 'POST' });
  t.is(form.status, 401);
  t.is(form.headers.get('www-authenticate'), 'Bearer realm="kurz"');
});

test('issue 23: every answer to a key or a session is Cache-Control: no-store, pages and JSON', async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/n', alias: 'n' })).status, 201);
  for (const path of ['/api/v1/links', '/api/v1/links/n', '/api/v1/links/n/stats', '/api/v1/stats', '/api/v1/tags', '/api/v1/links/n/qr']) {
    const res = await k.get(path);
    t.is(res.status, 200, path);
    t.is(res.headers.get('cache-control'), 'no-store', path);
  }
  t.is((await k.get('/api/v1/links/none')).headers.get('cache-control'), 'no-store', 'a 404 too');
  const b = await browser(k);
  for (const path of ['/', '/links', '/links/n', '/links/n/stats', '/keys', '/settings', '/import']) {
    const res = await b.get(path);
    t.is(res.status, 200, path);
    t.is(res.headers.get('cache-control'), 'no-store', path);
  }
});

test('issue 23: with an https public URL every answer carries Strict-Transport-Security and the cookies are __Host- ones; on http neither', async (t) => {
  for (const [publicUrl, https] of [
    ['https://kurz.test', true],
    ['http://kurz.test', false],
  ] as const) {
    const k = await startKurz(t, { publicUrl });
    t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/h', alias: 'h' })).status, 201);
    // A link with a visit limit is redirected once the store has counted the visit: HSTS still once.
    t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/v', alias: 'v', maxVisits: 5 })).status, 201);
    const redirect = await rawRequest(k.base, 'GET', '/h', { 'user-agent': BROWSER_UA });
    const limited = await rawRequest(k.base, 'GET', '/v', { 'user-agent': BROWSER_UA });
    t.deepEqual([redirect.status, limited.status], [302, 302]);
    for (const res of [
      { path: '/h', hsts: redirect.headers['strict-transport-security'] },
      { path: '/v', hsts: limited.headers['strict-transport-security'] },
      ...(await Promise.all(
        // '/nope' and an over-long code are the redirect's own answers (404, 414); the rest are the web's.
        ['/login', '/api/v1/links', '/nothing/here', '/healthz', '/nope', `/${'x'.repeat(9000)}`].map(async (path) => ({
          path,
          hsts: (await fetch(k.base + path, { headers: { accept: BROWSER_ACCEPT } })).headers.get('strict-transport-security') ?? undefined,
        })),
      )),
    ])
      t.is(res.hsts, https ? 'max-age=31536000' : undefined, `${publicUrl}${res.path}`);
    const page = await fetch(`${k.base}/login`, { headers: { accept: BROWSER_ACCEPT } });
    const form = page.headers.getSetCookie();
    t.true(form.length > 0);
    const login = await fetch(`${k.base}/login`, {
      method: 'POST',
      headers: { cookie: cookiesOf(page), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrfOf(await page.text()), user: 'admin', password: 'wrong password', next: '/' }),
      redirect: 'manual',
    });
    t.is(login.status, 401);
    await k.kurz.services.access.setPassword(ADMIN_PASSWORD);
    const cookies = [...form, ...(await sessionCookies(k.base))];
    t.true(cookies.some((c) => /^(__Host-)?kurz_session=/.test(c)));
    for (const cookie of cookies) {
      if (https) {
        t.regex(cookie, /^__Host-kurz_\w+(\.sig)?=/, cookie);
        t.regex(cookie, /; path=\/(;|$)/i, cookie);
        t.regex(cookie, /; secure/i, cookie);
        t.notRegex(cookie, /; domain=/i, cookie);
      } else {
        t.regex(cookie, /^kurz_\w+(\.sig)?=/, cookie);
        t.notRegex(cookie, /; secure/i, cookie);
      }
    }
    const jar = await loginAs(k.base, 'admin', ADMIN_PASSWORD);
    t.is((await fetch(`${k.base}/links`, { headers: { cookie: jar, accept: BROWSER_ACCEPT } })).status, 200, 'the session works');
  }
});

/** The Set-Cookie lines of a successful login as the admin. */
async function sessionCookies(base: string): Promise<string[]> {
  const page = await fetch(`${base}/login`, { headers: { accept: BROWSER_ACCEPT } });
  const res = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { cookie: cookiesOf(page), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrfOf(await page.text()), user: 'admin', password: ADMIN_PASSWORD, next: '/' }),
    redirect: 'manual',
  });
  return res.headers.getSetCookie();
}

test("issue 23: a first start whose stderr is no terminal writes the password to a 0600 file in a 0700 folder, whatever the umask, and logs only the file's path; the first login asks for a new password, which deletes the file", async (t) => {
  const database = await freshDatabase(t);
  // A folder kurz makes itself, under umask 000: left alone it would be open to everyone.
  const db = join(tempDir(t), 'data', 'kurz.db');
  const env = { ...BASE_ENV, KURZ_PORT: '0', KURZ_LOG_FORMAT: 'text', KURZ_DB: db, ...database.env };
  if (database.file !== '') env.KURZ_DB = db;
  const child = spawn('/bin/sh', ['-c', 'umask 000 && exec "$@"', 'sh', process.execPath, kurzScript(), 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  await waitFor(() => /open http:\/\/127\.0\.0\.1:\d+\//.test(stdout) && /generated password/.test(stderr));
  const base = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout)?.[1] ?? '';
  const file = join(dirname(db), 'kurz-admin-password');
  t.true(stderr.includes(file), 'the log names the file');
  const password = readFileSync(file, 'utf8').trim();
  t.regex(password, /^[\w-]{20}$/);
  t.false(stderr.includes(password), 'the password is not in the log');
  t.false(stdout.includes(password));
  t.is(statSync(file).mode & 0o777, 0o600);
  t.is(statSync(dirname(file)).mode & 0o777, 0o700);

  const cookie = await loginAs(base, 'admin', password);
  for (const path of ['/', '/links', '/keys', '/settings']) {
    const res = await fetch(base + path, { headers: { cookie, accept: BROWSER_ACCEPT }, redirect: 'manual' });
    t.is(res.status, 303, path);
    t.is(res.headers.get('location'), '/account/password', path);
  }
  const api = await fetch(`${base}/api/v1/links`, { headers: { cookie } });
  t.is(api.status, 403, 'nor the API with that session');
  t.regex(((await api.json()) as Problem).detail, /still the generated one/);
  const form = await fetch(`${base}/account/password`, { headers: { cookie, accept: BROWSER_ACCEPT } });
  t.is(form.status, 200);
  const page = await form.text();
  t.notRegex(page, /name="current"/, 'the generated password was just given: it is not asked again');
  const csrf = csrfOf(page);
  const change = (fields: Record<string, string>) =>
    fetch(`${base}/account/password`, {
      method: 'POST',
      headers: { cookie, accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, ...fields }),
      redirect: 'manual',
    });
  const differ = await change({ password: 'my own password', repeat: 'my own passw0rd' });
  t.is(differ.status, 400);
  t.regex(await differ.text(), /The two new passwords differ/);
  t.true(existsSync(file), 'kept until a password is set');
  const short = await change({ password: 'short', repeat: 'short' });
  t.is(short.status, 400);
  t.regex(await short.text(), /at least 8 characters/);
  const changed = await change({ password: 'my own password', repeat: 'my own password' });
  t.is(changed.status, 303);
  t.is(changed.headers.get('location'), '/login');
  t.false(existsSync(file), 'the file is gone');

  await t.throwsAsync(loginAs(base, 'admin', password), { message: /login failed: 401/ });
  const own = await loginAs(base, 'admin', 'my own password');
  const home = await fetch(base, { headers: { cookie: own, accept: BROWSER_ACCEPT }, redirect: 'manual' });
  t.is(home.status, 200, 'no longer sent to change it');
  child.kill('SIGTERM');
  await once(child, 'exit');
});
