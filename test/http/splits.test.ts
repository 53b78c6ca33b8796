import test from 'ava';
import { createApp } from '../../src/app.ts';
import { memoryLogger } from '../../src/core/log.ts';
import { BROWSER_ACCEPT, BROWSER_UA, listen, startKurz, type TestKurz } from '../helpers.ts';
import { DAY } from '../../src/visits/visit.ts';

// A/B splits (issue 26): a link's own split (POST/PATCH /api/v1/links) and a rule's split action, drawn from
// the visitor's daily hash (the one that counts unique visitors, from a salt kept in the database), on the
// backend of the run; per-variant figures in the link's stats.

const PLAIN = 'https://example.com/plain';
const A = 'https://example.com/a';
const B = 'https://example.com/b';
const C = 'https://example.com/c';

async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** The redirect's Location for visitor `who` (their user agent: every test visitor comes from 127.0.0.1). */
async function where(k: Pick<TestKurz, 'base'>, code: string, who = 0, headers: Record<string, string> = {}): Promise<string | null> {
  const res = await fetch(`${k.base}/${code}`, {
    headers: { 'user-agent': `${BROWSER_UA} visitor/${who}`, accept: BROWSER_ACCEPT, ...headers },
    redirect: 'manual',
  });
  return res.headers.get('location');
}

/** Where visitors 0…n-1 go, counted by URL. */
async function spread(k: TestKurz, code: string, n: number): Promise<Map<string | null, number>> {
  const counts = new Map<string | null, number>();
  for (let who = 0; who < n; who++) {
    const to = await where(k, code, who);
    counts.set(to, (counts.get(to) ?? 0) + 1);
  }
  return counts;
}

test("a link's own split: created, shown, redirected to by weight, each visitor sticking to one variant", async (t) => {
  const k = await startKurz(t);
  const split = [
    { url: A, weight: 3 },
    { url: 'HTTPS://Example.COM/b', weight: 1 },
  ];
  const created = await k.postJson('/api/v1/links', { url: PLAIN, alias: 'ab', split });
  t.is(created.status, 201);
  const link = await json<{ url: string; split: unknown }>(created);
  t.is(link.url, PLAIN, "the url stays the link's display and fallback target");
  t.deepEqual(link.split, [
    { url: A, weight: 3 },
    { url: B, weight: 1 },
  ]);
  t.deepEqual((await json<{ split: unknown }>(await k.get('/api/v1/links/ab'))).split, link.split);

  const counts = await spread(k, 'ab', 200);
  t.deepEqual([...counts.keys()].sort(), [A, B]);
  const shareA = (counts.get(A) ?? 0) / 200;
  t.true(shareA > 0.6 && shareA < 0.9, `3:1 should send about 75% to A, sent ${shareA}`);
  for (let who = 0; who < 20; who++) {
    const first = await where(k, 'ab', who);
    t.is(await where(k, 'ab', who), first, 'the same visitor, the same variant');
    t.is(await where(k, 'ab', who), first);
  }
  const res = await fetch(`${k.base}/ab`, { headers: { 'user-agent': BROWSER_UA }, redirect: 'manual' });
  t.is(res.headers.get('cache-control'), 'no-store', 'an answer that depends on the visitor is not cached');
});

test('PATCH replaces the split, pauses a variant or removes it, at once; the change log carries it', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: PLAIN, alias: 'live' });
  t.is(await where(k, 'live'), PLAIN);
  t.is(await where(k, 'live'), PLAIN, 'cached now');
  const [{ seq: before } = { seq: 0 }] = await k.sql<{ seq: number }>('SELECT coalesce(max(seq), 0) AS seq FROM link_changes');
  const set = await k.request('PATCH', '/api/v1/links/live', {
    split: [
      { url: A, weight: 1 },
      { url: B, weight: 1 },
    ],
  });
  t.is(set.status, 200);
  t.deepEqual([...(await spread(k, 'live', 40)).keys()].sort(), [A, B], 'the cached plain redirect was dropped');
  t.true((await k.sql(`SELECT 1 FROM link_changes WHERE seq > ${Number(before)} AND code = 'live'`)).length > 0);

  const paused = await k.request('PATCH', '/api/v1/links/live', {
    split: [
      { url: A, weight: 1, paused: true },
      { url: B, weight: 1 },
    ],
  });
  t.deepEqual((await json<{ split: unknown }>(paused)).split, [
    { url: A, weight: 1, paused: true },
    { url: B, weight: 1 },
  ]);
  t.deepEqual([...(await spread(k, 'live', 40)).keys()], [B], 'a paused variant gets nobody');

  const removed = await k.request('PATCH', '/api/v1/links/live', { split: null });
  t.is((await json<{ split: unknown }>(removed)).split, null);
  t.is(await where(k, 'live', 3), PLAIN);
  const [row] = await k.sql<{ split: string | null }>("SELECT split FROM links WHERE code = 'live'");
  t.is(row?.split, null);
  t.is((await k.request('PATCH', '/api/v1/links/live', { title: 'still plain' })).status, 200);
  t.is(await where(k, 'live', 3), PLAIN, 'an edit without split keeps none');
});

