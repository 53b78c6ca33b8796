import test from 'ava';
import { exportedLink, BROWSER_ACCEPT, BROWSER_UA, runCli, startKurz, waitFor, type TestKurz } from '../helpers.ts';

type LinkBody = Record<string, unknown> & { code: string; url: string };
type Problem = { status: number; code: string; detail: string; field?: string };

async function create(k: TestKurz, body: Record<string, unknown>): Promise<LinkBody> {
  const res = await k.postJson('/api/v1/links', body);
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  return (await res.json()) as LinkBody;
}

/** Follows a short link as a person's browser would (a bot's visits neither count nor use up max visits). */
const follow = (k: TestKurz, path: string, init: RequestInit = {}) =>
  fetch(k.base + path, { redirect: 'manual', ...init, headers: { 'user-agent': BROWSER_UA, ...(init.headers as Record<string, string>) } });

test('every option is set at creation and shown back; the password never is', async (t) => {
  const k = await startKurz(t);
  const link = await create(k, {
    url: 'https://example.com/all',
    alias: 'all-options',
    title: '  Launch plan ',
    note: 'for the team',
    tags: ['work', 'launch', 'work'],
    expiresAt: '2026-02-01T00:00:00+01:00',
    maxVisits: 5,
    password: 'open sesame',
    redirectStatus: 308,
    forwardQuery: true,
    enabled: true,
  });
  t.like(link, {
    code: 'all-options',
    title: 'Launch plan',
    note: 'for the team',
    tags: ['launch', 'work'],
    expiresAt: '2026-01-31T23:00:00.000Z',
    maxVisits: 5,
    visitsLeft: 5,
    passwordProtected: true,
    redirectStatus: 308,
    forwardQuery: true,
    enabled: true,
  });
  t.false(JSON.stringify(link).includes('open sesame'));
  const [stored] = await k.sql<{ password_hash: string }>('SELECT password_hash FROM links WHERE code = ?', 'all-options');
  t.regex(stored?.password_hash ?? '', /^scrypt\$32768\$8\$1\$/, 'a slow hash');
  // Defaults: the instance's settings shown as what the redirect does.
  const plain = await create(k, { url: 'https://example.com/plain' });
  t.like(plain, {
    title: null,
    tags: [],
    expiresAt: null,
    maxVisits: null,
    passwordProtected: false,
    redirectStatus: 302,
    forwardQuery: false,
    enabled: true,
  });
});

