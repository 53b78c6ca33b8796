import test, { type ExecutionContext } from 'ava';
import { refusalCounts } from '../../src/auth/rate-limits.ts';
import type { Storage } from '../../src/store/ports.ts';
import { ADMIN_PASSWORD, BROWSER_ACCEPT, cookiesOf, countingLookups, csrfOf, startKurz, type TestKurz } from '../helpers.ts';
import { browser } from './ui-session.ts';

interface Problem {
  status: number;
  code: string;
  detail: string;
}

/** A request from `client`, as the trusted proxy on 127.0.0.1 forwards it. */
function from(k: TestKurz, client: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return k.request(method, path, body, { 'x-forwarded-for': client, ...headers });
}

/** The refusals counted so far under `limit`. */
function refused(k: TestKurz, limit: string): number {
  return refusalCounts(k.kurz.services.limits).find((r) => r.limit === limit)?.refused ?? -1;
}

/** A 429 problem with `detail` and Retry-After `retryAfter`. */
async function assertLimited(t: ExecutionContext, res: Response, detail: string, retryAfter: string) {
  t.is(res.status, 429);
  t.is(res.headers.get('retry-after'), retryAfter);
  t.is(res.headers.get('content-type'), 'application/problem+json');
  t.like((await res.json()) as Problem, { status: 429, code: 'rate_limited', detail });
}

test('creations per client per minute: single links and batches (by their links) share the budget; then 429 with Retry-After until the minute passes', async (t) => {
  const k = await startKurz(t, { creationRateLimit: 5, trustedProxies: '127.0.0.1' });
  const client = '198.51.100.1';
  for (let i = 0; i < 3; i++) t.is((await from(k, client, 'POST', '/api/v1/links', { url: `https://example.com/${i}` })).status, 201);
  k.clock.advance(20_000);
  const batch = await from(k, client, 'POST', '/api/v1/links/batch', {
    links: [{ url: 'https://example.com/b1' }, { url: 'https://example.com/b2' }],
  });
  t.is(batch.status, 200);
  t.is(await k.linkCount(), 5);
  await assertLimited(
    t,
    await from(k, client, 'POST', '/api/v1/links', { url: 'https://example.com/late' }),
    'too many links created from this address in the last minute; try again in 40 s',
    '40',
  );
  const lateBatch = await from(k, client, 'POST', '/api/v1/links/batch', { links: [{ url: 'https://example.com/b3' }] });
  t.is(lateBatch.status, 429);
  t.is(await k.linkCount(), 5, 'nothing refused is stored');

  t.is(
    (await from(k, '198.51.100.2', 'POST', '/api/v1/links', { url: 'https://example.com/other' })).status,
    201,
    'another client is not affected',
  );
  k.clock.advance(40_000);
  t.is((await from(k, client, 'POST', '/api/v1/links', { url: 'https://example.com/late' })).status, 201, 'the minute has passed');
  t.is(refused(k, 'creation'), 2);
});

test('a batch is let in while its client is under the limit, and counts every link it holds', async (t) => {
  const k = await startKurz(t, { creationRateLimit: 3 });
  const links = Array.from({ length: 10 }, (_, i) => ({ url: `https://example.com/many/${i}` }));
  t.is((await k.postJson('/api/v1/links/batch', { links })).status, 200);
  t.is(await k.linkCount(), 10);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/one-more' })).status, 429);
});

test('the admin form and the bulk page count against the creation limit, and answer 429 as a page with the form kept', async (t) => {
  const k = await startKurz(t, { creationRateLimit: 3 });
  const b = await browser(k);
  const bulk = await b.submit('/import', { urls: 'https://example.com/1\nhttps://example.com/2' });
  t.is(bulk.status, 200);
  t.is((await b.submit('/', { url: 'https://example.com/3', enabled: 'true' })).status, 303);
  const form = await b.submit('/', { url: 'https://example.com/4', enabled: 'true' });
  t.is(form.status, 429);
  t.is(form.headers.get('retry-after'), '60');
  const html = await form.text();
  t.regex(html, /role="alert">Too many links created from this address in the last minute; try again in 60 s</);
  t.regex(html, /value="https:\/\/example\.com\/4"/, 'the form keeps what was typed');
  const again = await b.submit('/import', { urls: 'https://example.com/5' });
  t.is(again.status, 429);
  t.is(again.headers.get('retry-after'), '60');
  t.regex(
    await again.text(),
    /role="alert">Too many links created from this address in the last minute; try again in 60 s<[\s\S]*https:\/\/example\.com\/5<\/textarea>/,
  );
  t.is(await k.linkCount(), 3);
});

