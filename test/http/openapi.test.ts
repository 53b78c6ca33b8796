import test, { type ExecutionContext } from 'ava';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createRenderer } from '../../src/http/respond.ts';
import { OPTION_FIELDS } from '../../src/links/link-options.ts';
import type { OpenApiDocument } from '../../src/web/openapi.ts';
import { SCOPES } from '../../src/auth/scopes.ts';
import { API_SCOPES, createRouter } from '../../src/web/routes.ts';
import { BROWSER_ACCEPT, BROWSER_UA, startKurz, type TestKurz } from '../helpers.ts';

type Document = OpenApiDocument & Record<string, unknown>;
type Method = 'get' | 'head' | 'post' | 'patch' | 'delete';

/** The document as kurz serves it, to anyone. */
async function servedDocument(k: TestKurz): Promise<Document> {
  const res = await fetch(`${k.base}/api/v1/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /api/v1/openapi.json: ${res.status}`);
  return (await res.json()) as Document;
}

/** One segment of a JSON pointer in a URI fragment. */
const segment = (name: string) => encodeURIComponent(name.replaceAll('~', '~0').replaceAll('/', '~1'));

/** The value at a JSON pointer (`/a/b`, unencoded segments escaped with ~0 ~1) of `doc`. */
function at(doc: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => decodeURIComponent(s).replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
}

/** Every `$ref` in `node`. */
function refsIn(node: unknown): string[] {
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => (key === '$ref' && typeof value === 'string' ? [value] : refsIn(value)));
}

/** Ajv in strict mode over the document's schemas, which refer to each other as `openapi.json#/…`. */
function compileDocument(doc: Document): Ajv2020 {
  const ajv = new Ajv2020({ allowUnionTypes: true });
  // The document's own fields are not schema keywords; naming them keeps strict mode on for the schemas.
  ajv.addVocabulary(Object.keys(doc));
  ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  ajv.addSchema(doc, 'openapi.json');
  return ajv;
}

/**
 * Checks a real answer against the document: its status is listed for the operation, its media type for
 * that status, and a JSON body validates against the schema given there. Returns the parsed body.
 */
function answerChecker(t: ExecutionContext, doc: Document) {
  const ajv = compileDocument(doc);
  return async (res: Response, method: Method, path: string): Promise<unknown> => {
    const what = `${method.toUpperCase()} ${path} ${res.status}`;
    const operation = doc.paths[path]?.[method];
    if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
    let pointer = `/paths/${segment(path)}/${method}/responses/${res.status}`;
    let response = operation.responses[String(res.status)];
    if (response && '$ref' in response) {
      pointer = response.$ref.slice(1);
      response = at(doc, pointer) as typeof response;
    }
    if (!response || '$ref' in response) throw new Error(`${what}: the status is not in the document`);
    const body = await res.text();
    if (!response.content) {
      t.is(body, '', `${what} has no body`);
      return undefined;
    }
    const type = res.headers.get('content-type')?.split(';')[0] ?? '';
    t.truthy(response.content[type], `${what}: ${type} is in the document`);
    if (!type.endsWith('json')) return body;
    const validate = ajv.getSchema(`openapi.json#${pointer}/content/${segment(type)}/schema`);
    if (!validate) throw new Error(`${what}: no schema for ${type}`);
    const value: unknown = JSON.parse(body);
    t.true(validate(value), `${what}: ${ajv.errorsText(validate.errors)}\n${body}`);
    return value;
  };
}

test('every route of the route table is in the document with its methods, and nothing else is', async (t) => {
  const k = await startKurz(t);
  const doc = await servedDocument(k);
  const router = createRouter({
    ...k.kurz.services,
    render: createRenderer(),
    pipeline: k.kurz.pipeline,
    scrapeMetrics: k.kurz.metrics.text,
  });
  const routes = new Set<string>();
  for (const layer of router.stack) {
    t.is(typeof layer.path, 'string', 'routes are paths, not patterns');
    const path = String(layer.path).replace(/:(\w+)/g, '{$1}');
    // The router answers HEAD for every GET route by itself; the document lists the GET.
    const methods = layer.methods.filter((m) => m !== 'HEAD' || !layer.methods.includes('GET'));
    t.true(methods.length > 0, `${layer.path} has methods`);
    for (const method of methods) routes.add(`${method.toLowerCase()} ${path}`);
  }
  t.true(routes.has('get /api/v1/links/{code}/qr'), 'the table was read');
  for (const route of routes) {
    const [method = '', path = ''] = route.split(' ');
    t.truthy(doc.paths[path]?.[method as Method], `${route} is in the document`);
  }
  // The other way round: everything documented is served by Koa, or is the edge's redirect.
  const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
  const edge = new Set(['get /{code}', 'head /{code}']);
  t.deepEqual(
    documented.filter((route) => !routes.has(route) && !edge.has(route)),
    [],
    'documented routes no route serves',
  );
});

