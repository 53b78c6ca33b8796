import test from 'ava';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { createApp } from '../../src/app.ts';
import { memoryLogger } from '../../src/core/log.ts';
import { ADMIN_PASSWORD, BROWSER_ACCEPT, cookiesOf, csrfOf, loginAs, startKurz, waitFor } from '../helpers.ts';

type Problem = { status: number; code: string; detail: string };

/** Every JSON API route, with a body where it takes one. */
const API_ROUTES: Array<[string, string, unknown?]> = [
  ['GET', '/api/v1/links'],
  ['POST', '/api/v1/links', { url: 'https://example.com/' }],
  ['POST', '/api/v1/links/batch', { links: [{ url: 'https://example.com/' }] }],
  ['GET', '/api/v1/links/abc'],
  ['PATCH', '/api/v1/links/abc', { title: 'x' }],
  ['DELETE', '/api/v1/links/abc'],
  ['GET', '/api/v1/links/abc/qr'],
  ['GET', '/api/v1/tags'],
];

test('every API route answers 401 problem+json without a key or session, and stores nothing', async (t) => {
  const k = await startKurz(t);
  for (const [method, path, body] of API_ROUTES) {
    const res = await fetch(k.base + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    t.is(res.status, 401, `${method} ${path}`);
    t.is(res.headers.get('content-type'), 'application/problem+json');
    t.like((await res.json()) as Problem, { code: 'unauthorized' });
  }
  t.is(await k.linkCount(), 0);
});

test('redirects, /healthz and the OpenAPI document need no key', async (t) => {
  const k = await startKurz(t);
  const { code } = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/open' })).json()) as { code: string };
  t.is((await fetch(`${k.base}/${code}`, { redirect: 'manual' })).status, 302);
  t.is((await fetch(`${k.base}/healthz`)).status, 200);
  t.is((await fetch(`${k.base}/api/v1/openapi.json`)).status, 200);
});

test('an API key works as Bearer and as X-Api-Key; its last use is recorded; a revoked one is refused', async (t) => {
  const k = await startKurz(t);
  const { secret } = await k.kurz.services.access.createKey(1, 'ci');
  const bearer = await fetch(`${k.base}/api/v1/tags`, { headers: { authorization: `Bearer ${secret}` } });
  t.is(bearer.status, 200);
  const header = await fetch(`${k.base}/api/v1/tags`, { headers: { 'x-api-key': secret } });
  t.is(header.status, 200);
  const listed = (await k.kurz.services.access.listKeys()).find((key) => key.name === 'ci');
  t.deepEqual(listed?.lastUsedAt, new Date(k.clock.now()));
  t.false(JSON.stringify(await k.kurz.services.access.listKeys()).includes(secret), 'the key itself is never listed');
  t.deepEqual(await k.sql('SELECT count(*) AS n FROM api_keys WHERE key_hash = ?', secret), [{ n: 0 }], 'stored only hashed');

  await k.kurz.services.access.revokeKey(1, 'ci');
  for (const headers of [{ authorization: `Bearer ${secret}` }, { 'x-api-key': secret }]) {
    const res = await fetch(`${k.base}/api/v1/tags`, { headers });
    t.is(res.status, 401);
    t.regex(((await res.json()) as Problem).detail, /unknown or revoked/);
  }
});

test('a malformed or unknown key is a 401 even on a page, never a silent fallback to no key', async (t) => {
  const k = await startKurz(t);
  for (const headers of [{ authorization: 'Basic YWRtaW46eA==' }, { authorization: 'Bearer kurz_nope' }, { 'x-api-key': 'nope' }]) {
    const res = await fetch(`${k.base}/api/v1/links`, { headers });
    t.is(res.status, 401, JSON.stringify(headers));
  }
});

test('the first start generates an admin password, logs it once on a terminal, and it logs in', async (t) => {
  const k = await startKurz(t, {}, { terminal: true });
  await waitFor(() => k.log.lines.some((l) => l.includes('generated password')));
  const lines = k.log.lines.filter((l) => l.includes('generated password'));
  t.is(lines.length, 1);
  const password = /password=(\S+)/.exec(lines[0] ?? '')?.[1] ?? '';
  t.true(password.length >= 16);
  t.regex(lines[0] ?? '', /kurz admin password/);
  const cookie = await loginAs(k.base, 'admin', password);
  t.regex(cookie, /kurz_session=/);
  t.is(k.log.lines.filter((l) => l.includes(password)).length, 1, 'the password is in the log exactly once');
  t.false(existsSync(k.kurz.services.access.passwordFile ?? ''), 'and in no file');

  // A second start on the same database keeps it and says nothing.
  const log = memoryLogger();
  const again = await createApp(k.config, { now: k.clock.now, random: (n) => Buffer.alloc(n, 7), log }, { backgroundWriter: false });
  await again.close();
  t.false(log.lines.some((l) => l.includes('password')));
});

test('login sets an HttpOnly, SameSite=Lax, Secure (https public URL) signed cookie; the session works for the API; logout ends it', async (t) => {
  const k = await startKurz(t);
  const cookie = await k.login();
  const page = await fetch(`${k.base}/login`, { headers: { accept: BROWSER_ACCEPT } });
  const form = new URLSearchParams({ _csrf: csrfOf(await page.text()), user: 'admin', password: ADMIN_PASSWORD, next: '/links' });
  const res = await fetch(`${k.base}/login`, {
    method: 'POST',
    headers: { cookie: cookiesOf(page), 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
    redirect: 'manual',
  });
  t.is(res.status, 303);
  t.is(res.headers.get('location'), '/links');
  const session = res.headers.getSetCookie().find((c) => c.startsWith('__Host-kurz_session='));
  t.regex(session ?? '', /; httponly/i);
  t.regex(session ?? '', /; samesite=lax/i);
  t.regex(session ?? '', /; secure/i);
  t.true(
    res.headers.getSetCookie().some((c) => c.startsWith('__Host-kurz_session.sig=')),
    'signed',
  );

  t.is((await fetch(`${k.base}/api/v1/tags`, { headers: { cookie } })).status, 200);
  // A forged session cookie (signature of another value) is no session.
  const forged = cookie.replace(/kurz_session=[^;]+/, 'kurz_session=forged');
  t.is((await fetch(`${k.base}/api/v1/tags`, { headers: { cookie: forged } })).status, 401);

  const home = await fetch(`${k.base}/`, { headers: { cookie, accept: BROWSER_ACCEPT } });
  const out = await fetch(`${k.base}/logout`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrfOf(await home.text()) }),
    redirect: 'manual',
  });
  t.is(out.status, 303);
  t.is((await fetch(`${k.base}/api/v1/tags`, { headers: { cookie } })).status, 401, 'the old cookie is dead');
});

