import test from 'ava';
import { getWithHost, startKurz, type TestKurz } from '../helpers.ts';

// /api/v1/domains and the `domain` of the link routes: each domain is a code space of its own, through the API.

interface DomainBody {
  host: string;
  isDefault: boolean;
  scheme: string | null;
  notFoundRedirect: string | null;
  rootRedirect: string | null;
  links: number;
}

interface LinkBody {
  domain: string;
  code: string;
  shortUrl: string;
  url: string;
}

interface Problem {
  status: number;
  detail: string;
  field?: string;
}

const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;

/** Kurz with s2.kurz.test added through the API. */
async function withS2(t: Parameters<typeof startKurz>[0], settings: Record<string, unknown> = {}): Promise<TestKurz> {
  const k = await startKurz(t, settings);
  const res = await k.postJson('/api/v1/domains', { host: 's2.kurz.test' });
  t.is(res.status, 201);
  return k;
}

test('POST /api/v1/domains adds a domain: 201, its Location, and GET lists it with the default first', async (t) => {
  const k = await startKurz(t);
  const res = await k.postJson('/api/v1/domains', {
    host: 'S2.Kurz.Test.',
    scheme: 'http',
    notFoundRedirect: 'https://example.com/lost',
    rootRedirect: 'https://example.com/home',
  });
  t.is(res.status, 201);
  t.is(res.headers.get('location'), '/api/v1/domains/s2.kurz.test');
  t.like(await json<DomainBody>(res), {
    host: 's2.kurz.test',
    isDefault: false,
    scheme: 'http',
    notFoundRedirect: 'https://example.com/lost',
    rootRedirect: 'https://example.com/home',
    links: 0,
  });
  const { domains } = await json<{ domains: DomainBody[] }>(await k.get('/api/v1/domains'));
  t.deepEqual(
    domains.map((d) => [d.host, d.isDefault]),
    [
      ['kurz.test', true],
      ['s2.kurz.test', false],
    ],
  );
  t.like(await json<DomainBody>(await k.get('/api/v1/domains/s2.kurz.test')), { host: 's2.kurz.test', scheme: 'http' });
  t.like(await json<DomainBody>(await k.get('/api/v1/domains/kurz.test')), { host: 'kurz.test', isDefault: true });
});

test('adding is refused precisely: a bad host, a taken host, the publicUrl’s host, a bad redirect, an unknown field', async (t) => {
  const k = await withS2(t);
  const refusals: Array<[unknown, number, string]> = [
    [{}, 400, 'host'],
    [{ host: 'https://s3.kurz.test/' }, 400, 'host'],
    [{ host: 's3.kurz.test:8080' }, 400, 'host'],
    [{ host: '10.0.0.1' }, 400, 'host'],
    [{ host: 'nodot' }, 400, 'host'],
    [{ host: 's2.kurz.test' }, 409, 'host'],
    [{ host: 'KURZ.TEST' }, 409, 'host'],
    [{ host: 's3.kurz.test', scheme: 'ftp' }, 400, 'scheme'],
    [{ host: 's3.kurz.test', notFoundRedirect: 'javascript:alert(1)' }, 400, 'notFoundRedirect'],
    [{ host: 's3.kurz.test', rootRedirect: 'https://s2.kurz.test/x' }, 400, 'rootRedirect'],
    [{ host: 's3.kurz.test', owner: 'me' }, 400, 'owner'],
  ];
  for (const [body, status, field] of refusals) {
    const res = await k.postJson('/api/v1/domains', body);
    t.is(res.status, status, JSON.stringify(body));
    t.is((await json<Problem>(res)).field, field, JSON.stringify(body));
  }
  t.is((await json<{ domains: unknown[] }>(await k.get('/api/v1/domains'))).domains.length, 2);
});

