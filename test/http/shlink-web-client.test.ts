import test from 'ava';
import { BROWSER_UA, startKurz } from '../helpers.ts';

// What Shlink's web client (app.shlink.io, another origin) asks of a server it is pointed at, as it starts:
// the server's health (its version turns features on or off), Mercure (501: it polls instead), then the
// overview page's tag stats, domains, the five newest short URLs and the visits. Each request carries
// X-Api-Key, so the browser sends a preflight first; each answer must be readable across origins.

const ORIGIN = 'https://app.shlink.io';

const STARTUP = [
  { path: '/rest/v3/health', status: 200, type: 'application/health+json' },
  { path: '/rest/v3/mercure-info', status: 501, type: 'application/problem+json' },
  { path: '/rest/v3/tags/stats', status: 200, type: 'application/json' },
  { path: '/rest/v3/domains', status: 200, type: 'application/json' },
  { path: '/rest/v3/short-urls?itemsPerPage=5&orderBy=dateCreated-DESC', status: 200, type: 'application/json' },
  { path: '/rest/v3/visits', status: 200, type: 'application/json' },
] as const;

test("the web client's start-up calls, each after its preflight, answer what it needs from another origin", async (t) => {
  const k = await startKurz(t);
  for (let i = 1; i <= 7; i++) {
    const res = await k.postJson('/api/v1/links', {
      url: `https://example.com/${i}`,
      alias: `link-${i}`,
      tags: i % 2 === 0 ? ['even'] : [],
    });
    t.is(res.status, 201);
    k.clock.advance(60_000);
  }
  const visit = await fetch(`${k.base}/link-2`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  t.is(visit.status, 302);
  await k.flushVisits();

  const answers: Record<string, unknown> = {};
  for (const { path, status, type } of STARTUP) {
    const preflight = await fetch(`${k.base}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-api-key',
        'user-agent': BROWSER_UA,
      },
    });
    t.is(preflight.status, 204, `preflight of ${path}`);
    t.is(preflight.headers.get('access-control-allow-origin'), '*', path);
    t.true(preflight.headers.get('access-control-allow-methods')?.split(',').includes('GET'), path);
    t.is(preflight.headers.get('access-control-allow-headers'), 'x-api-key', path);

    const res = await fetch(`${k.base}${path}`, {
      headers: { origin: ORIGIN, 'x-api-key': k.key, accept: 'application/json', 'user-agent': BROWSER_UA },
    });
    t.is(res.status, status, path);
    t.is(res.headers.get('content-type')?.split(';')[0], type, path);
    t.is(res.headers.get('access-control-allow-origin'), '*', path);
    answers[path] = await res.json();
  }

  t.like(answers['/rest/v3/health'], { status: 'pass' });
  t.regex((answers['/rest/v3/health'] as { version: string }).version, /^\d+\.\d+\.\d+/);
  t.like(answers['/rest/v3/mercure-info'], { type: 'https://shlink.io/api/error/mercure-not-configured', status: 501 });
  t.deepEqual((answers['/rest/v3/tags/stats'] as { tags: { data: unknown[] } }).tags.data, [
    { tag: 'even', shortUrlsCount: 3, visitsSummary: { total: 1, nonBots: 1, bots: 0 } },
  ]);
  t.like(answers['/rest/v3/domains'], { domains: { data: [{ domain: 'kurz.test', isDefault: true }] } });
  const newest = (
    answers['/rest/v3/short-urls?itemsPerPage=5&orderBy=dateCreated-DESC'] as {
      shortUrls: { data: Array<{ shortCode: string }>; pagination: unknown };
    }
  ).shortUrls;
  t.deepEqual(
    newest.data.map((s) => s.shortCode),
    ['link-7', 'link-6', 'link-5', 'link-4', 'link-3'],
  );
  t.deepEqual(newest.pagination, { currentPage: 1, pagesCount: 2, itemsPerPage: 5, itemsInCurrentPage: 5, totalItems: 7 });
  t.deepEqual(answers['/rest/v3/visits'], {
    visits: { nonOrphanVisits: { total: 1, nonBots: 1, bots: 0 }, orphanVisits: { total: 0, nonBots: 0, bots: 0 } },
  });
});

test('the web client sees a refused key as Shlink would tell it, readable across origins', async (t) => {
  const k = await startKurz(t);
  const res = await fetch(`${k.base}/rest/v3/short-urls?itemsPerPage=5&orderBy=dateCreated-DESC`, {
    headers: { origin: ORIGIN, 'x-api-key': 'a-key-that-was-revoked' },
  });
  t.is(res.status, 401);
  t.is(res.headers.get('access-control-allow-origin'), '*');
  t.like(await res.json(), { type: 'https://shlink.io/api/error/invalid-api-key', title: 'Invalid API key', status: 401 });
});

test("the web client's create and edit forms, empty fields sent as null, '' or false, make and change a link", async (t) => {
  const k = await startKurz(t);
  const send = (method: string, path: string, body: unknown) =>
    fetch(`${k.base}${path}`, {
      method,
      headers: { origin: ORIGIN, 'x-api-key': k.key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const created = await send('POST', '/rest/v3/short-urls', {
    longUrl: 'https://example.com/form',
    tags: [],
    customSlug: '',
    title: null,
    domain: '',
    shortCodeLength: null,
    validSince: null,
    validUntil: null,
    maxVisits: null,
    crawlable: false,
    forwardQuery: true,
    findIfExists: false,
    deviceLongUrls: { android: '', ios: null, desktop: '' },
  });
  t.is(created.status, 200);
  const shortUrl = (await created.json()) as { shortCode: string; domain: string | null; tags: string[]; forwardQuery: boolean };
  t.like(shortUrl, { domain: null, tags: [], forwardQuery: true });
  t.is(shortUrl.shortCode.length, k.config.codeLength, 'a generated code');
  const edited = await send('PATCH', `/rest/v3/short-urls/${shortUrl.shortCode}`, {
    longUrl: 'https://example.com/form2',
    tags: ['kept'],
    title: 'Titled',
    validSince: null,
    validUntil: '2027-06-01T00:00:00+02:00',
    maxVisits: 100,
    crawlable: false,
    forwardQuery: false,
  });
  t.is(edited.status, 200);
  t.like(await edited.json(), {
    longUrl: 'https://example.com/form2',
    tags: ['kept'],
    title: 'Titled',
    meta: { validSince: null, validUntil: '2027-05-31T22:00:00+00:00', maxVisits: 100 },
    forwardQuery: false,
  });
});