test('a public URL on http gives cookies without Secure', async (t) => {
  const k = await startKurz(t, { publicUrl: 'http://kurz.test' });
  const page = await fetch(`${k.base}/login`, { headers: { accept: BROWSER_ACCEPT } });
  const cookie = page.headers.getSetCookie().find((c) => c.startsWith('kurz_form='));
  t.truthy(cookie);
  t.notRegex(cookie ?? '', /secure/i);
});

test('a session survives a restart, and ends after the idle time and after the absolute lifetime', async (t) => {
  const k = await startKurz(t, { sessionIdle: '1h', sessionMaxAge: '3h' });
  const cookie = await k.login();
  await k.kurz.close();
  const restarted = await createApp(
    k.config,
    { now: k.clock.now, random: (n) => Buffer.alloc(n, 9), log: memoryLogger() },
    { backgroundWriter: false },
  );
  t.teardown(() => restarted.close());
  const server = createServer(restarted.callback).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => void server.close());
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const tags = () => fetch(`${base}/api/v1/tags`, { headers: { cookie } });
  t.is((await tags()).status, 200, 'still logged in after the restart');

  // Busy but idle less than an hour each time: alive until the absolute lifetime of 3 h.
  for (let i = 0; i < 3; i++) {
    k.clock.advance(50 * 60_000);
    t.is((await tags()).status, 200, `after ${(i + 1) * 50} min`);
  }
  k.clock.advance(50 * 60_000);
  t.is((await tags()).status, 401, 'past 3 h since the login');

  const fresh = await loginAs(base, 'admin', ADMIN_PASSWORD);
  k.clock.advance(61 * 60_000);
  t.is((await fetch(`${base}/api/v1/tags`, { headers: { cookie: fresh } })).status, 401, 'idle for more than 1 h');
});

