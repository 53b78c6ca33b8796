import { gzipSync } from 'node:zlib';
import test from 'ava';
import { BROWSER_ACCEPT, startKurz, waitFor } from '../helpers.ts';
import { SERVER_ADMIN } from '../../src/auth/actor.ts';

interface LinkBody {
  code: string;
  shortUrl: string;
  url: string;
  createdAt: string;
  visitCount: number;
  lastVisitAt: string | null;
}

interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  field?: string;
}

test('POST /api/v1/links creates a link with a 6-character code and a short URL on the public base', async (t) => {
  const k = await startKurz(t);
  const res = await k.postJson('/api/v1/links', { url: 'https://example.com/a/long/path?q=1' });
  t.is(res.status, 201);
  const body = (await res.json()) as LinkBody;
  t.regex(body.code, /^[0-9a-zA-Z]{6}$/);
  t.is(body.shortUrl, `https://kurz.test/${body.code}`);
  t.is(body.url, 'https://example.com/a/long/path?q=1');
  t.is(body.createdAt, new Date(k.clock.now()).toISOString());
  t.is(res.headers.get('location'), `/api/v1/links/${body.code}`);
  t.is(await k.linkCount(), 1);
});

test('the short URL comes from the configured public URL, never from the Host header', async (t) => {
  const k = await startKurz(t, { publicUrl: 'https://s.example.org' });
  const res = await fetch(k.base + '/api/v1/links', {
    method: 'POST',
    headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json', host: 'evil.example' },
    body: JSON.stringify({ url: 'https://example.com/' }),
  });
  const body = (await res.json()) as LinkBody;
  t.is(body.shortUrl, `https://s.example.org/${body.code}`);
});

test('consecutive links get distinct codes that do not reveal their order', async (t) => {
  const k = await startKurz(t);
  const codes: string[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await k.postJson('/api/v1/links', { url: `https://example.com/${i}` });
    codes.push(((await res.json()) as LinkBody).code);
  }
  t.is(new Set(codes).size, 20);
  t.notDeepEqual([...codes].sort(), codes, 'codes in creation order are not sorted');
});

test('the same URL again returns the existing link with 200 (dedupe), after normalisation', async (t) => {
  const k = await startKurz(t);
  const first = (await (await k.postJson('/api/v1/links', { url: 'https://Example.COM:443/path' })).json()) as LinkBody;
  const again = await k.postJson('/api/v1/links', { url: '  https://example.com/path ' });
  t.is(again.status, 200);
  t.is(((await again.json()) as LinkBody).code, first.code);
  t.is(first.url, 'https://example.com/path');
  t.is(await k.linkCount(), 1);
});

test('dedupe only looks back over the configured window', async (t) => {
  const k = await startKurz(t, { dedupeWindow: '1h' });
  const first = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/w' })).json()) as LinkBody;
  k.clock.advance(59 * 60_000);
  t.is(((await (await k.postJson('/api/v1/links', { url: 'https://example.com/w' })).json()) as LinkBody).code, first.code);
  k.clock.advance(2 * 60_000);
  const late = await k.postJson('/api/v1/links', { url: 'https://example.com/w' });
  t.is(late.status, 201);
  t.not(((await late.json()) as LinkBody).code, first.code);
});

test('dedupe "off" creates a new link every time', async (t) => {
  const k = await startKurz(t, { dedupeWindow: 'off' });
  const a = await k.postJson('/api/v1/links', { url: 'https://example.com/same' });
  const b = await k.postJson('/api/v1/links', { url: 'https://example.com/same' });
  t.is(a.status, 201);
  t.is(b.status, 201);
  t.is(await k.linkCount(), 2);
});

test('an alias becomes the code; a link with an alias is never a dedupe target', async (t) => {
  const k = await startKurz(t);
  const res = await k.postJson('/api/v1/links', { url: 'https://example.com/docs', alias: 'Team_Docs-1' });
  t.is(res.status, 201);
  t.is(((await res.json()) as LinkBody).shortUrl, 'https://kurz.test/Team_Docs-1');
  const plain = await k.postJson('/api/v1/links', { url: 'https://example.com/docs' });
  t.is(plain.status, 201);
  t.not(((await plain.json()) as LinkBody).code, 'Team_Docs-1');
});