test("a rule's split action draws a variant for the visitors it matches; the others get the link's own target", async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: PLAIN, alias: 'ruled' });
  const rules = [
    {
      conditions: [{ type: 'language', matchValue: 'de' }],
      split: [
        { url: A, weight: 1 },
        { url: C, weight: 1 },
      ],
    },
  ];
  const put = await k.request('PUT', '/api/v1/links/ruled/rules', { rules });
  t.is(put.status, 200, await put.clone().text());
  t.deepEqual((await json<{ rules: Array<{ split: unknown }> }>(put)).rules[0]?.split, rules[0]!.split);
  const german = new Set<string | null>();
  for (let who = 0; who < 40; who++) {
    const to = await where(k, 'ruled', who, { 'accept-language': 'de' });
    german.add(to);
    t.is(await where(k, 'ruled', who, { 'accept-language': 'de' }), to, 'sticky');
  }
  t.deepEqual([...german].sort(), [A, C]);
  t.is(await where(k, 'ruled', 1, { 'accept-language': 'en' }), PLAIN);
});

test('malformed splits are a 400 naming the field, on create and on edit', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: PLAIN, alias: 'bad' });
  const cases: Array<[unknown, string, RegExp]> = [
    [[{ url: A, weight: 1 }], 'split', /at least 2 variants/],
    [
      [
        { url: A, weight: 1 },
        { url: B, weight: 0 },
      ],
      'split[1].weight',
      /must be at least 1/,
    ],
    [
      [
        { url: A, weight: 1 },
        { url: B, weight: 1.5 },
      ],
      'split[1].weight',
      /must be an integer/,
    ],
    [
      [
        { url: A, weight: 1 },
        { url: 'ftp://example.com/', weight: 1 },
      ],
      'split[1].url',
      /^split\[1\]\.url: /,
    ],
    [
      [
        { url: A, weight: 1, paused: true },
        { url: B, weight: 1, paused: true },
      ],
      'split',
      /every variant paused/,
    ],
    [
      [
        { url: A, weight: 1 },
        { url: B, weight: 1, colour: 'red' },
      ],
      'split[1].colour',
      /not a known field/,
    ],
    ['a,b', 'split', /must be a list of variants/],
    [Array.from({ length: 21 }, (_, i) => ({ url: `${A}${i}`, weight: 1 })), 'split', /at most 20 variants/],
  ];
  for (const [split, field, message] of cases) {
    for (const res of [
      await k.request('PATCH', '/api/v1/links/bad', { split }),
      await k.postJson('/api/v1/links', { url: PLAIN, split }),
    ]) {
      t.is(res.status, 400, JSON.stringify(split).slice(0, 80));
      const problem = await json<{ field: string; detail: string }>(res);
      t.is(problem.field, field, problem.detail);
      t.regex(problem.detail, message);
    }
  }
  t.is((await json<{ split: unknown }>(await k.get('/api/v1/links/bad'))).split, null, 'nothing was stored');
});