const INVALID_OPTIONS: Array<[string, Record<string, unknown>, string, RegExp]> = [
  ['expiry in the past', { expiresAt: '2025-01-01T00:00:00Z' }, 'expiresAt', /in the future/],
  ['expiry without offset', { expiresAt: '2026-12-01T00:00:00' }, 'expiresAt', /RFC 3339/],
  ['expiry not a date', { expiresAt: 'tomorrow' }, 'expiresAt', /RFC 3339/],
  ['expiry on a day that does not exist', { expiresAt: '2026-02-30T00:00:00Z' }, 'expiresAt', /not a real time/],
  ['max visits 0', { maxVisits: 0 }, 'maxVisits', /whole number from 1/],
  ['max visits fractional', { maxVisits: 1.5 }, 'maxVisits', /whole number/],
  ['max visits as text', { maxVisits: '3' }, 'maxVisits', /whole number/],
  ['redirect status 303', { redirectStatus: 303 }, 'redirectStatus', /301, 302, 307, 308/],
  ['forwardQuery as text', { forwardQuery: 'yes' }, 'forwardQuery', /true or false/],
  ['enabled as number', { enabled: 1 }, 'enabled', /true or false/],
  ['tags not a list', { tags: { a: 1 } }, 'tags', /list of strings/],
  ['tag with markup', { tags: ['<b>'] }, 'tags', /may only hold/],
  ['too many tags', { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags', /^tags must be at most 20 tags, got 21$/],
  ['title too long', { title: 'x'.repeat(201) }, 'title', /at most 200/],
  ['title with a newline', { title: 'a\nb' }, 'title', /control characters/],
  ['note too long', { note: 'x'.repeat(2001) }, 'note', /at most 2000/],
  // Storage would turn a lone surrogate into U+FFFD: what was stored would not be what was sent.
  ['title with a lone surrogate', { title: 'a\ud800' }, 'title', /^title must be valid Unicode text \(found a lone surrogate U\+D800\)$/],
  ['note with a lone surrogate', { note: '\udc00' }, 'note', /^note must be valid Unicode text/],
  [
    'password with a NUL, which scrypt would not count',
    { password: 'secret\u0000' },
    'password',
    /^password must not contain control characters \(found U\+0000\)$/,
  ],
  ['password with a lone surrogate', { password: 'pw\ud83d' }, 'password', /^password must be valid Unicode text/],
  ['title with a C1 control', { title: 'a\u009b31mb' }, 'title', /^title must not contain control characters \(found U\+009B\)$/],
  ['title with a line separator', { title: 'a\u2028b' }, 'title', /^title must be one line \(found U\+2028\)$/],
  [
    'note with a right-to-left override',
    { note: 'a\u202eb' },
    'note',
    /^note must not contain characters that reorder text \(found U\+202E\)$/,
  ],
  ['empty password', { password: '' }, 'password', /8 to 1024/],
];
for (const [name, options, field, message] of INVALID_OPTIONS) {
  test(`refuses ${name}, naming the field, and stores nothing`, async (t) => {
    const k = await startKurz(t);
    const res = await k.postJson('/api/v1/links', { url: 'https://example.com/x', ...options });
    t.is(res.status, 400);
    const problem = (await res.json()) as Problem;
    t.is(problem.field, field);
    t.regex(problem.detail, message);
    t.is(await k.linkCount(), 0);
  });
}

test('an expired link answers 410 with a page saying it expired', async (t) => {
  const k = await startKurz(t);
  const { code } = await create(k, { url: 'https://example.com/soon', expiresAt: new Date(k.clock.now() + 60_000).toISOString() });
  t.is((await follow(k, `/${code}`)).status, 302);
  t.is((await follow(k, `/${code}`)).status, 302, 'from the cache now');
  k.clock.advance(60_000);
  const res = await follow(k, `/${code}`, { headers: { accept: BROWSER_ACCEPT } });
  t.is(res.status, 410);
  t.regex(await res.text(), /has expired/);
  const api = await follow(k, `/${code}`);
  t.like((await api.json()) as Problem, { code: 'gone', detail: `the link "${code}" has expired` });
});

test('a link with a start time answers 404 as an unknown code until then, to every client, and is listed as scheduled', async (t) => {
  const k = await startKurz(t);
  const startsAt = new Date(k.clock.now() + 60_000).toISOString();
  const link = await create(k, { url: 'https://example.com/later', alias: 'later', startsAt, password: 'open sesame' });
  t.is(link['startsAt'], startsAt);
  const unknown = (await (await follow(k, '/nolink')).json()) as Problem;
  for (const init of [{}, { method: 'HEAD' }, { headers: { accept: BROWSER_ACCEPT } }]) {
    const res = await follow(k, '/later', init);
    t.is(res.status, 404, JSON.stringify(init));
    t.is(res.headers.get('location'), null);
  }
  const problem = (await (await follow(k, '/later')).json()) as Problem;
  t.deepEqual({ ...problem, detail: problem.detail.replace('later', 'nolink') }, { ...unknown }, 'the same answer as a code no link has');
  const unlock = await follow(k, '/links/later/unlock', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password: 'open sesame' }),
  });
  t.is(unlock.status, 404, 'its password opens nothing yet');
  const listed = async (state: string) =>
    ((await (await k.get(`/api/v1/links?state=${state}`)).json()) as { links: LinkBody[] }).links.map((l) => l.code);
  t.deepEqual(await listed('scheduled'), ['later']);
  t.deepEqual(await listed('active'), []);
  const page = await fetch(`${k.base}/links`, { headers: { cookie: await k.login(), accept: BROWSER_ACCEPT } });
  t.regex(await page.text(), /state-scheduled[^>]*>scheduled</);

  k.clock.advance(60_000);
  t.is((await follow(k, '/later')).status, 401, 'from its start on it is the link it is: here, one asking for its password');
  t.deepEqual(await listed('scheduled'), []);
  t.deepEqual(await listed('active'), ['later']);
});

