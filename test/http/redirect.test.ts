import test from 'ava';
import { BROWSER_ACCEPT, getWithHost, startKurz, waitFor, type TestKurz } from '../helpers.ts';
import { SERVER_ADMIN } from '../../src/auth/actor.ts';

async function create(k: TestKurz, url: string, alias?: string): Promise<string> {
  const res = await k.postJson('/api/v1/links', alias ? { url, alias } : { url });
  return ((await res.json()) as { code: string }).code;
}

test('GET /:code redirects with 302, the target and a private cache header', async (t) => {
  const k = await startKurz(t);
  const code = await create(k, 'https://example.com/target?x=1#frag');
  const res = await k.get(`/${code}`);
  t.is(res.status, 302);
  t.is(res.headers.get('location'), 'https://example.com/target?x=1#frag');
  t.is(res.headers.get('cache-control'), 'private, max-age=90');
  t.is(await res.text(), '');
});

test('HEAD /:code answers like GET but counts no visit', async (t) => {
  const k = await startKurz(t, { visitFlushInterval: '60s' }); // a counted visit would still be pending
  const code = await create(k, 'https://example.com/head');
  const res = await fetch(`${k.base}/${code}`, { method: 'HEAD', redirect: 'manual' });
  t.is(res.status, 302);
  t.is(res.headers.get('location'), 'https://example.com/head');
  t.is(k.kurz.services.visits.pending, 0);
});

test('the redirect status is configurable', async (t) => {
  const k = await startKurz(t, { redirectStatus: 308 });
  const code = await create(k, 'https://example.com/perm');
  t.is((await k.get(`/${code}`)).status, 308);
});

test('a Host that is none of kurz’s domains is served as the default domain, or refused with 421 (unknownHosts)', async (t) => {
  const k = await startKurz(t);
  const code = await create(k, 'https://example.com/host');
  const res = await getWithHost(k.base, 'some.other.name', `/${code}`);
  t.is(res.status, 302);
  t.is(res.location, 'https://example.com/host');

  const strict = await startKurz(t, { unknownHosts: 'refuse' });
  const strictCode = await create(strict, 'https://example.com/host');
  const refused = await getWithHost(strict.base, 'some.other.name', `/${strictCode}`);
  t.is(refused.status, 421);
  t.is(refused.location, undefined);
  t.is((await getWithHost(strict.base, 'kurz.test', `/${strictCode}`)).status, 302);
});

test('an alias redirects, case-sensitively', async (t) => {
  const k = await startKurz(t);
  await create(k, 'https://example.com/lower', 'go');
  t.is((await k.get('/go')).headers.get('location'), 'https://example.com/lower');
  t.is((await k.get('/GO')).status, 404);
});

test('an unknown code is a problem+json 404 for API clients and an HTML page for browsers', async (t) => {
  const k = await startKurz(t);
  const json = await k.get('/unknown1', { accept: 'application/json' });
  t.is(json.status, 404);
  t.is(json.headers.get('content-type'), 'application/problem+json');
  t.like((await json.json()) as object, { status: 404, code: 'not_found', detail: 'no link with code "unknown1"' });

  const curl = await k.get('/unknown1', { accept: '*/*' });
  t.is(curl.headers.get('content-type'), 'application/problem+json');

  const page = await k.get('/unknown1', { accept: BROWSER_ACCEPT });
  t.is(page.status, 404);
  t.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
  const html = await page.text();
  t.regex(html, /<h1>404 · Not Found<\/h1>/);
  t.regex(html, /No link with code &quot;unknown1&quot;/);
});

test('a path that cannot be a code is a 404 without a lookup, and its text is escaped in the page', async (t) => {
  const k = await startKurz(t);
  const res = await k.get('/%3Cscript%3Ealert(1)%3C%2Fscript%3E', { accept: BROWSER_ACCEPT });
  t.is(res.status, 404);
  const html = await res.text();
  t.false(html.includes('<script>alert(1)'));
  t.true(html.includes('&lt;script&gt;'));
});

test('a deeper unknown path is a 404 too', async (t) => {
  const k = await startKurz(t);
  const res = await k.get('/a/b/c');
  t.is(res.status, 404);
  t.regex(((await res.json()) as { detail: string }).detail, /nothing at \/a\/b\/c/);
});

test('a code created after being looked up as unknown redirects at once (negative cache invalidated)', async (t) => {
  const k = await startKurz(t);
  t.is((await k.get('/fresh')).status, 404);
  await create(k, 'https://example.com/fresh', 'fresh');
  t.is((await k.get('/fresh')).status, 302);
});

test('visits are buffered, then flushed in one go: count and last visit', async (t) => {
  const k = await startKurz(t, { visitFlushInterval: '60s' });
  const code = await create(k, 'https://example.com/count');
  for (let i = 0; i < 3; i++) {
    t.is((await k.get(`/${code}`)).status, 302);
    k.clock.advance(1000);
  }
  const before = (await (await k.get(`/api/v1/links/${code}`)).json()) as { visitCount: number };
  t.is(before.visitCount, 0, 'nothing is written on the request path');
  t.is(k.kurz.services.visits.pending, 3);
  await k.flushVisits();
  const after = (await (await k.get(`/api/v1/links/${code}`)).json()) as { visitCount: number; lastVisitAt: string };
  t.is(after.visitCount, 3);
  t.is(after.lastVisitAt, new Date(k.clock.now() - 1000).toISOString());
});