test('the document is consistent: unique operation ids, path parameters declared, every $ref resolving, schemas strict', async (t) => {
  const k = await startKurz(t);
  const doc = await servedDocument(k);
  const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.values(item).map((operation) => ({ path, operation })));
  const ids = operations.map(({ operation }) => operation.operationId);
  t.deepEqual(
    ids.filter((id, i) => ids.indexOf(id) !== i),
    [],
    'duplicate operation ids',
  );
  for (const { path, operation } of operations) {
    const declared = (operation.parameters ?? []).map((p) => ('$ref' in p ? (at(doc, p.$ref.slice(1)) as { name: string }) : p).name);
    for (const [, name = ''] of path.matchAll(/\{(\w+)\}/g)) t.true(declared.includes(name), `${operation.operationId} declares {${name}}`);
  }
  for (const ref of new Set(refsIn(doc))) t.not(at(doc, ref.slice(1)), undefined, `${ref} resolves`);
  const ajv = compileDocument(doc);
  for (const name of Object.keys(doc.components.schemas)) {
    t.notThrows(() => ajv.getSchema(`openapi.json#/components/schemas/${name}`), `${name} compiles in strict mode`);
  }
});

test('the request schemas take exactly the fields the API takes', async (t) => {
  const doc = await servedDocument(await startKurz(t));
  const fieldsOf = (name: string) => Object.keys(doc.components.schemas[name]?.properties ?? {}).sort();
  // `domain`: the domain a link is created on, or moved to (issue 24).
  // `split`: the link's own A/B split; `pages`: its pages before the redirect (issue 26).
  // `codeLength`: the length of a generated code (Shlink's shortCodeLength, issue 28).
  t.deepEqual(fieldsOf('LinkCreate'), ['url', 'alias', 'codeLength', 'domain', 'split', 'pages', ...OPTION_FIELDS].sort());
  // `owner`: an admin hands a link to another user (issue 25); `pages`: its pages before the redirect (issue 26).
  t.deepEqual(fieldsOf('LinkEdit'), ['url', 'domain', 'owner', 'split', 'pages', ...OPTION_FIELDS].sort());
  // `users`: who may create links on the domain (issue 25).
  t.deepEqual(fieldsOf('DomainCreate'), ['host', 'notFoundRedirect', 'rootRedirect', 'scheme', 'users']);
  t.deepEqual(fieldsOf('DomainEdit'), ['notFoundRedirect', 'rootRedirect', 'scheme', 'users']);
});

test('the document is JSON, served as application/json to anyone, and describes itself', async (t) => {
  const k = await startKurz(t);
  const res = await fetch(`${k.base}/api/v1/openapi.json`);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  const doc = JSON.parse(await res.text()) as Document;
  t.is(doc.openapi, '3.1.0');
  t.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['apiKey', 'bearer', 'metricsKey', 'session']);
  const check = answerChecker(t, doc);
  await check(await k.get('/api/v1/openapi.json'), 'get', '/api/v1/openapi.json');
});