test('aliases are case-sensitive and a taken one is a 409 that stores nothing', async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/1', alias: 'promo' })).status, 201);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/2', alias: 'PROMO' })).status, 201);
  const taken = await k.postJson('/api/v1/links', { url: 'https://example.com/3', alias: 'promo' });
  t.is(taken.status, 409);
  t.is(taken.headers.get('content-type'), 'application/problem+json');
  const problem = (await taken.json()) as Problem;
  t.like(problem, { status: 409, code: 'conflict', field: 'alias', detail: 'alias "promo" is already taken' });
  t.is(await k.linkCount(), 2);
});

test('an alias equal to an existing generated code is a 409', async (t) => {
  const k = await startKurz(t);
  const { code } = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/gen' })).json()) as LinkBody;
  const res = await k.postJson('/api/v1/links', { url: 'https://example.com/other', alias: code });
  t.is(res.status, 409);
  t.is(await k.linkCount(), 1);
});

test('a generated code that an alias already holds is skipped, never shared', async (t) => {
  const k = await startKurz(t, { dedupeWindow: 'off' });
  const codes = k.kurz.services.links;
  // Learn the code the next id would get, take it as an alias first, then create a generated link.
  const probe = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/probe' })).json()) as LinkBody;
  const [last] = await k.sql<{ id: number }>('SELECT max(id) AS id FROM links');
  const nextId = (last?.id ?? 0) + 2;
  const { createCodeGenerator } = await import('../../src/codes/code-generator.ts');
  const [codeKey] = await k.sql<{ value: string }>("SELECT value FROM settings WHERE key = 'code_key'");
  const key = Buffer.from(codeKey?.value ?? '', 'hex');
  const future = createCodeGenerator({ mode: 'obfuscated', length: 6, key, offset: 0 }).codeFor(nextId);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/squat', alias: future })).status, 201);
  const generated = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/next' })).json()) as LinkBody;
  t.not(generated.code, future);
  t.not(generated.code, probe.code);
  t.is((await codes.linkByCode(SERVER_ADMIN, future))?.url, 'https://example.com/squat');
  t.is((await codes.linkByCode(SERVER_ADMIN, generated.code))?.url, 'https://example.com/next');
});

const INVALID: Array<[string, unknown, number, RegExp, string | undefined]> = [
  ['malformed JSON', '{"url": "https://exa', 400, /not valid JSON/, undefined],
  ['a JSON array', '[]', 400, /must be a JSON object/, undefined],
  ['a JSON string', '"https://example.com"', 400, /not valid JSON|must be a JSON object/, undefined],
  ['missing url', {}, 400, /^url is required$/, 'url'],
  ['empty url', { url: '   ' }, 400, /^url is required$/, 'url'],
  ['url of the wrong type', { url: 42 }, 400, /^url must be a string/, 'url'],
  ['javascript: URL', { url: 'javascript:alert(1)' }, 400, /must use http or https, not javascript/, 'url'],
  ['data: URL', { url: 'data:text/html,<script>alert(1)</script>' }, 400, /must use http or https, not data/, 'url'],
  ['relative URL', { url: 'example.com/path' }, 400, /must be absolute/, 'url'],
  ['overlong URL', { url: 'https://example.com/' + 'a'.repeat(8200) }, 400, /longer than 8192 characters/, 'url'],
  ['URL with credentials', { url: 'https://user:pw@example.com/' }, 400, /user name or password/, 'url'],
  ['URL pointing at kurz itself', { url: 'https://kurz.test/abc' }, 400, /this kurz instance/, 'url'],
  ['alias with a slash', { url: 'https://example.com/', alias: 'a/b' }, 400, /only contain letters, digits/, 'alias'],
  ['alias with a space', { url: 'https://example.com/', alias: 'a b' }, 400, /only contain letters, digits/, 'alias'],
  ['alias too long', { url: 'https://example.com/', alias: 'x'.repeat(65) }, 400, /1 to 64 characters/, 'alias'],
  ['empty alias', { url: 'https://example.com/', alias: '' }, 400, /1 to 64 characters/, 'alias'],
  ['alias not a string', { url: 'https://example.com/', alias: ['x'] }, 400, /alias must be a string/, 'alias'],
  ['reserved alias', { url: 'https://example.com/', alias: 'api' }, 400, /reserved/, 'alias'],
  ['reserved alias in other case', { url: 'https://example.com/', alias: 'HealthZ' }, 400, /reserved/, 'alias'],
  ['unknown field', { url: 'https://example.com/', alais: 'x' }, 400, /unknown field "alais"/, 'alais'],
];