test('visits are flushed on their own once enough links have visits pending', async (t) => {
  const k = await startKurz(t, { visitFlushSize: 3, visitFlushInterval: '60s' });
  const codes = [
    await create(k, 'https://example.com/size1'),
    await create(k, 'https://example.com/size2'),
    await create(k, 'https://example.com/size3'),
  ];
  for (const code of codes) await k.get(`/${code}`);
  const total = async () => (await k.sql<{ n: number }>('SELECT coalesce(sum(count), 0) AS n FROM link_visits'))[0]?.n;
  await waitFor(async () => (await total()) === 3);
  t.is(await total(), 3);
});

test('visits are flushed on the timer', async (t) => {
  const k = await startKurz(t, { visitFlushSize: 1000, visitFlushInterval: '50ms' });
  const code = await create(k, 'https://example.com/timer');
  await k.get(`/${code}`);
  const count = async () =>
    (
      await k.sql<{ visit_count: number }>(
        'SELECT v.count AS visit_count FROM links JOIN link_visits AS v ON v.link_id = links.id WHERE code = ?',
        code,
      )
    )[0];
  await waitFor(async () => (await count())?.visit_count === 1);
  t.is((await count())?.visit_count, 1);
});

test('query strings and percent-encoded codes redirect alike', async (t) => {
  const k = await startKurz(t, { visitFlushInterval: '60s' }); // so both visits are still pending at the end
  await create(k, 'https://example.com/alike', 'alike');
  const direct = await k.get('/alike?utm_source=mail');
  const encoded = await k.get('/ali%6Be');
  for (const res of [direct, encoded]) {
    t.is(res.status, 302);
    t.is(res.headers.get('location'), 'https://example.com/alike');
    t.is(res.headers.get('cache-control'), 'private, max-age=90');
    t.is(res.headers.get('content-length'), '0');
  }
  t.is(k.kurz.services.visits.pending, 2);
});

test('concurrent creations are committed together and each gets its own code', async (t) => {
  const k = await startKurz(t, { dedupeWindow: 'off' });
  const responses = await Promise.all(
    Array.from({ length: 40 }, (_, i) => k.postJson('/api/v1/links', { url: `https://example.com/burst/${i}` })),
  );
  t.true(responses.every((r) => r.status === 201));
  const codes = await Promise.all(responses.map(async (r) => ((await r.json()) as { code: string }).code));
  t.is(new Set(codes).size, 40);
  t.is(await k.linkCount(), 40);
});

test("a stored target that Node refuses as a header is a logged 500 in the client's format, not a crash", async (t) => {
  const k = await startKurz(t, { visitFlushInterval: '60s' });
  // Not possible through kurz (targets are normalised), but a database edited by hand may hold one.
  await k.sql(`INSERT INTO links (id, code, url, created_at, updated_at) VALUES (1, 'broken', ?, 0, 0)`, 'https://example.com/a\u0001b');
  const api = await k.get('/broken', { accept: 'application/json' });
  t.is(api.status, 500);
  t.like((await api.json()) as object, { code: 'internal', detail: 'something went wrong on our side; it has been logged' });
  const page = await k.get('/broken', { accept: BROWSER_ACCEPT });
  t.is(page.status, 500);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  t.is(k.kurz.services.visits.pending, 0, 'no visit counted for a redirect that was not sent');
  t.true(k.log.lines.some((l) => l.includes('request failed') && l.includes('path=/broken')));
  t.is((await k.get('/healthz')).status, 200);
});

test('an unknown code gets the same 404 however it is spelled and whatever JSON client asks', async (t) => {
  const k = await startKurz(t);
  const answers = await Promise.all(
    ['/missing1', '/missin%671'].flatMap((path) =>
      [undefined, '*/*', 'application/json'].map((accept) => k.get(path, accept ? { accept } : {})),
    ),
  );
  const shapes = await Promise.all(
    answers.map(async (r) => ({
      status: r.status,
      type: r.headers.get('content-type'),
      nosniff: r.headers.get('x-content-type-options'),
      body: await r.text(),
    })),
  );
  for (const shape of shapes) t.deepEqual(shape, shapes[0]);
  t.like(JSON.parse(shapes[0]?.body ?? '{}') as object, {
    title: 'Not Found',
    status: 404,
    code: 'not_found',
    detail: 'no link with code "missing1"',
  });
});

test('a store that can only answer asynchronously serves redirects, 404s, 410s and failures the same way', async (t) => {
  let failing = false;
  const k = await startKurz(
    t,
    {},
    {
      adaptStorage: (storage) => ({
        ...storage,
        links: {
          ...storage.links,
          targetByAddressAtOnce: undefined,
          targetByAddress: (domain, code) =>
            failing ? Promise.reject(new Error('connection lost')) : storage.links.targetByAddress(domain, code),
        },
      }),
    },
  );
  const code = await create(k, 'https://example.com/later');
  await create(k, 'https://example.com/gone', 'gone');
  await k.kurz.services.links.deleteLink(SERVER_ADMIN, 'gone');
  const res = await k.get(`/${code}`);
  t.is(res.status, 302);
  t.is(res.headers.get('location'), 'https://example.com/later');
  t.is((await k.get('/unknown1')).status, 404);
  t.is((await k.get('/gone', { accept: BROWSER_ACCEPT })).status, 410);
  failing = true;
  t.is((await k.get('/other1')).status, 500);
  t.true(k.log.lines.some((l) => l.includes('request failed') && l.includes('path=/other1')));
});
