import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { BROWSER_UA, startKurz, type TestKurz } from '../helpers.ts';

// kurz's answers under /rest checked against Shlink's own OpenAPI description (test/fixtures/shlink/, from
// Shlink's repository): each status must be one the operation lists (or its `default`), with its media type,
// and each JSON body must validate against the schema given there.

const SWAGGER = join(import.meta.dirname, '../fixtures/shlink/swagger.json');

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** The description with every `$ref` to another file replaced by that file's content (resolved from the file it is in). */
function resolved(node: unknown, dir: string): unknown {
  if (Array.isArray(node)) return node.map((item) => resolved(item, dir));
  if (typeof node !== 'object' || node === null) return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && !ref.startsWith('#')) {
    const file = join(dir, ref);
    return resolved(JSON.parse(readFileSync(file, 'utf8')), dirname(file));
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolved(value, dir)]));
}

const description = resolved(JSON.parse(readFileSync(SWAGGER, 'utf8')), dirname(SWAGGER)) as {
  paths: Record<string, Partial<Record<Method, Operation & { requestBody?: unknown }>>>;
};

/**
 * The one place the description is read wider than written: creation's 400 lists in `invalidElements` only
 * the optional fields, while Shlink's own validation names any field it refuses (`longUrl`, `tags`, …). The
 * names allowed are every field of the request body, so a name of kurz's own (`url`, `alias`) still fails.
 */
function widenInvalidElements(): void {
  const create = description.paths['/rest/v{version}/short-urls']!.post! as unknown as {
    requestBody: { content: { 'application/json': { schema: { allOf: Array<{ properties: Record<string, unknown> }> } } } };
    responses: Record<
      string,
      { content: Record<string, { schema: { allOf: Array<{ properties?: Record<string, { items?: { enum?: string[] } }> }> } }> }
    >;
  };
  const fields = create.requestBody.content['application/json'].schema.allOf.flatMap((part) => Object.keys(part.properties));
  const items = create.responses['400']!.content['application/problem+json']!.schema.allOf[1]!.properties!['invalidElements']!.items!;
  refuseKurzFields(fields);
  items.enum = fields;
}

/** The body's fields as Shlink names them: what the widening above may allow, and nothing of kurz's. */
function refuseKurzFields(fields: readonly string[]): void {
  if (!fields.includes('longUrl') || fields.includes('url')) throw new Error(`unexpected body fields: ${fields.join(', ')}`);
}
widenInvalidElements();

/**
 * Checks an answer against the operation at `path` (as the description names it, e.g.
 * `/rest/v{version}/short-urls`); returns the parsed body. Shlink's health route sends
 * `application/health+json` (its HealthAction does, whatever its description lists), checked against the
 * description's `application/json` schema.
 */
function checker(t: ExecutionContext) {
  // Shlink's schemas carry `example`s and other words a strict Ajv refuses: they are read as Shlink wrote them.
  const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
  ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
  return async (res: Response, method: Method, path: string): Promise<unknown> => {
    const what = `${method.toUpperCase()} ${path} ${res.status}`;
    const operation = description.paths[path]?.[method];
    if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not in Shlink's description`);
    const response = operation.responses[String(res.status)] ?? operation.responses['default'];
    if (!response) throw new Error(`${what}: the status is not in Shlink's description`);
    const body = await res.text();
    if (!response.content) {
      t.is(body, '', `${what} has no body`);
      return undefined;
    }
    const type = res.headers.get('content-type')?.split(';')[0] ?? '';
    const media = response.content[type] ?? (type === 'application/health+json' ? response.content['application/json'] : undefined);
    if (!media?.schema) throw new Error(`${what}: ${type} is not in Shlink's description`);
    const value: unknown = JSON.parse(body);
    const validate = ajv.compile(media.schema as object);
    t.true(validate(value), `${what}: ${ajv.errorsText(validate.errors)}\n${body}`);
    return value;
  };
}