test('without trusted proxies X-Forwarded-For is ignored: every client on one socket address shares one budget', async (t) => {
  const k = await startKurz(t, { creationRateLimit: 2 });
  t.is((await from(k, '198.51.100.1', 'POST', '/api/v1/links', { url: 'https://example.com/1' })).status, 201);
  t.is((await from(k, '198.51.100.2', 'POST', '/api/v1/links', { url: 'https://example.com/2' })).status, 201);
  t.is((await from(k, '198.51.100.3', 'POST', '/api/v1/links', { url: 'https://example.com/3' })).status, 429);
});

test('creationRateLimit 0 turns the limit off', async (t) => {
  const k = await startKurz(t, { creationRateLimit: 0 });
  const links = Array.from({ length: 1000 }, (_, i) => ({ url: `https://example.com/${i}` }));
  t.is((await k.postJson('/api/v1/links/batch', { links })).status, 200);
  t.is((await k.postJson('/api/v1/links/batch', { links: [{ url: 'https://example.com/more' }] })).status, 200);
  t.is(await k.linkCount(), 1001);
});

/** A failed or right login from `client`, through the login form. */
async function login(k: TestKurz, password: string, client: string): Promise<Response> {
  const page = await fetch(`${k.base}/login`, { headers: { accept: BROWSER_ACCEPT, 'x-forwarded-for': client } });
  return fetch(`${k.base}/login`, {
    method: 'POST',
    headers: { cookie: cookiesOf(page), 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': client },
    body: new URLSearchParams({ _csrf: csrfOf(await page.text()), user: 'admin', password }),
    redirect: 'manual',
  });
}

test('loginRateLimit sets the failed logins before the wait begins; 0 turns it off', async (t) => {
  const k = await startKurz(t, { loginRateLimit: 2, trustedProxies: '127.0.0.1' });
  await k.login();
  t.is((await login(k, 'wrong one', '198.51.100.1')).status, 401);
  t.is((await login(k, 'wrong two', '198.51.100.1')).status, 401);
  const waiting = await login(k, ADMIN_PASSWORD, '198.51.100.1');
  t.is(waiting.status, 429);
  t.is(waiting.headers.get('retry-after'), '1');
  t.regex(await waiting.text(), /too many failed logins; try again in 1 s/);
  k.clock.advance(1000);
  t.is((await login(k, ADMIN_PASSWORD, '198.51.100.1')).status, 303);
  t.is(refused(k, 'login'), 1);

  const off = await startKurz(t, { loginRateLimit: 0 });
  await off.login();
  for (let i = 0; i < 10; i++) t.is((await login(off, `wrong ${i}`, '198.51.100.1')).status, 401);
  t.is((await login(off, ADMIN_PASSWORD, '198.51.100.1')).status, 303);
});

test('unlockRateLimit sets the wrong passwords of a link before the wait begins; 0 turns it off', async (t) => {
  for (const [limit, wrong, status] of [
    [1, 1, 429],
    [0, 20, 303],
  ] as const) {
    const k = await startKurz(t, { unlockRateLimit: limit, trustedProxies: '127.0.0.1' });
    const { code } = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/locked', password: 'open sesame' })).json()) as {
      code: string;
    };
    const unlock = (password: string) =>
      fetch(`${k.base}/links/${code}/unlock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.9' },
        body: JSON.stringify({ password }),
        redirect: 'manual',
      });
    for (let i = 0; i < wrong; i++) t.is((await unlock(`guess ${i}`)).status, 401);
    const right = await unlock('open sesame');
    t.is(right.status, status, `unlockRateLimit ${limit}`);
    if (status === 429) {
      t.is(right.headers.get('retry-after'), '1');
      t.is(((await right.json()) as Problem).detail, 'too many wrong passwords; try again in 1 s');
    }
  }
});

test('wrong API keys: after apiKeyRateLimit of them in a minute the client gets 429 before its key is even looked up', async (t) => {
  let lookups = 0;
  const k = await startKurz(
    t,
    { apiKeyRateLimit: 3, trustedProxies: '127.0.0.1' },
    {
      adaptStorage: (storage): Storage => ({
        ...storage,
        access: { ...storage.access, keyByHash: (hash) => (lookups++, storage.access.keyByHash(hash)) },
      }),
    },
  );
  const client = '198.51.100.4';
  const withKey = (key: string, who = client) => from(k, who, 'GET', '/api/v1/links', undefined, { authorization: `Bearer ${key}` });
  t.is((await withKey('kurz_wrong1')).status, 401);
  t.is((await from(k, client, 'GET', '/api/v1/links', undefined, { authorization: 'Basic YWRtaW46eA==' })).status, 401);
  t.is((await withKey('kurz_wrong2')).status, 401);
  const before = lookups;
  await assertLimited(t, await withKey('kurz_wrong3'), 'too many requests with a wrong API key from this address; try again in 60 s', '60');
  t.is((await withKey(k.key)).status, 429, 'even a right key waits: nothing is looked up for this client');
  t.is(lookups, before, 'no key was looked up once the client was limited');
  t.is((await withKey(k.key, '198.51.100.5')).status, 200, 'another client is not affected');
  k.clock.advance(60_000);
  t.is((await withKey(k.key)).status, 200);
  t.is(refused(k, 'api_key'), 2);
});

test('code scanning: after notFoundRateLimit unknown codes a client gets 429 for everything, and its scan no longer reaches the store', async (t) => {
  let lookups = 0;
  const k = await startKurz(
    t,
    { notFoundRateLimit: 5, trustedProxies: '127.0.0.1' },
    {
      adaptStorage: (storage) => countingLookups(storage, () => lookups++),
    },
  );
  const { code } = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/live' })).json()) as { code: string };
  const scanner = '203.0.113.66';
  const get = (path: string, client = scanner, headers: Record<string, string> = {}) =>
    fetch(k.base + path, { headers: { 'x-forwarded-for': client, ...headers }, redirect: 'manual' });

  t.is((await get(`/${code}`)).status, 302);
  for (let i = 0; i < 5; i++) t.is((await get(`/scan${i}`)).status, 404);
  const atLimit = lookups;
  t.is(atLimit, 6, 'each distinct code was a lookup: the negative cache holds an unknown code from its second lookup');

  await assertLimited(t, await get(`/${code}`), 'too many requests for unknown links from this address; try again in 60 s', '60');
  for (let i = 5; i < 100; i++) t.is((await get(`/scan${i}`)).status, 429);
  t.is(lookups, atLimit, 'the rest of the scan never reached the store');
  const page = await get(`/scan-page`, scanner, { accept: BROWSER_ACCEPT });
  t.is(page.status, 429);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(await page.text(), /Too many requests for unknown links from this address; try again in 60 s/);
  t.is((await from(k, scanner, 'GET', '/api/v1/links')).status, 429, 'everything the client asks for waits, not only redirects');

  t.is((await get(`/${code}`, '203.0.113.67')).status, 302, 'another client is not affected');
  k.clock.advance(60_000);
  t.is((await get(`/${code}`)).status, 302, 'the minute has passed');
  t.is(refused(k, 'not_found'), 98);
});

test('paths nothing serves count like unknown codes; /healthz is never refused', async (t) => {
  const k = await startKurz(t, { notFoundRateLimit: 3 });
  for (const path of ['/wp-admin/setup.php', '/.git/config', '/cgi-bin/x']) t.is((await fetch(k.base + path)).status, 404);
  t.is((await fetch(`${k.base}/anything`)).status, 429);
  t.is((await fetch(`${k.base}/robots.txt`)).status, 429);
  t.is((await fetch(`${k.base}/healthz`)).status, 200, "a load balancer's health check is answered");
  t.is((await fetch(`${k.base}/healthz?probe=1`)).status, 200);
});

test('notFoundRateLimit 0 turns the 404 limit off', async (t) => {
  const k = await startKurz(t, { notFoundRateLimit: 0 });
  for (let i = 0; i < 300; i++) t.is((await fetch(`${k.base}/nope${i}`)).status, 404);
  t.is(k.kurz.services.limits.notFound.size, 0);
});