test('startsAt is checked: a time with an offset, before expiresAt; null clears it on an edit', async (t) => {
  const k = await startKurz(t);
  const refused: Array<[Record<string, unknown>, RegExp]> = [
    [{ startsAt: 'tomorrow' }, /startsAt must be an RFC 3339 time/],
    [{ startsAt: '2026-02-01T00:00:00' }, /startsAt must be an RFC 3339 time/],
    [{ startsAt: 5 }, /startsAt must be an RFC 3339 time/],
    [{ startsAt: '2026-03-01T00:00:00Z', expiresAt: '2026-02-01T00:00:00Z' }, /startsAt must be before expiresAt/],
    [{ startsAt: '2026-02-01T00:00:00Z', expiresAt: '2026-02-01T00:00:00Z' }, /startsAt must be before expiresAt/],
  ];
  for (const [body, message] of refused) {
    const res = await k.postJson('/api/v1/links', { url: 'https://example.com/x', ...body });
    t.is(res.status, 400, JSON.stringify(body));
    const problem = (await res.json()) as Problem;
    t.is(problem.field, 'startsAt');
    t.regex(problem.detail, message);
  }
  t.is(await k.linkCount(), 0);
  const past = await create(k, { url: 'https://example.com/x', alias: 'past', startsAt: '2020-01-01T00:00:00Z' });
  t.is(past['startsAt'], '2020-01-01T00:00:00.000Z', 'a start already past is kept: the link redirects at once');
  t.is((await follow(k, '/past')).status, 302);
  const moved = await k.request('PATCH', '/api/v1/links/past', { startsAt: new Date(k.clock.now() + 1000).toISOString() });
  t.is(moved.status, 200);
  t.is((await follow(k, '/past')).status, 404, 'the cached redirect follows the edit at once');
  const cleared = (await (await k.request('PATCH', '/api/v1/links/past', { startsAt: null })).json()) as LinkBody;
  t.is(cleared['startsAt'], null);
  t.is((await follow(k, '/past')).status, 302);
});

test('the CLI sets and removes a start time; a running server follows', async (t) => {
  const k = await startKurz(t);
  const made = await runCli(
    ['create', 'https://example.com/cli', '--alias', 'clistart', '--starts-at', '2026-02-01T00:00:00Z', '--json', ...k.database.flags],
    {},
  );
  t.is(made.code, 0, made.stderr);
  t.like(JSON.parse(made.stdout), { code: 'clistart', startsAt: '2026-02-01T00:00:00.000Z' });
  await waitFor(async () => (await follow(k, '/clistart')).status === 404);
  const bad = await runCli(['edit', 'clistart', '--starts-at', 'soon', ...k.database.flags], {});
  t.not(bad.code, 0);
  t.regex(bad.stderr, /startsAt must be an RFC 3339 time/);
  const both = await runCli(['edit', 'clistart', '--starts-at', '2026-03-01T00:00:00Z', '--no-starts-at', ...k.database.flags], {});
  t.not(both.code, 0);
  const cleared = await runCli(['edit', 'clistart', '--no-starts-at', ...k.database.flags], {});
  t.is(cleared.code, 0, cleared.stderr);
  await waitFor(async () => (await follow(k, '/clistart')).status === 302);
});

