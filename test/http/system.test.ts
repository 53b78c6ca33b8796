import test from 'ava';
import { backend, startKurz, textWithHost, waitFor } from '../helpers.ts';

test('GET /healthz is 200 while the database answers, 503 when it does not', async (t) => {
  const k = await startKurz(t);
  const res = await k.get('/healthz');
  t.is(res.status, 200);
  t.deepEqual(await res.json(), { status: 'ok', database: backend });
  await k.kurz.storage.close();
  const down = await k.get('/healthz');
  t.is(down.status, 503);
  t.deepEqual(await down.json(), { status: 'unhealthy', database: backend, problem: 'database unreachable' });
});

test('/favicon.ico is an icon and /robots.txt keeps crawlers out, neither touching the links', async (t) => {
  const k = await startKurz(t);
  const icon = await k.get('/favicon.ico');
  t.is(icon.status, 200);
  t.is(icon.headers.get('content-type'), 'image/x-icon');
  const bytes = Buffer.from(await icon.arrayBuffer());
  t.deepEqual([...bytes.subarray(0, 4)], [0, 0, 1, 0], 'ICO header');
  const robots = await k.get('/robots.txt');
  t.is(robots.status, 200);
  t.is(await robots.text(), 'User-agent: *\nDisallow: /\n');
});

test("robots.txt allows the live crawlable links of the request's domain before disallowing everything else, and follows their changes", async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/domains', { host: 'short.test' })).status, 201);
  const make = async (body: Record<string, unknown>) => t.is((await k.postJson('/api/v1/links', body)).status, 201, JSON.stringify(body));
  const robots = async (host = 'kurz.test') => (await textWithHost(k.base, host, '/robots.txt')).text;
  t.is(await robots(), 'User-agent: *\nDisallow: /\n', 'cached before any crawlable link exists');
  await make({ url: 'https://example.com/b', alias: 'bee', crawlable: true });
  await make({ url: 'https://example.com/a', alias: 'ant', crawlable: true, expiresAt: new Date(k.clock.now() + 60_000).toISOString() });
  await make({ url: 'https://example.com/c', alias: 'cat', crawlable: true, startsAt: new Date(k.clock.now() + 30_000).toISOString() });
  await make({ url: 'https://example.com/d', alias: 'dog' });
  await make({ url: 'https://example.com/e', alias: 'elk', crawlable: true, enabled: false });
  await make({ url: 'https://example.com/f', alias: 'fox', crawlable: true, domain: 'short.test' });
  t.is(await robots(), 'User-agent: *\nAllow: /ant\nAllow: /bee\nDisallow: /\n', 'a link waiting for its start is not told of');
  t.is(await robots('short.test'), 'User-agent: *\nAllow: /fox\nDisallow: /\n', 'each domain its own links');
  k.clock.advance(30_000);
  t.is(await robots(), 'User-agent: *\nAllow: /ant\nAllow: /bee\nAllow: /cat\nDisallow: /\n', 'listed from its start');
  k.clock.advance(30_000);
  t.is(await robots(), 'User-agent: *\nAllow: /bee\nAllow: /cat\nDisallow: /\n', 'left out once expired');
  t.is((await k.request('PATCH', '/api/v1/links/bee', { crawlable: false })).status, 200);
  t.is((await k.request('DELETE', '/api/v1/links/cat')).status, 204);
  t.is((await k.request('PATCH', '/api/v1/links/dog', { crawlable: true })).status, 200);
  const res = await textWithHost(k.base, 'kurz.test', '/robots.txt');
  t.is(res.text, 'User-agent: *\nAllow: /dog\nDisallow: /\n', 'edits and deletes apply at once');
  t.is(res.type, 'text/plain; charset=utf-8');
});

test('a wrong method is a 405 naming the allowed ones', async (t) => {
  const k = await startKurz(t);
  const res = await fetch(k.base + '/healthz', { method: 'DELETE' });
  t.is(res.status, 405);
  t.is(res.headers.get('allow'), 'HEAD, GET');
  t.regex(((await res.json()) as { detail: string }).detail, /DELETE is not allowed here/);
});