test('PATCH sets the fields given and null clears one; 404 for an unknown host, 400 for no field', async (t) => {
  const k = await withS2(t);
  const set = await k.request('PATCH', '/api/v1/domains/s2.kurz.test', { rootRedirect: 'https://example.com/root', scheme: 'http' });
  t.is(set.status, 200);
  t.like(await json<DomainBody>(set), { rootRedirect: 'https://example.com/root', scheme: 'http' });
  const cleared = await k.request('PATCH', '/api/v1/domains/s2.kurz.test', { rootRedirect: null });
  t.like(await json<DomainBody>(cleared), { rootRedirect: null, scheme: 'http' });
  t.is((await k.request('PATCH', '/api/v1/domains/s9.kurz.test', { scheme: 'http' })).status, 404);
  t.is((await k.get('/api/v1/domains/s9.kurz.test')).status, 404);
  const none = await k.request('PATCH', '/api/v1/domains/s2.kurz.test', {});
  t.is(none.status, 400);
  t.is((await k.request('PATCH', '/api/v1/domains/s2.kurz.test', { host: 's4.kurz.test' })).status, 400);
});

test('DELETE is refused with 409 while live links use the domain, and for the default; 204 once none does', async (t) => {
  const k = await withS2(t);
  const link = await json<LinkBody>(await k.postJson('/api/v1/links', { url: 'https://example.com/on-s2', domain: 's2.kurz.test' }));
  const refused = await k.request('DELETE', '/api/v1/domains/s2.kurz.test');
  t.is(refused.status, 409);
  t.regex((await json<Problem>(refused)).detail, /1 live link is on s2\.kurz\.test/);
  t.is((await k.request('DELETE', '/api/v1/domains/kurz.test')).status, 409);
  t.is((await k.request('DELETE', `/api/v1/links/${link.code}?domain=s2.kurz.test`)).status, 204);
  t.is((await k.request('DELETE', '/api/v1/domains/s2.kurz.test')).status, 204);
  t.is((await k.request('DELETE', '/api/v1/domains/s2.kurz.test')).status, 404);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/x', domain: 's2.kurz.test' })).status, 400);
});

test('the same alias on two domains: two links, each read, edited and deleted by its own ?domain', async (t) => {
  const k = await withS2(t);
  const one = await k.postJson('/api/v1/links', { url: 'https://example.com/default-go', alias: 'go' });
  const two = await k.postJson('/api/v1/links', { url: 'https://example.com/s2-go', alias: 'go', domain: 's2.kurz.test' });
  t.is(one.status, 201);
  t.is(two.status, 201);
  t.is(two.headers.get('location'), '/api/v1/links/go?domain=s2.kurz.test');
  t.like(await json<LinkBody>(two), { domain: 's2.kurz.test', shortUrl: 'https://s2.kurz.test/go' });
  t.like(await json<LinkBody>(await k.get('/api/v1/links/go')), { url: 'https://example.com/default-go', domain: 'kurz.test' });
  t.like(await json<LinkBody>(await k.get('/api/v1/links/go?domain=S2.kurz.test')), { url: 'https://example.com/s2-go' });
  const edited = await k.request('PATCH', '/api/v1/links/go?domain=s2.kurz.test', { url: 'https://example.com/s2-edited' });
  t.is(edited.status, 200);
  t.like(await json<LinkBody>(await k.get('/api/v1/links/go')), { url: 'https://example.com/default-go' });
  t.is((await getWithHost(k.base, 's2.kurz.test', '/go')).location, 'https://example.com/s2-edited');
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/again', alias: 'go', domain: 's2.kurz.test' })).status, 409);
});

test('a code on one domain is 404 on another through every link route; an unknown domain is a 400 naming it', async (t) => {
  const k = await withS2(t);
  await k.postJson('/api/v1/domains', { host: 's3.kurz.test' });
  const link = await json<LinkBody>(await k.postJson('/api/v1/links', { url: 'https://example.com/only-s2', domain: 's2.kurz.test' }));
  for (const path of ['', '/qr', '/stats']) {
    t.is((await k.get(`/api/v1/links/${link.code}${path}?domain=s2.kurz.test`)).status, 200, path);
    t.is((await k.get(`/api/v1/links/${link.code}${path}`)).status, 404, `${path} on the default domain`);
    t.is((await k.get(`/api/v1/links/${link.code}${path}?domain=s3.kurz.test`)).status, 404, `${path} on s3`);
    const unknown = await k.get(`/api/v1/links/${link.code}${path}?domain=nowhere.test`);
    t.is(unknown.status, 400, path);
    t.is((await json<Problem>(unknown)).field, 'domain');
    t.is((await k.get(`/api/v1/links/${link.code}${path}?domain=a/b`)).status, 400, path);
  }
  t.is((await k.request('PATCH', `/api/v1/links/${link.code}`, { title: 'x' })).status, 404);
  t.is((await k.request('DELETE', `/api/v1/links/${link.code}?domain=s3.kurz.test`)).status, 404);
  t.is((await k.request('PATCH', `/api/v1/links/${link.code}?domain=nowhere.test`, { title: 'x' })).status, 400);
  t.is((await k.get(`/api/v1/links/${link.code}?domain=s2.kurz.test&domain=s3.kurz.test`)).status, 400);
});