for (const [name, body, status, detail, field] of INVALID) {
  test(`rejects ${name} with ${status} problem+json and stores nothing`, async (t) => {
    const k = await startKurz(t);
    const res = await k.postJson('/api/v1/links', body);
    t.is(res.status, status);
    t.is(res.headers.get('content-type'), 'application/problem+json');
    const problem = (await res.json()) as Problem;
    t.is(problem.status, status);
    t.regex(problem.detail, detail);
    t.is(problem.field, field);
    t.is(await k.linkCount(), 0);
  });
}

test('a body over 64 KiB is a 413', async (t) => {
  const k = await startKurz(t);
  const res = await k.postJson('/api/v1/links', { url: 'https://example.com/', pad: 'x'.repeat(70_000) });
  t.is(res.status, 413);
  t.like((await res.json()) as Problem, { code: 'too_large', detail: 'request body is larger than 64 KiB' });
  t.is(await k.linkCount(), 0);
});

test('a body that is not JSON is a 415', async (t) => {
  const k = await startKurz(t);
  const res = await fetch(k.base + '/api/v1/links', {
    method: 'POST',
    body: 'url=https://example.com/',
    headers: { authorization: `Bearer ${k.key}`, 'content-type': 'text/plain' },
  });
  t.is(res.status, 415);
  t.regex(((await res.json()) as Problem).detail, /application\/json/);
  t.is(await k.linkCount(), 0);
});

test('IDN hosts are stored as punycode', async (t) => {
  const k = await startKurz(t);
  const res = await k.postJson('/api/v1/links', { url: 'https://bücher.example/straße' });
  t.is(((await res.json()) as LinkBody).url, 'https://xn--bcher-kva.example/stra%C3%9Fe');
});

test('GET /api/v1/links/:code shows the link; an unknown code is a 404 problem', async (t) => {
  const k = await startKurz(t);
  const created = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/' })).json()) as LinkBody;
  const res = await k.get(`/api/v1/links/${created.code}`);
  t.is(res.status, 200);
  t.like((await res.json()) as LinkBody, { code: created.code, url: 'https://example.com/', visitCount: 0, lastVisitAt: null });
  const missing = await k.get('/api/v1/links/nothere');
  t.is(missing.status, 404);
  t.is(((await missing.json()) as Problem).code, 'not_found');
});