test('real answers of the JSON API validate against the document', async (t) => {
  const k = await startKurz(t);
  const check = answerChecker(t, await servedDocument(k));

  const full = {
    url: 'https://example.com/full',
    alias: 'full-link',
    title: 'Everything set',
    note: 'a note',
    tags: ['b', 'a'],
    expiresAt: '2027-01-01T00:00:00Z',
    maxVisits: 10,
    password: 'secret password',
    redirectStatus: 307,
    forwardQuery: true,
    enabled: true,
  };
  const created = (await check(await k.postJson('/api/v1/links', full), 'post', '/api/v1/links')) as { code: string };
  t.is(created.code, 'full-link');
  const plain = (await check(await k.postJson('/api/v1/links', { url: 'https://example.com/plain' }), 'post', '/api/v1/links')) as {
    code: string;
  };
  const again = await k.postJson('/api/v1/links', { url: 'https://example.com/plain' });
  t.is(again.status, 200);
  await check(again, 'post', '/api/v1/links');

  await check(await k.get(`/api/v1/links/${created.code}`), 'get', '/api/v1/links/{code}');
  const page = (await check(await k.get('/api/v1/links?limit=1'), 'get', '/api/v1/links')) as { nextCursor: string | null };
  t.not(page.nextCursor, null, 'a page with a next cursor');
  await check(await k.get(`/api/v1/links?limit=1&cursor=${page.nextCursor}`), 'get', '/api/v1/links');
  await check(
    await k.request('PATCH', `/api/v1/links/${created.code}`, { title: null, tags: 'x, y', maxVisits: null }),
    'patch',
    '/api/v1/links/{code}',
  );
  await check(await k.get('/api/v1/tags'), 'get', '/api/v1/tags');

  const batch = await k.postJson('/api/v1/links/batch', {
    links: [
      { url: 'https://example.com/new' },
      { url: 'https://example.com/plain' },
      { url: 'ftp://example.com/' },
      { url: 'https://example.com/', colour: 'red' },
    ],
  });
  const results = (await check(batch, 'post', '/api/v1/links/batch')) as { created: number; existing: number; failed: number };
  t.like(results, { created: 1, existing: 1, failed: 2 });

  await check(await k.get(`/api/v1/links/${plain.code}/qr?format=png`), 'get', '/api/v1/links/{code}/qr');
  await check(await k.get(`/api/v1/links/${plain.code}/qr`), 'get', '/api/v1/links/{code}/qr');

  const deleted = await k.request('DELETE', `/api/v1/links/${plain.code}`);
  t.is(deleted.status, 204);
  await check(deleted, 'delete', '/api/v1/links/{code}');
  await check(await k.get(`/api/v1/links/${plain.code}`), 'get', '/api/v1/links/{code}');
});

test('real problems validate against the document', async (t) => {
  const k = await startKurz(t);
  const check = answerChecker(t, await servedDocument(k));
  const invalid = await k.postJson('/api/v1/links', { url: 'not a url' });
  t.is(invalid.status, 400);
  t.like(await check(invalid, 'post', '/api/v1/links'), { code: 'invalid', field: 'url' });
  const anonymous = await fetch(`${k.base}/api/v1/links`);
  t.is(anonymous.status, 401);
  await check(anonymous, 'get', '/api/v1/links');
  const missing = await k.get('/api/v1/links/nope42');
  t.is(missing.status, 404);
  await check(missing, 'get', '/api/v1/links/{code}');
  const { code } = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/' })).json()) as { code: string };
  await k.request('DELETE', `/api/v1/links/${code}`);
  const gone = await k.request('PATCH', `/api/v1/links/${code}`, { title: 'too late' });
  t.is(gone.status, 410);
  await check(gone, 'patch', '/api/v1/links/{code}');
  const taken = await k.postJson('/api/v1/links', { url: 'https://example.com/', alias: code });
  t.is(taken.status, 409);
  await check(taken, 'post', '/api/v1/links');
  const badQr = await k.get(`/api/v1/links/${code}/qr?size=1`);
  t.is(badQr.status, 400);
  await check(badQr, 'get', '/api/v1/links/{code}/qr');
});

test('the redirect and the health check answer as documented', async (t) => {
  const k = await startKurz(t);
  const check = answerChecker(t, await servedDocument(k));
  await check(await k.get('/healthz'), 'get', '/healthz');
  const { code } = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/' })).json()) as { code: string };
  await check(await k.get(`/${code}`), 'get', '/{code}');
  await check(await k.get('/nope42', { accept: 'application/json' }), 'get', '/{code}');
  const locked = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/l', password: 'password' })).json()) as {
    code: string;
  };
  await check(await k.get(`/${locked.code}`), 'get', '/{code}');
});