test('the QR code of a link on another domain encodes that domain’s short URL', async (t) => {
  const k = await withS2(t);
  await k.request('PATCH', '/api/v1/domains/s2.kurz.test', { scheme: 'http' });
  const link = await json<LinkBody>(
    await k.postJson('/api/v1/links', { url: 'https://example.com/qr', alias: 'pic', domain: 's2.kurz.test' }),
  );
  t.is(link.shortUrl, 'http://s2.kurz.test/pic');
  const { default: QRCode } = await import('qrcode');
  const expected = await QRCode.toString('http://s2.kurz.test/pic', { errorCorrectionLevel: 'M', margin: 2, type: 'svg', width: 256 });
  const svg = await (await k.get('/api/v1/links/pic/qr?domain=s2.kurz.test')).text();
  t.is(svg, expected);
  const other = await QRCode.toString('https://kurz.test/pic', { errorCorrectionLevel: 'M', margin: 2, type: 'svg', width: 256 });
  t.not(svg, other);
});

test('PATCH domain moves a link to another domain, 409 when its code is taken there', async (t) => {
  const k = await withS2(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/a', alias: 'taken' });
  await k.postJson('/api/v1/links', { url: 'https://example.com/b', alias: 'taken', domain: 's2.kurz.test' });
  const clash = await k.request('PATCH', '/api/v1/links/taken?domain=s2.kurz.test', { domain: 'kurz.test' });
  t.is(clash.status, 409);
  const link = await json<LinkBody>(await k.postJson('/api/v1/links', { url: 'https://example.com/mover' }));
  const moved = await k.request('PATCH', `/api/v1/links/${link.code}`, { domain: 's2.kurz.test' });
  t.is(moved.status, 200);
  t.like(await json<LinkBody>(moved), { domain: 's2.kurz.test', shortUrl: `https://s2.kurz.test/${link.code}` });
  t.is((await k.get(`/api/v1/links/${link.code}`)).status, 404);
  t.is((await k.get(`/api/v1/links/${link.code}?domain=s2.kurz.test`)).status, 200);
  const unknown = await k.request('PATCH', `/api/v1/links/${link.code}?domain=s2.kurz.test`, { domain: 'nowhere.test' });
  t.is(unknown.status, 400);
  t.is((await json<Problem>(unknown)).field, 'domain');
});

test('the list, the search and the export filter by ?domain; batch entries name their domain', async (t) => {
  const k = await withS2(t);
  const batch = await k.postJson('/api/v1/links/batch', {
    links: [
      { url: 'https://example.com/d1', alias: 'd1' },
      { url: 'https://example.com/s1', alias: 's1', domain: 's2.kurz.test' },
      { url: 'https://example.com/bad', domain: 'nowhere.test' },
    ],
  });
  const results = (await json<{ results: Array<{ status: string; error?: Problem }> }>(batch)).results;
  t.deepEqual(
    results.map((r) => r.status),
    ['created', 'created', 'error'],
  );
  t.is(results[2]?.error?.field, 'domain');
  const codes = async (query: string) =>
    (await json<{ links: LinkBody[] }>(await k.get(`/api/v1/links${query}`))).links.map((l) => `${l.domain}/${l.code}`);
  t.deepEqual(await codes(''), ['s2.kurz.test/s1', 'kurz.test/d1']);
  t.deepEqual(await codes('?domain=s2.kurz.test'), ['s2.kurz.test/s1']);
  t.deepEqual(await codes('?domain=kurz.test'), ['kurz.test/d1']);
  t.deepEqual(await codes('?domain=s2.kurz.test&q=example'), ['s2.kurz.test/s1']);
  t.is((await k.get('/api/v1/links?domain=nowhere.test')).status, 400);
  const exported = await (await k.get('/api/v1/export?what=links&format=ndjson&domain=s2.kurz.test')).text();
  const lines = exported
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { code: string; domain: string | null });
  t.deepEqual(
    lines.map((l) => [l.code, l.domain]),
    [['s1', 's2.kurz.test']],
  );
  const visits = await k.get('/api/v1/export?what=visits&domain=s2.kurz.test');
  t.is(visits.status, 400);
  t.is((await json<Problem>(visits)).field, 'domain');
});