test('every creation has one owner: JSON, browsers, query strings and other media types all reach the same route', async (t) => {
  const k = await startKurz(t);
  const before = k.kurz.pipeline.requests.snapshot().filter((r) => r.route === 'POST /api/v1/links').length;
  t.is(before, 0);
  const answers = await Promise.all([
    fetch(`${k.base}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' },
      body: '{"url": "https://example.com/one"}',
    }),
    fetch(`${k.base}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json', accept: BROWSER_ACCEPT },
      body: '[]',
    }),
    fetch(`${k.base}/api/v1/links?src=x`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' },
      body: '[]',
    }),
    fetch(`${k.base}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k.key}`, 'content-type': 'text/plain' },
      body: '[]',
    }),
    fetch(`${k.base}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' },
      body: '',
    }),
  ]);
  t.deepEqual(
    answers.map((r) => r.status),
    [201, 400, 400, 415, 400],
  );
  t.regex(answers[1]?.headers.get('content-type') ?? '', /^text\/html/, "a browser's error is a page");
  t.like((await answers[4]?.json()) as Problem, { code: 'invalid', detail: 'the request body is empty' });
  const counted = () => k.kurz.pipeline.requests.snapshot().filter((r) => r.route === 'POST /api/v1/links');
  await waitFor(() => counted().reduce((sum, r) => sum + r.count, 0) === 5);
  t.deepEqual(counted(), [
    { route: 'POST /api/v1/links', status: 201, count: 1 },
    { route: 'POST /api/v1/links', status: 400, count: 3 },
    { route: 'POST /api/v1/links', status: 415, count: 1 },
  ]);
});

test('a JSON body that is not valid UTF-8 is a 400 naming that, and stores nothing', async (t) => {
  const k = await startKurz(t);
  // "https://example.com/" then a lone continuation byte and an overlong "/" inside the string.
  const bytes = Buffer.concat([Buffer.from('{"url": "https://example.com/'), Buffer.from([0x80, 0xc0, 0xaf]), Buffer.from('"}')]);
  const res = await fetch(`${k.base}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' },
    body: bytes,
  });
  t.is(res.status, 400);
  t.like(await res.json(), { code: 'invalid', detail: 'request body is not valid UTF-8' });
  t.is(await k.linkCount(), 0);
});

test('a target with a line break inside is refused, not stored without it', async (t) => {
  const k = await startKurz(t);
  const res = await k.postJson('/api/v1/links', { url: 'https://example.com/a\r\nSet-Cookie: x=1' });
  t.is(res.status, 400);
  t.like(await res.json(), { field: 'url', detail: 'url must not contain control characters (found U+000D)' });
  t.is(await k.linkCount(), 0);
});

test('a compressed JSON body is a 415 asking for it uncompressed', async (t) => {
  const k = await startKurz(t);
  const res = await fetch(`${k.base}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipSync(JSON.stringify({ url: 'https://example.com/zipped' })),
  });
  t.is(res.status, 415);
  t.like(await res.json(), { detail: 'send the request body uncompressed (Content-Encoding: gzip is not accepted)' });
  t.is(await k.linkCount(), 0);
});

test('a code, search or tag no link can hold is a 404 or 400 without asking the store (PostgreSQL refuses a NUL)', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/kept', alias: 'kept' });
  const answers: Array<[string, string, number, string]> = [
    ['GET', '/api/v1/links/a%00b', 404, 'no link with code "a\\u0000b"'],
    ['GET', '/api/v1/links/%00/qr', 404, 'no link with code "\\u0000"'],
    ['GET', '/api/v1/links/%00/stats', 404, 'no link with code "\\u0000"'],
    ['PATCH', '/api/v1/links/%00', 404, 'no link with code "\\u0000"'],
    ['DELETE', '/api/v1/links/kept%00', 404, 'no link with code "kept\\u0000"'],
    ['GET', '/api/v1/links?q=a%00', 400, 'q must not contain control characters (found U+0000)'],
    ['GET', '/api/v1/links?tag=%00', 400, 'tag must not contain control characters (found U+0000)'],
    [
      'GET',
      '/api/v1/links?cursor=MTIz%00',
      400,
      'cursor is not one this list gave out (the sort and order must stay the same while paging)',
    ],
  ];
  for (const [method, path, status, detail] of answers) {
    const res = await k.request(method, path, method === 'PATCH' ? { title: 'x' } : undefined);
    t.is(res.status, status, path);
    t.like(await res.json(), { detail }, path);
  }
  t.like(await (await k.get('/api/v1/links/kept')).json(), { code: 'kept', title: null, deletedAt: null });
});

test('a JSON body that gives a key twice is refused: a proxy reading the first and kurz the last would disagree', async (t) => {
  const k = await startKurz(t);
  const res = await k.postJson('/api/v1/links', '{"url":"javascript:alert(1)","url":"https://example.com/"}');
  t.is(res.status, 400);
  t.like(await res.json(), { detail: 'request body is not valid JSON: the key "url" is given twice in one object' });
  t.is(await k.linkCount(), 0);
});