test('a link with max visits redirects that many times, then answers 410 used up; HEAD uses none and is not shown the target', async (t) => {
  const k = await startKurz(t);
  const { code } = await create(k, { url: 'https://example.com/twice', maxVisits: 2 });
  const head = await follow(k, `/${code}`, { method: 'HEAD' });
  t.is(head.status, 200);
  t.is(head.headers.get('location'), null);
  t.is((await follow(k, `/${code}`)).status, 302);
  t.is((await follow(k, `/${code}`)).status, 302);
  const third = await follow(k, `/${code}`, { headers: { accept: BROWSER_ACCEPT } });
  t.is(third.status, 410);
  t.regex(await third.text(), /used up/);
  const shown = (await (await k.get(`/api/v1/links/${code}`)).json()) as LinkBody;
  t.is(shown['visitsLeft'], 0);
  // Raising the limit lets visitors in again.
  await k.request('PATCH', `/api/v1/links/${code}`, { maxVisits: 3 });
  t.is((await follow(k, `/${code}`)).status, 302);
  t.is((await follow(k, `/${code}`)).status, 410);
});

test('a disabled link answers 410 saying so until it is enabled again', async (t) => {
  const k = await startKurz(t);
  const { code } = await create(k, { url: 'https://example.com/switch' });
  t.is((await follow(k, `/${code}`)).status, 302);
  t.is((await follow(k, `/${code}`)).status, 302);
  const off = await k.request('PATCH', `/api/v1/links/${code}`, { enabled: false });
  t.is(off.status, 200);
  const res = await follow(k, `/${code}`);
  t.is(res.status, 410);
  t.is(((await res.json()) as Problem).detail, `the link "${code}" is disabled`);
  await k.request('PATCH', `/api/v1/links/${code}`, { enabled: true });
  t.is((await follow(k, `/${code}`)).status, 302);
});

test('a password link shows a form; the right password leads on with 303, wrong ones are throttled', async (t) => {
  const k = await startKurz(t, { trustedProxies: '127.0.0.1' });
  const { code } = await create(k, { url: 'https://example.com/secret?a=1', password: 'open sesame', forwardQuery: true });
  const page = await follow(k, `/${code}?ref=mail`, { headers: { accept: BROWSER_ACCEPT } });
  t.is(page.status, 200);
  const html = await page.text();
  t.regex(html, new RegExp(`action="/links/${code}/unlock\\?ref=mail"`));
  t.regex(html, /type="password"/);
  const api = await follow(k, `/${code}`);
  t.is(api.status, 401);

  const unlock = (password: string, client = '198.51.100.7') =>
    follow(k, `/links/${code}/unlock?ref=mail`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER_ACCEPT, 'x-forwarded-for': client },
      body: new URLSearchParams({ password }),
    });
  const right = await unlock('open sesame');
  t.is(right.status, 303);
  t.is(right.headers.get('location'), 'https://example.com/secret?a=1&ref=mail');
  for (let i = 0; i < 6; i++) t.is((await unlock(`guess ${i}`)).status, 401);
  const blocked = await unlock('open sesame');
  t.is(blocked.status, 429);
  t.is(blocked.headers.get('retry-after'), '1');
  t.is((await unlock('open sesame', '198.51.100.8')).status, 429, 'the link waits for every client: its own count holds all guesses');
  k.clock.advance(1000);
  t.is((await unlock('open sesame', '198.51.100.8')).status, 303);
  t.is((await unlock('open sesame')).status, 303);
  // Visits through the password form are counted like redirects.
  await k.flushVisits();
  await waitFor(async () => ((await (await k.get(`/api/v1/links/${code}`)).json()) as LinkBody)['visitCount'] === 3);
});