test('changing domains needs the domains scope; reading them links:read; keys made before keep what they had', async (t) => {
  const k = await startKurz(t);
  const { access } = k.kurz.services;
  const reader = (await access.createKey(1, 'reader')).secret;
  const domainsKey = (await access.createKey(1, 'domains', { scopes: ['domains'] })).secret;
  const as = (key: string, method: string, path: string, body?: unknown) =>
    k.request(method, path, body, { authorization: `Bearer ${key}` });
  t.is((await as(reader, 'GET', '/api/v1/domains')).status, 200);
  t.is((await as(reader, 'POST', '/api/v1/domains', { host: 's2.kurz.test' })).status, 403);
  t.is((await as(domainsKey, 'POST', '/api/v1/domains', { host: 's2.kurz.test' })).status, 201);
  t.is((await as(reader, 'PATCH', '/api/v1/domains/s2.kurz.test', { scheme: 'http' })).status, 403);
  t.is((await as(reader, 'DELETE', '/api/v1/domains/s2.kurz.test')).status, 403);
  t.is((await as(domainsKey, 'GET', '/api/v1/domains')).status, 403, 'reading needs links:read');
  t.is((await as(domainsKey, 'DELETE', '/api/v1/domains/s2.kurz.test')).status, 204);
  t.is((await as(k.key, 'POST', '/api/v1/domains', { host: 's3.kurz.test' })).status, 201, 'admin may');
});

test('GET / of a visitor goes to the domain’s root redirect; the signed-in admin gets the dashboard', async (t) => {
  const k = await withS2(t);
  await k.request('PATCH', '/api/v1/domains/s2.kurz.test', { rootRedirect: 'https://example.com/s2-home' });
  const visitor = await getWithHost(k.base, 's2.kurz.test', '/');
  t.is(visitor.status, 302);
  t.is(visitor.location, 'https://example.com/s2-home');
  t.is(visitor.cache, 'no-store');
  t.is((await getWithHost(k.base, 'kurz.test', '/')).location, '/login', 'the default domain has none');
  const cookie = await k.login();
  const admin = await fetch(`${k.base}/`, { headers: { cookie, host: 's2.kurz.test' }, redirect: 'manual' });
  t.is(admin.status, 200);
});

test('with unknownHosts refuse, / on an unknown Host is 421', async (t) => {
  const k = await withS2(t, { unknownHosts: 'refuse' });
  t.is((await getWithHost(k.base, 'elsewhere.test', '/')).status, 421);
  t.is((await getWithHost(k.base, 's2.kurz.test', '/')).location, '/login');
});

test('a password link on s2 is unlocked by the form posted to s2, not by the default domain’s link', async (t) => {
  const k = await withS2(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/default-secret', alias: 'sec' });
  await k.postJson('/api/v1/links', {
    url: 'https://example.com/s2-secret',
    alias: 'sec',
    domain: 's2.kurz.test',
    password: 'open sesame',
  });
  const { port } = new URL(k.base);
  const { request } = await import('node:http');
  const post = (host: string) =>
    new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/links/sec/unlock', method: 'POST', headers: { host, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ password: 'open sesame' }));
    });
  const unlocked = await post('s2.kurz.test');
  t.is(unlocked.status, 303);
  t.is(unlocked.location, 'https://example.com/s2-secret');
  t.is((await post('kurz.test')).location, 'https://example.com/default-secret', 'the default domain’s sec is another link');
});