test("a link's stats answer as documented, with its variants and its visits by rule", async (t) => {
  const k = await startKurz(t);
  const check = answerChecker(t, await servedDocument(k));
  const split = [
    { url: 'https://example.com/a', weight: 1 },
    { url: 'https://example.com/b', weight: 1 },
  ];
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/ruled', alias: 'ruled', split })).status, 201);
  const rules = [{ conditions: [{ type: 'language', matchValue: 'de' }], target: 'https://example.de/' }];
  t.is((await k.request('PUT', '/api/v1/links/ruled/rules', { rules })).status, 200);
  for (const language of ['de', 'fr']) {
    const res = await fetch(`${k.base}/ruled`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA, 'accept-language': language } });
    await res.arrayBuffer();
  }
  await k.flushVisits();
  const stats = (await check(await k.get('/api/v1/links/ruled/stats'), 'get', '/api/v1/links/{code}/stats')) as {
    rules: unknown[];
    variants: unknown[];
  };
  t.is(stats.rules.length, 2, 'the German rule and no rule');
  t.is(stats.variants.length, 1, "the French visit drew a variant of the link's own split");
});

test('pages answer as documented: HTML for a session, the login for a browser without one', async (t) => {
  const k = await startKurz(t);
  const check = answerChecker(t, await servedDocument(k));
  const cookie = await k.login();
  const html = { cookie, accept: BROWSER_ACCEPT };
  await check(await fetch(`${k.base}/links`, { headers: html }), 'get', '/links');
  await check(await fetch(`${k.base}/settings`, { headers: html }), 'get', '/settings');
  await check(await fetch(`${k.base}/links`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' }), 'get', '/links');
  await check(await fetch(`${k.base}/links`), 'get', '/links');
  await check(await fetch(`${k.base}/assets/kurz.css`), 'get', '/assets/{name}');
});

test('limits answer as documented: 429 with Retry-After, 413, 414', async (t) => {
  const k = await startKurz(t, { creationRateLimit: 1, notFoundRateLimit: 1 });
  const doc = await servedDocument(k);
  const check = answerChecker(t, doc);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/1' })).status, 201);
  const limited = await k.postJson('/api/v1/links', { url: 'https://example.com/2' });
  t.is(limited.status, 429);
  t.like(await check(limited, 'post', '/api/v1/links'), { code: 'rate_limited' });
  t.truthy(doc.components.responses['RateLimited']?.headers?.['Retry-After'], 'Retry-After is documented');
  const large = await k.request('PATCH', '/api/v1/links/x', { title: 'x'.repeat(70_000) });
  t.is(large.status, 413);
  await check(large, 'patch', '/api/v1/links/{code}');
  const long = await k.get(`/api/v1/links?q=${'q'.repeat(9000)}`);
  t.is(long.status, 414);
  await check(long, 'get', '/api/v1/links');
  t.is((await k.get('/nope42')).status, 404);
  const scanning = await k.get('/nope43', { accept: BROWSER_ACCEPT });
  t.is(scanning.status, 429);
  await check(scanning, 'get', '/{code}');
});

test('each API operation names the scope a key needs, as the route table checks it, and documents its 403', async (t) => {
  const k = await startKurz(t);
  const doc = await servedDocument(k);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/s', alias: 's' })).status, 201);
  const { access } = k.kurz.services;
  for (const [route, scope] of Object.entries(API_SCOPES)) {
    const [method = '', path = ''] = route.split(' ');
    const operation = doc.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase() as Method];
    t.deepEqual(operation?.security, [{ bearer: [scope] }, { apiKey: [scope] }, { session: [] }], route);
    t.deepEqual(operation?.responses['403'], { $ref: '#/components/responses/Forbidden' }, route);
    // What the document says is what the route table enforces: without the scope 403, with it alone not.
    const name = route.replace(/[^\w]+/g, '-').slice(0, 60);
    const without = (await access.createKey(1, `${name}-without`, { scopes: SCOPES.filter((s) => s !== scope && s !== 'admin') })).secret;
    const only = (await access.createKey(1, `${name}-only`, { scopes: [scope] })).secret;
    const url = path.replace(':code', 's') + (path.endsWith('export') ? '?what=links' : '');
    const body = method === 'POST' || method === 'PATCH' ? {} : undefined;
    const refused = await k.request(method, url, body, { authorization: `Bearer ${without}` });
    t.is(refused.status, 403, route);
    t.regex(((await refused.json()) as { detail: string }).detail, new RegExp(`lacks the scope ${scope}`), route);
    t.not((await k.request(method, url, body, { authorization: `Bearer ${only}` })).status, 403, route);
  }
  t.deepEqual(doc.paths['/api/v1/openapi.json']?.get?.security, [], 'the document itself needs nothing');
});