test('a link redirects with its own status and appends the visitor query when it forwards it', async (t) => {
  const k = await startKurz(t);
  const { code } = await create(k, { url: 'https://example.com/page#top', redirectStatus: 301, forwardQuery: true });
  const res = await follow(k, `/${code}?utm_source=x&b=2`);
  t.is(res.status, 301);
  t.is(res.headers.get('location'), 'https://example.com/page?utm_source=x&b=2#top');
  const plain = await create(k, { url: 'https://example.com/plain' });
  t.is((await follow(k, `/${plain.code}?utm_source=x`)).headers.get('location'), 'https://example.com/plain');
});

test('the forwardQuery setting is the default of links that do not say', async (t) => {
  const k = await startKurz(t, { forwardQuery: true });
  const { code } = await create(k, { url: 'https://example.com/q?x=1' });
  t.is((await follow(k, `/${code}?y=2`)).headers.get('location'), 'https://example.com/q?x=1&y=2');
  const off = await create(k, { url: 'https://example.com/q2', forwardQuery: false });
  t.is((await follow(k, `/${off.code}?y=2`)).headers.get('location'), 'https://example.com/q2');
});

test('PATCH changes the target, and a cached redirect follows at once; null clears an option', async (t) => {
  const k = await startKurz(t);
  const { code } = await create(k, { url: 'https://example.com/old', title: 'T', tags: ['a'] });
  for (let i = 0; i < 3; i++) t.is((await follow(k, `/${code}`)).headers.get('location'), 'https://example.com/old');
  const res = await k.request('PATCH', `/api/v1/links/${code}`, { url: 'https://example.com/new', title: null, tags: ['b', 'c'] });
  t.is(res.status, 200);
  t.like((await res.json()) as LinkBody, { url: 'https://example.com/new', title: null, tags: ['b', 'c'] });
  t.is((await follow(k, `/${code}`)).headers.get('location'), 'https://example.com/new');
});

test('PATCH refuses bad input precisely and changes nothing', async (t) => {
  const k = await startKurz(t);
  const { code } = await create(k, { url: 'https://example.com/keep' });
  const cases: Array<[unknown, number, RegExp]> = [
    [{}, 400, /at least one field/],
    [{ alias: 'x' }, 400, /unknown field "alias"/],
    [{ url: 'javascript:alert(1)' }, 400, /http or https/],
    [{ maxVisits: -1 }, 400, /whole number/],
    ['[1]', 400, /JSON object/],
  ];
  for (const [body, status, message] of cases) {
    const res = await k.request('PATCH', `/api/v1/links/${code}`, body);
    t.is(res.status, status, JSON.stringify(body));
    t.regex(((await res.json()) as Problem).detail, message);
  }
  t.is((await k.request('PATCH', '/api/v1/links/nope', { title: 'x' })).status, 404);
  t.is(((await (await k.get(`/api/v1/links/${code}`)).json()) as LinkBody).url, 'https://example.com/keep');
});

test('DELETE answers 204, then the code is 410 for good; deleting again is a 410', async (t) => {
  const k = await startKurz(t);
  const { code } = await create(k, { url: 'https://example.com/bye' });
  t.is((await follow(k, `/${code}`)).status, 302);
  t.is((await follow(k, `/${code}`)).status, 302);
  const res = await k.request('DELETE', `/api/v1/links/${code}`);
  t.is(res.status, 204);
  t.is(res.headers.get('content-length'), null);
  t.is((await follow(k, `/${code}`)).status, 410);
  t.is((await k.request('DELETE', `/api/v1/links/${code}`)).status, 410);
  t.is((await k.request('PATCH', `/api/v1/links/${code}`, { title: 'x' })).status, 410);
  t.is((await k.request('DELETE', '/api/v1/links/nope')).status, 404);
});