test('forms without the right CSRF token are refused with 403 and do nothing', async (t) => {
  const k = await startKurz(t);
  const cookie = await k.login();
  const post = (path: string, fields: Record<string, string>, jar = cookie) =>
    fetch(k.base + path, {
      method: 'POST',
      headers: { cookie: jar, 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER_ACCEPT },
      body: new URLSearchParams(fields),
      redirect: 'manual',
    });
  t.is((await post('/logout', {})).status, 403);
  t.is((await post('/logout', { _csrf: 'x'.repeat(43) })).status, 403);
  t.is((await fetch(`${k.base}/api/v1/tags`, { headers: { cookie } })).status, 200, 'still logged in');
  t.is((await post('/', { url: 'https://example.com/csrf' })).status, 403);
  t.is(await k.linkCount(), 0);
  // The login form itself: a token from another browser's form cookie does not fit.
  const other = await fetch(`${k.base}/login`, { headers: { accept: BROWSER_ACCEPT } });
  const mine = await fetch(`${k.base}/login`, { headers: { accept: BROWSER_ACCEPT } });
  const res = await post('/login', { _csrf: csrfOf(await other.text()), user: 'admin', password: ADMIN_PASSWORD }, cookiesOf(mine));
  t.is(res.status, 403);
});

test('failed logins: one answer for a wrong user and a wrong password, then a growing delay per client and per account', async (t) => {
  const k = await startKurz(t, { trustedProxies: '127.0.0.1' });
  await k.login();
  const attempt = async (user: string, password: string, client: string) => {
    const page = await fetch(`${k.base}/login`, { headers: { accept: BROWSER_ACCEPT, 'x-forwarded-for': client } });
    return fetch(`${k.base}/login`, {
      method: 'POST',
      headers: { cookie: cookiesOf(page), 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': client },
      body: new URLSearchParams({ _csrf: csrfOf(await page.text()), user, password }),
      redirect: 'manual',
    });
  };
  const wrongUser = await attempt('root', ADMIN_PASSWORD, '198.51.100.1');
  const wrongPassword = await attempt('admin', 'nope nope nope', '198.51.100.2');
  t.is(wrongUser.status, 401);
  t.is(wrongPassword.status, 401);
  const message = (html: string) => /role="alert"[^>]*>([^<]*)</.exec(html)?.[1];
  t.is(message(await wrongUser.text()), 'wrong user name or password');
  t.is(message(await wrongPassword.text()), 'wrong user name or password');

  // Per client: two more failures from one address, then it must wait, even with the right password.
  const client = '198.51.100.3';
  t.is((await attempt('admin', 'bad 1 bad 1', client)).status, 401);
  t.is((await attempt('admin', 'bad 2 bad 2', client)).status, 401);
  t.is((await attempt('admin', 'bad 3 bad 3', client)).status, 401);
  const waiting = await attempt('admin', ADMIN_PASSWORD, client);
  t.is(waiting.status, 429);
  t.is(waiting.headers.get('retry-after'), '1');
  k.clock.advance(1000);
  t.is((await attempt('admin', 'bad 4 bad 4', client)).status, 401);
  const longer = await attempt('admin', ADMIN_PASSWORD, client);
  t.is(longer.status, 429);
  t.is(longer.headers.get('retry-after'), '2', 'the delay doubles');
  k.clock.advance(2000);
  t.is((await attempt('admin', ADMIN_PASSWORD, client)).status, 303);

  // Per account: failures spread over many addresses still slow down guessing the admin's password.
  for (let i = 0; i < 4; i++) await attempt('admin', `wrong ${i} wrong`, `203.0.113.${i}`);
  t.is((await attempt('admin', ADMIN_PASSWORD, '203.0.113.99')).status, 429);
});

test('the login page only ever returns to a path on kurz itself', async (t) => {
  const k = await startKurz(t);
  const cases: Array<[string, string]> = [
    ['/links?q=a', '/links?q=a'],
    ['//evil.example/x', '/'],
    ['https://evil.example/', '/'],
    ['/\\evil.example', '/'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
    // Paths that only become //evil.example once their dot segments are resolved.
    ['/.//evil.example', '/'],
    ['/%2e//evil.example', '/'],
    ['/a/..//evil.example/x', '/'],
    ['javascript:alert(1)', '/'],
    ['/\t/evil.example', '/'],
    ['', '/'],
  ];
  await k.login();
  for (const [next, expected] of cases) {
    const page = await fetch(`${k.base}/login?next=${encodeURIComponent(next)}`, { headers: { accept: BROWSER_ACCEPT } });
    const res = await fetch(`${k.base}/login`, {
      method: 'POST',
      headers: { cookie: cookiesOf(page), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrfOf(await page.text()), user: 'admin', password: ADMIN_PASSWORD, next }),
      redirect: 'manual',
    });
    t.is(res.status, 303, next);
    t.is(res.headers.get('location'), expected, next);
  }
});

test('the admin changes the password at /account/password: every session ends, the new one logs in, the old one no longer', async (t) => {
  const k = await startKurz(t);
  const cookie = await k.login();
  const form = await fetch(`${k.base}/account/password`, { headers: { cookie, accept: BROWSER_ACCEPT } });
  t.is(form.status, 200);
  const html = await form.text();
  t.regex(html, /A new password ends every login session/);
  t.regex(html, /<label for="current">Current password<\/label>/);
  t.regex(html, /<a href="\/account\/password" aria-current="page">Password<\/a>/, 'in the nav, marked as the page');
  t.regex(html, /<code>kurz admin password<\/code>/, 'the hint names the command');
  const change = (fields: Record<string, string>) =>
    fetch(`${k.base}/account/password`, {
      method: 'POST',
      headers: { cookie, accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrfOf(html), password: 'a brand new password', repeat: 'a brand new password', ...fields }),
      redirect: 'manual',
    });
  const none = await change({});
  t.is(none.status, 400);
  t.regex(await none.text(), /Give your current password; nothing was changed/);
  const wrong = await change({ current: 'not the password' });
  t.is(wrong.status, 400);
  const page = await wrong.text();
  t.regex(page, /That is not your current password; nothing was changed/);
  t.regex(page, /id="current"[^>]*aria-invalid="true"[^>]*aria-describedby="form-error"/, 'the field the message is about');
  const differ = await change({ current: ADMIN_PASSWORD, repeat: 'another new password' });
  t.is(differ.status, 400);
  t.regex(await differ.text(), /The two new passwords differ/);
  t.truthy(await loginAs(k.base, 'admin', ADMIN_PASSWORD), 'nothing changed so far');
  const res = await change({ current: ADMIN_PASSWORD });
  t.is(res.status, 303);
  t.is(res.headers.get('location'), '/login');
  t.is((await fetch(`${k.base}/api/v1/tags`, { headers: { cookie } })).status, 401, 'the session ended');
  await t.throwsAsync(loginAs(k.base, 'admin', ADMIN_PASSWORD), { message: /login failed: 401/ });
  t.truthy(await loginAs(k.base, 'admin', 'a brand new password'));
  const stranger = await fetch(`${k.base}/account/password`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
  t.is(stranger.headers.get('location'), '/login?next=%2Faccount%2Fpassword', 'only for the logged-in admin');
});