test('a server error is logged with the request and shows no internal detail', async (t) => {
  const k = await startKurz(t);
  await k.kurz.storage.close();
  const res = await k.postJson('/api/v1/links', { url: 'https://example.com/' });
  t.is(res.status, 500);
  const body = (await res.json()) as { detail: string; code: string };
  t.is(body.code, 'internal');
  t.is(body.detail, 'something went wrong on our side; it has been logged');
  t.true(k.log.lines.some((l) => l.includes('request failed') && l.includes('path=/api/v1/links')));
});

test('a redirect while the database fails is a logged 500, and the server goes on', async (t) => {
  const k = await startKurz(t);
  const res = await k.postJson('/api/v1/links', { url: 'https://example.com/' });
  const { code } = (await res.json()) as { code: string };
  await k.kurz.storage.close();
  const down = await k.get(`/${code}`, { accept: 'application/json' });
  t.is(down.status, 500);
  t.is(((await down.json()) as { code: string }).code, 'internal');
  t.true(k.log.lines.some((l) => l.includes('request failed') && l.includes(`path=/${code}`)));
  t.is((await k.get('/healthz')).status, 503);
});

test('/links/ is the link list, not a code called "links"', async (t) => {
  const k = await startKurz(t);
  const res = await k.get('/links/');
  // The list is a page for the logged-in admin; an API key is no login.
  t.is(res.status, 401);
  t.like((await res.json()) as object, { code: 'unauthorized', detail: 'log in first' });
  const cookie = await k.login();
  const page = await fetch(`${k.base}/links/`, { headers: { cookie, accept: 'text/html' } });
  t.is(page.status, 200);
  t.regex(await page.text(), /<h1[^>]*>Links/);
});

test('an empty body with a JSON content type is "the request body is empty", not a 415', async (t) => {
  const k = await startKurz(t);
  const res = await k.postJson('/api/v1/links', '');
  t.is(res.status, 400);
  t.like((await res.json()) as object, { code: 'invalid', detail: 'the request body is empty' });
});

test('the request counter sees redirects and API calls alike, by route and status', async (t) => {
  const k = await startKurz(t);
  const { code } = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/counted' })).json()) as { code: string };
  await k.get(`/${code}`);
  await k.get(`/${code}`);
  await fetch(`${k.base}/${code}`, { method: 'HEAD', redirect: 'manual' });
  await k.get('/nothere');
  await k.get(`/api/v1/links/${code}`);
  await k.get('/a/b/c');
  const expected = [
    { route: 'GET /api/v1/links/:code', status: 200, count: 1 },
    { route: 'POST /api/v1/links', status: 201, count: 1 },
    { route: 'redirect', status: 302, count: 3 },
    { route: 'redirect', status: 404, count: 1 },
    { route: 'unmatched', status: 404, count: 1 },
  ];
  await waitFor(() => k.kurz.pipeline.requests.snapshot().length === expected.length);
  t.deepEqual(k.kurz.pipeline.requests.snapshot(), expected);
});

test('a failure is logged with a request id and the client address, taken from X-Forwarded-For only behind a trusted proxy', async (t) => {
  for (const [trustedProxies, client] of [
    ['', '127.0.0.1'],
    ['127.0.0.1', '203.0.113.7'],
  ] as const) {
    const k = await startKurz(t, { trustedProxies });
    await k.kurz.storage.close();
    const res = await fetch(`${k.base}/api/v1/links/abc`, {
      headers: { 'x-forwarded-for': '203.0.113.7', authorization: `Bearer ${k.key}` },
    });
    t.is(res.status, 500);
    const line = k.log.lines.find((l) => l.includes('request failed')) ?? '';
    t.regex(line, /^\S+ error request failed requestId=[0-9a-f]{6}-[0-9a-z]+ /);
    t.true(line.includes(` requestId=${res.headers.get('x-request-id')} `), 'the answer carries the id the log shows');
    t.true(line.includes(` client=${client} `), line);
  }
});