function client(k: TestKurz) {
  return (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${k.base}${path}`, {
      method,
      headers: { 'x-api-key': k.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
}

test("kurz's answers to every Shlink operation it serves validate against Shlink's OpenAPI description", async (t) => {
  const k = await startKurz(t);
  const check = checker(t);
  const call = client(k);
  t.is((await k.postJson('/api/v1/domains', { host: 'short.test' })).status, 201);

  const health = await fetch(`${k.base}/rest/health`);
  t.is(health.headers.get('content-type'), 'application/health+json');
  t.like(await check(health, 'get', '/rest/health'), { status: 'pass' });
  await check(await fetch(`${k.base}/rest/v3/health`), 'get', '/rest/health');
  const wrongKey = await fetch(`${k.base}/rest/v3/health`, { headers: { 'x-api-key': 'revoked-or-wrong' } });
  t.is(wrongKey.status, 200, 'health reads no key, as Shlink: a client with a bad key still learns the version');

  const full = {
    longUrl: 'https://example.com/full',
    customSlug: 'full',
    tags: ['a', 'b'],
    title: 'Full',
    validSince: '2026-01-01T00:00:00+00:00',
    validUntil: '2027-01-01T00:00:00+00:00',
    maxVisits: 3,
    crawlable: true,
    forwardQuery: true,
    findIfExists: false,
    shortCodeLength: 5,
  };
  t.like(await check(await call('POST', '/rest/v3/short-urls', full), 'post', '/rest/v{version}/short-urls'), {
    meta: { validSince: '2026-01-01T00:00:00+00:00', validUntil: '2027-01-01T00:00:00+00:00', maxVisits: 3 },
    crawlable: true,
  });
  await check(
    await call('POST', '/rest/v3/short-urls', { longUrl: 'https://example.com/x', domain: 'short.test' }),
    'post',
    '/rest/v{version}/short-urls',
  );
  t.like(await check(await call('POST', '/rest/v3/short-urls', { ...full, customSlug: 'full' }), 'post', '/rest/v{version}/short-urls'), {
    type: 'https://shlink.io/api/error/non-unique-slug',
  });
  t.like(await check(await call('POST', '/rest/v3/short-urls', { longUrl: 'ftp://x' }), 'post', '/rest/v{version}/short-urls'), {
    type: 'https://shlink.io/api/error/invalid-data',
    invalidElements: ['longUrl'],
  });
  const visit = await fetch(`${k.base}/full`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  t.is(visit.status, 302);
  await k.flushVisits();

  const list = (await check(
    await call('GET', '/rest/v3/short-urls?itemsPerPage=1&orderBy=visits-DESC'),
    'get',
    '/rest/v{version}/short-urls',
  )) as {
    shortUrls: { data: Array<{ shortCode: string }> };
  };
  t.deepEqual(
    list.shortUrls.data.map((s) => s.shortCode),
    ['full'],
  );
  await check(await call('GET', '/rest/v3/short-urls/full'), 'get', '/rest/v{version}/short-urls/{shortCode}');
  await check(await call('GET', '/rest/v3/short-urls/nope'), 'get', '/rest/v{version}/short-urls/{shortCode}');
  await check(
    await call('PATCH', '/rest/v3/short-urls/full', { title: null, maxVisits: null }),
    'patch',
    '/rest/v{version}/short-urls/{shortCode}',
  );
  await check(await call('PATCH', '/rest/v3/short-urls/full', { maxVisits: 'many' }), 'patch', '/rest/v{version}/short-urls/{shortCode}');
  await check(await call('GET', '/rest/v3/short-urls/full/visits'), 'get', '/rest/v{version}/short-urls/{shortCode}/visits');
  const rules = {
    redirectRules: [
      { longUrl: 'https://example.com/ios', conditions: [{ type: 'device', matchKey: null, matchValue: 'ios' }] },
      { longUrl: 'https://example.com/q', conditions: [{ type: 'any-value-query-param', matchKey: 'ref', matchValue: null }] },
    ],
  };
  const rulesPath = '/rest/v{version}/short-urls/{shortCode}/redirect-rules';
  t.like(await check(await call('POST', '/rest/v3/short-urls/full/redirect-rules', rules), 'post', rulesPath), {
    defaultLongUrl: 'https://example.com/full',
  });
  await check(await call('GET', '/rest/v3/short-urls/full/redirect-rules'), 'get', rulesPath);
  await check(await call('GET', '/rest/v3/short-urls/nope/redirect-rules'), 'get', rulesPath);
  await check(await call('POST', '/rest/v3/short-urls/full/redirect-rules', { redirectRules: 'all' }), 'post', rulesPath);
  await check(await call('GET', '/rest/v3/tags/a/visits'), 'get', '/rest/v{version}/tags/{tag}/visits');
  await check(await call('GET', '/rest/v3/domains/DEFAULT/visits'), 'get', '/rest/v{version}/domains/{domain}/visits');
  await check(await call('GET', '/rest/v3/visits/non-orphan?excludeBots=true'), 'get', '/rest/v{version}/visits/non-orphan');
  await check(await call('GET', '/rest/v3/visits/orphan'), 'get', '/rest/v{version}/visits/orphan');
  await check(await call('DELETE', '/rest/v3/visits/orphan'), 'delete', '/rest/v{version}/visits/orphan');
  await check(await call('GET', '/rest/v3/visits'), 'get', '/rest/v{version}/visits');
  await check(await call('GET', '/rest/v3/tags'), 'get', '/rest/v{version}/tags');
  await check(await call('GET', '/rest/v3/tags/stats'), 'get', '/rest/v{version}/tags/stats');
  await check(await call('PUT', '/rest/v3/tags', { oldName: 'b', newName: 'c' }), 'put', '/rest/v{version}/tags');
  await check(await call('PUT', '/rest/v3/tags', { oldName: 'zzz', newName: 'y' }), 'put', '/rest/v{version}/tags');
  await check(await call('PUT', '/rest/v3/tags', { oldName: 'a', newName: 'c' }), 'put', '/rest/v{version}/tags');
  await check(await call('DELETE', '/rest/v3/tags?tags[]=c'), 'delete', '/rest/v{version}/tags');
  await check(await call('GET', '/rest/v3/domains'), 'get', '/rest/v{version}/domains');
  await check(
    await call('PATCH', '/rest/v3/domains/redirects', { domain: 'short.test', baseUrlRedirect: 'https://example.com/' }),
    'patch',
    '/rest/v{version}/domains/redirects',
  );
  await check(await call('PATCH', '/rest/v3/domains/redirects', { baseUrlRedirect: 'x' }), 'patch', '/rest/v{version}/domains/redirects');
  t.like(await check(await call('GET', '/rest/v3/mercure-info'), 'get', '/rest/v{version}/mercure-info'), { status: 501 });
  await check(await call('DELETE', '/rest/v3/short-urls/full'), 'delete', '/rest/v{version}/short-urls/{shortCode}');
  await check(await call('DELETE', '/rest/v3/short-urls/full'), 'delete', '/rest/v{version}/short-urls/{shortCode}');
  t.like(await check(await fetch(`${k.base}/rest/v3/short-urls`), 'get', '/rest/v{version}/short-urls'), {
    type: 'https://shlink.io/api/error/missing-authentication',
    status: 401,
  });
  t.like(await check(await call('GET', '/rest/v3/tags', undefined, { 'x-api-key': 'wrong' }), 'get', '/rest/v{version}/tags'), {
    type: 'https://shlink.io/api/error/invalid-api-key',
    status: 401,
  });
});

test('/rest/v1 and /rest/v2 answer as /rest/v3; other versions and paths are Shlink 404s; a route takes only its methods', async (t) => {
  const k = await startKurz(t);
  const call = client(k);
  t.is((await call('POST', '/rest/v3/short-urls', { longUrl: 'https://example.com/v', customSlug: 'same' })).status, 200);
  const v3 = await (await call('GET', '/rest/v3/short-urls/same')).json();
  for (const version of ['v1', 'v2']) t.deepEqual(await (await call('GET', `/rest/${version}/short-urls/same`)).json(), v3, version);
  for (const path of ['/rest/v4/short-urls', '/rest/short-urls', '/rest', '/rest/v3/nothing', '/rest/v3/short-urls/same/nothing']) {
    const res = await call('GET', path);
    t.is(res.status, 404, path);
    t.is(res.headers.get('content-type'), 'application/problem+json', path);
    t.deepEqual(await res.json(), {
      type: 'https://shlink.io/api/error/not-found',
      title: 'Not Found',
      detail: `Cannot GET ${path}`,
      status: 404,
    });
  }
  const wrongMethod = await call('PUT', '/rest/v3/short-urls/same', {});
  t.is(wrongMethod.status, 405);
  t.is(wrongMethod.headers.get('allow'), 'HEAD, GET, PATCH, DELETE');
  t.like(await wrongMethod.json(), { status: 405, title: 'Method Not Allowed' });
  t.is((await fetch(`${k.base}/rest/v3/short-urls/same`, { redirect: 'manual' })).status, 401, 'not a redirect: rest is reserved');
  t.is((await call('POST', '/api/v1/links', undefined)).status, 400, "kurz's own API keeps its own errors");
  t.like(await (await call('POST', '/rest/v3/short-urls', { longUrl: 'https://example.com/r', customSlug: 'REST' })).json(), {
    invalidElements: ['customSlug'],
  });
});

test('CORS as Shlink answers it: any origin, a preflight 204 with the path’s methods and the requested headers, no key needed', async (t) => {
  const k = await startKurz(t);
  const origin = 'https://app.shlink.io';
  const preflight = await fetch(`${k.base}/rest/v3/short-urls`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' },
  });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get('access-control-allow-origin'), '*');
  t.is(preflight.headers.get('access-control-allow-methods'), 'GET,POST');
  t.is(preflight.headers.get('access-control-allow-headers'), 'content-type,x-api-key');
  t.is(preflight.headers.get('access-control-max-age'), '3600');
  t.is(await preflight.text(), '');
  const tags = await fetch(`${k.base}/rest/v3/tags`, { method: 'OPTIONS', headers: { origin } });
  t.is(tags.headers.get('access-control-allow-methods'), 'GET,PUT,DELETE');
  const unknown = await fetch(`${k.base}/rest/v3/foo/bar`, { method: 'OPTIONS', headers: { origin } });
  t.is(unknown.status, 204);
  t.is(unknown.headers.get('access-control-allow-methods'), 'GET,POST,PUT,PATCH,DELETE', 'a path no route takes: every method, as Shlink');

  const withOrigin = await fetch(`${k.base}/rest/v3/short-urls`, { headers: { origin, 'x-api-key': k.key } });
  t.is(withOrigin.status, 200);
  t.is(withOrigin.headers.get('access-control-allow-origin'), '*');
  t.is(withOrigin.headers.get('access-control-allow-methods'), null, 'the extra headers are the preflight’s alone');
  const refused = await fetch(`${k.base}/rest/v3/short-urls`, { headers: { origin } });
  t.is(refused.status, 401);
  t.is(refused.headers.get('access-control-allow-origin'), '*', 'a browser client can read the refusal');
  const noOrigin = await fetch(`${k.base}/rest/v3/short-urls`, { headers: { 'x-api-key': k.key } });
  t.is(noOrigin.headers.get('access-control-allow-origin'), null, 'no Origin, no CORS headers');
  const own = await fetch(`${k.base}/api/v1/links`, { headers: { origin, authorization: `Bearer ${k.key}` } });
  t.is(own.headers.get('access-control-allow-origin'), null, "kurz's own API stays same-origin");
});

test("hostile queries and bodies are Shlink's 4xx problems naming what was wrong, never a 500, and store nothing", async (t) => {
  const k = await startKurz(t);
  const call = client(k);
  const refused = async (method: string, path: string, body: unknown, status: number, invalidElements?: string[]) => {
    const res = await fetch(`${k.base}${path}`, {
      method,
      headers: { 'x-api-key': k.key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    t.is(res.status, status, `${method} ${path}`);
    t.is(res.headers.get('content-type'), 'application/problem+json', `${method} ${path}`);
    const problem = (await res.json()) as Record<string, unknown>;
    t.regex(String(problem['type']), /^https:\/\/shlink\.io\/api\/error\//, `${method} ${path}`);
    t.is(problem['status'], status);
    if (invalidElements) t.deepEqual(problem['invalidElements'], invalidElements, `${method} ${path}`);
  };
  const list = '/rest/v3/short-urls';
  await refused('GET', `${list}?page=99999999&itemsPerPage=100000`, undefined, 400, ['page']);
  await refused('GET', `${list}?page=abc`, undefined, 400, ['page']);
  await refused('GET', `${list}?page=1&page=2`, undefined, 400, ['page']);
  await refused('GET', `${list}?itemsPerPage=1.5`, undefined, 400, ['itemsPerPage']);
  await refused('GET', `${list}?itemsPerPage=-2`, undefined, 400, ['itemsPerPage']);
  await refused('GET', `${list}?${Array.from({ length: 21 }, (_, i) => `tags[]=t${i}`).join('&')}`, undefined, 400, ['tags']);
  await refused('GET', `${list}?searchTerm=a%00b`, undefined, 400, ['searchTerm']);
  await refused('GET', `${list}?searchTerm=${'x'.repeat(201)}`, undefined, 400, ['searchTerm']);
  await refused('GET', `${list}?orderBy=visits-SIDEWAYS`, undefined, 400, ['orderBy']);
  await refused('GET', `${list}?startDate=yesterday`, undefined, 400, ['startDate']);
  await refused('GET', `${list}?endDate=2026-02-30`, undefined, 400, ['endDate']);
  await refused('GET', `${list}?tagsMode=some&tags[]=a`, undefined, 400, ['tagsMode']);
  await refused('GET', `${list}?excludeMaxVisitsReached=maybe`, undefined, 400, ['excludeMaxVisitsReached']);
  await refused('GET', '/rest/v3/visits/non-orphan?excludeBots=1', undefined, 400, ['excludeBots']);
  await refused('GET', '/rest/v3/visits/orphan?type=everything', undefined, 400, ['type']);
  await refused('GET', '/rest/v3/tags/stats?orderBy=size-ASC', undefined, 400, ['orderBy']);
  await refused('POST', list, 'not json', 400);
  await refused('POST', list, '[]', 400, []);
  await refused('POST', list, { longUrl: 5 }, 400, ['longUrl']);
  await refused('POST', list, { longUrl: 'https://example.com/x', findIfExists: 'yes' }, 400, ['findIfExists']);
  await refused('POST', list, { longUrl: 'https://example.com/x', tags: 'a,b' }, 400, ['tags']);
  await refused('POST', list, { longUrl: 'https://example.com/x', title: 'a\u0000b' }, 400, ['title']);
  await refused('POST', list, { longUrl: `https://example.com/${'x'.repeat(70_000)}` }, 413);
  await refused('PUT', '/rest/v3/tags', { oldName: 'a' }, 400, ['newName']);
  await refused('PATCH', '/rest/v3/domains/redirects', { domain: 'kurz.test', baseUrlRedirect: 'javascript:alert(1)' }, 400, [
    'baseUrlRedirect',
  ]);
  const plain = await fetch(`${k.base}${list}`, {
    method: 'POST',
    headers: { 'x-api-key': k.key, 'content-type': 'text/plain' },
    body: '{}',
  });
  t.is(plain.status, 415);
  t.like(await plain.json(), { status: 415 });
  for (const path of ['/rest/v3/short-urls/%00', '/rest/v3/short-urls/..%2F..', `/rest/v3/short-urls/${'x'.repeat(300)}`]) {
    const res = await call('GET', path);
    t.is(res.status, 404, path);
    t.like(await res.json(), { type: 'https://shlink.io/api/error/short-url-not-found' }, path);
  }
  t.is(await k.linkCount(), 0);
});

test("Shlink's routes are counted under their own names in kurz's request metrics", async (t) => {
  const k = await startKurz(t);
  const call = client(k);
  t.is((await call('GET', '/rest/v3/short-urls')).status, 200);
  t.is((await call('GET', '/rest/v2/short-urls')).status, 200);
  t.is((await call('GET', '/rest/v3/short-urls/nope')).status, 404);
  const metrics = await (await fetch(`${k.base}/metrics`)).text();
  t.regex(metrics, /kurz_http_requests_total\{route="GET \/rest\/:version\/short-urls",status="200"\} 2/);
  t.regex(metrics, /kurz_http_requests_total\{route="GET \/rest\/:version\/short-urls\/:shortCode",status="404"\} 1/);
});