test('an edit made by the CLI while the server runs reaches the cached redirect', async (t) => {
  const k = await startKurz(t);
  const { code } = await create(k, { url: 'https://example.com/before' });
  for (let i = 0; i < 3; i++) t.is((await follow(k, `/${code}`)).headers.get('location'), 'https://example.com/before');
  const cli = await runCli(['edit', code, '--url', 'https://example.com/after', ...k.database.flags], {});
  t.is(cli.code, 0, cli.stderr);
  await waitFor(async () => (await follow(k, `/${code}`)).headers.get('location') === 'https://example.com/after');
  const disabled = await runCli(['edit', code, '--disable', ...k.database.flags], {});
  t.is(disabled.code, 0, disabled.stderr);
  await waitFor(async () => (await follow(k, `/${code}`)).status === 410);
});

test('the list searches code, target, title and note, filters by tag, sorts by visits and pages with a cursor', async (t) => {
  const k = await startKurz(t);
  await create(k, { url: 'https://example.com/1', title: 'Quarterly report', tags: ['work'] });
  await create(k, { url: 'https://example.com/2', note: 'the quarterly numbers', tags: ['work', 'numbers'] });
  const popular = await create(k, { url: 'https://example.com/3', alias: 'popular', tags: ['fun'] });
  for (let i = 0; i < 3; i++) await follow(k, '/popular');
  await k.flushVisits();
  await waitFor(async () => ((await (await k.get('/api/v1/links/popular')).json()) as LinkBody)['visitCount'] === 3);

  const list = async (query: string) =>
    (await (await k.get(`/api/v1/links?${query}`)).json()) as { links: LinkBody[]; nextCursor: string | null };
  t.deepEqual(
    (await list('q=QUARTERLY')).links.map((l) => l.url),
    ['https://example.com/2', 'https://example.com/1'],
  );
  t.deepEqual(
    (await list('q=popular')).links.map((l) => l.code),
    [popular.code],
  );
  t.deepEqual(
    (await list('tag=work')).links.map((l) => l.url),
    ['https://example.com/2', 'https://example.com/1'],
  );
  t.is((await list('sort=visits')).links[0]?.code, 'popular');

  const first = await list('limit=2');
  t.is(first.links.length, 2);
  t.truthy(first.nextCursor);
  const second = await list(`limit=2&cursor=${first.nextCursor}`);
  t.deepEqual(
    second.links.map((l) => l.url),
    ['https://example.com/1'],
  );
  t.is(second.nextCursor, null);

  const byVisits = await list('sort=visits&limit=1');
  const rest = await list(`sort=visits&limit=5&cursor=${byVisits.nextCursor}`);
  t.is(rest.links.length, 2);
  t.false(rest.links.some((l) => l.code === 'popular'));

  for (const [query, field] of [
    ['sort=name', 'sort'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['cursor=zzz', 'cursor'],
    ['q=a&q=b', 'q'],
  ]) {
    const res = await k.get(`/api/v1/links?${query}`);
    t.is(res.status, 400, query);
    t.is(((await res.json()) as Problem).field, field, query);
  }
  const tags = (await (await k.get('/api/v1/tags')).json()) as { tags: Array<{ tag: string; count: number }> };
  t.deepEqual(tags.tags, [
    { tag: 'work', count: 2 },
    { tag: 'fun', count: 1 },
    { tag: 'numbers', count: 1 },
  ]);
});

test('a batch answers one result per entry in order, and stores the valid ones', async (t) => {
  const k = await startKurz(t);
  await create(k, { url: 'https://example.com/known' });
  const res = await k.postJson('/api/v1/links/batch', {
    links: [
      { url: 'https://example.com/b1' },
      { url: 'not a url' },
      { url: 'https://example.com/known' },
      { url: 'https://example.com/b2', alias: 'batch-two', tags: ['x'] },
      { url: 'https://example.com/b3', alias: 'batch-two' },
      'just a string',
      { url: 'https://example.com/b4', colour: 'red' },
    ],
  });
  t.is(res.status, 200);
  const body = (await res.json()) as {
    created: number;
    existing: number;
    failed: number;
    results: Array<{ status: string; link?: LinkBody; error?: Problem & { message: string } }>;
  };
  t.deepEqual(
    body.results.map((r) => r.status),
    ['created', 'error', 'existing', 'created', 'error', 'error', 'error'],
  );
  t.like(body, { created: 2, existing: 1, failed: 4 });
  t.regex(body.results[1]?.error?.message ?? '', /absolute/);
  t.regex(body.results[4]?.error?.message ?? '', /already taken/);
  t.regex(body.results[5]?.error?.message ?? '', /JSON object/);
  t.regex(body.results[6]?.error?.message ?? '', /unknown field "colour"/);
  t.is(await k.linkCount(), 3);

  const tooMany = await k.postJson('/api/v1/links/batch', {
    links: Array.from({ length: 1001 }, (_, i) => ({ url: `https://example.com/${i}` })),
  });
  t.is(tooMany.status, 400);
  t.regex(((await tooMany.json()) as Problem).detail, /at most 1000/);
  t.is((await k.postJson('/api/v1/links/batch', { links: [] })).status, 400);
  t.is((await k.postJson('/api/v1/links/batch', [])).status, 400);
  t.is(await k.linkCount(), 3);
});

test('a batch of 1000 links is stored in full', async (t) => {
  const k = await startKurz(t);
  const res = await k.postJson('/api/v1/links/batch', {
    links: Array.from({ length: 1000 }, (_, i) => ({ url: `https://example.com/many/${i}` })),
  });
  t.is(res.status, 200);
  t.is(((await res.json()) as { created: number }).created, 1000);
  t.is(await k.linkCount(), 1000);
});

test('the domain deny-list and allow-list are checked on creation, edit and import, naming the rule', async (t) => {
  const k = await startKurz(t, { allowDomains: 'example.com,example.org', denyDomains: 'ads.example.com' });
  const denied = await k.postJson('/api/v1/links', { url: 'https://x.ads.example.com/' });
  t.is(denied.status, 400);
  t.regex(((await denied.json()) as Problem).detail, /denyDomains rule "ads\.example\.com"/);
  const outside = await k.postJson('/api/v1/links', { url: 'https://example.net/' });
  t.is(outside.status, 400);
  t.regex(((await outside.json()) as Problem).detail, /not in allowDomains/);
  const { code } = await create(k, { url: 'https://www.example.org/fine' });
  const edit = await k.request('PATCH', `/api/v1/links/${code}`, { url: 'https://evil.test/' });
  t.is(edit.status, 400);
  t.regex(((await edit.json()) as Problem).detail, /allowDomains/);
  const batch = (await (await k.postJson('/api/v1/links/batch', { links: [{ url: 'https://ads.example.com/x' }] })).json()) as {
    failed: number;
  };
  t.is(batch.failed, 1);
  const line = JSON.stringify(exportedLink('imp', 'https://evil.test/'));
  const imported = await runCli(
    ['import', '-', '--format', 'ndjson', ...k.database.flags, '--allow-domains', 'example.com'],
    {},
    { input: line + '\n' },
  );
  t.is(imported.code, 1);
  t.regex(imported.stderr, /line 1: .*allowDomains/);
  t.is(await k.linkCount(), 1);
});

test('targets leading back to kurz are refused under every name it answers to', async (t) => {
  const k = await startKurz(t);
  const port = new URL(k.base).port;
  for (const url of [
    `http://localhost:${port}/x`,
    `http://127.0.0.1:${port}/x`,
    `http://127.1:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::1]:${port}/`,
    'https://kurz.test/abc',
    'http://KURZ.test.:8443/abc',
  ]) {
    const res = await k.postJson('/api/v1/links', { url, alias: 'loop' });
    t.is(res.status, 400, url);
    t.regex(((await res.json()) as Problem).detail, /leads back to this kurz instance/, url);
  }
  t.is(await k.linkCount(), 0);
});