test('the stats show visits, unique visitors and humans per variant; pausing one keeps its history', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', {
    url: PLAIN,
    alias: 'counted',
    split: [
      { url: A, weight: 1 },
      { url: B, weight: 1 },
    ],
  });
  const went = new Map<string, number>();
  for (let who = 0; who < 30; who++) {
    const to = (await where(k, 'counted', who))!;
    went.set(to, (went.get(to) ?? 0) + 1);
    await where(k, 'counted', who);
  }
  // A bot's visit counts for its variant, not as a human.
  const bot = await fetch(`${k.base}/counted`, { headers: { 'user-agent': 'curl/8.5.0' }, redirect: 'manual' });
  const botTo = bot.headers.get('location')!;
  await k.flushVisits();
  type Stats = {
    visits: { uniqueVisitors: number };
    variants: Array<{ url: string; visits: number; uniqueVisitors: number; humans: number }>;
  };
  const stats = await json<Stats>(await k.get('/api/v1/links/counted/stats'));
  const expected = [A, B]
    .map((url) => ({
      url,
      visits: 2 * (went.get(url) ?? 0) + (url === botTo ? 1 : 0),
      uniqueVisitors: went.get(url) ?? 0,
      humans: 2 * (went.get(url) ?? 0),
    }))
    .sort((x, y) => y.visits - x.visits || x.url.localeCompare(y.url));
  t.deepEqual(stats.variants, expected);
  t.is(stats.visits.uniqueVisitors, 30, "the variants share the link's unique-visitor hash");

  await k.request('PATCH', '/api/v1/links/counted', {
    split: [
      { url: A, weight: 1 },
      { url: B, weight: 1, paused: true },
    ],
  });
  await where(k, 'counted', 100);
  await k.flushVisits();
  const after = await json<Stats>(await k.get('/api/v1/links/counted/stats'));
  t.deepEqual(
    after.variants.find((v) => v.url === B),
    expected.find((v) => v.url === B),
    'the paused variant keeps its figures',
  );
  t.is(after.variants.find((v) => v.url === A)!.humans, expected.find((v) => v.url === A)!.humans + 1);
  await k.postJson('/api/v1/links', { url: PLAIN, alias: 'plain' });
  t.deepEqual((await json<Stats>(await k.get('/api/v1/links/plain/stats'))).variants, [], 'a link without a split: none');
});

test("two processes on one database draw the same variant for a visitor: the day's salt is in the database", async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', {
    url: PLAIN,
    alias: 'shared',
    split: [
      { url: A, weight: 1 },
      { url: B, weight: 1 },
    ],
  });
  // Another process: its own randomness, which would make another salt if it made its own.
  const other = await createApp(
    k.config,
    { now: k.clock.now, random: (n) => Buffer.alloc(n, 0xee), log: memoryLogger() },
    { backgroundWriter: false },
  );
  t.teardown(() => other.close());
  const otherBase = await listen(t, other.callback, k.config);
  const salts = await k.sql<{ day: number }>('SELECT day FROM visitor_salts ORDER BY day');
  t.deepEqual(
    salts.map((s) => Number(s.day)),
    [Date.UTC(2026, 0, 15), Date.UTC(2026, 0, 16)],
    'one salt for today and one made ahead for tomorrow, whoever came second',
  );
  for (let who = 0; who < 30; who++) t.is(await where({ base: otherBase }, 'shared', who), await where(k, 'shared', who));
});

test("a day's salt is deleted once its day and the next are over; a new day's salt is made when first needed", async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', {
    url: PLAIN,
    alias: 'days',
    split: [
      { url: A, weight: 1 },
      { url: B, weight: 1 },
    ],
  });
  const today = Date.UTC(2026, 0, 15);
  await where(k, 'days');
  k.clock.advance(3 * DAY);
  // No salt for this day was made ahead (the timer has not run): the redirect makes it and waits for it.
  t.truthy(await where(k, 'days'));
  await k.flushVisits();
  await k.kurz.services.recorder.prune();
  const days = (await k.sql<{ day: number }>('SELECT day FROM visitor_salts ORDER BY day')).map((s) => Number(s.day));
  t.false(days.includes(today), "the first day's salt is gone");
  t.false(days.includes(today + DAY));
  t.true(days.includes(today + 3 * DAY));
  t.deepEqual(await k.sql(`SELECT day FROM visitors WHERE day < ${today + 2 * DAY}`), [], "and its visitors' hashes with it");
});

test('a password link with a split leads on to a variant once unlocked, and records it', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', {
    url: PLAIN,
    alias: 'locked',
    password: 'open sesame',
    split: [
      { url: A, weight: 1, paused: true },
      { url: B, weight: 1 },
    ],
  });
  const unlocked = await fetch(`${k.base}/links/locked/unlock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
    body: JSON.stringify({ password: 'open sesame' }),
    redirect: 'manual',
  });
  t.is(unlocked.status, 303);
  t.is(unlocked.headers.get('location'), B);
  await k.flushVisits();
  const stats = await json<{ variants: Array<{ url: string; humans: number }> }>(await k.get('/api/v1/links/locked/stats'));
  t.deepEqual(
    stats.variants.map((v) => [v.url, v.humans]),
    [[B, 1]],
  );
});
