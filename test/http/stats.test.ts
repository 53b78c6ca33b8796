import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { DAY, HOUR } from '../../src/visits/visit.ts';
import { BROWSER_UA, startKurz, tempDir, type TestKurz } from '../helpers.ts';
import { buildCountryMmdb } from '../support/mmdb.ts';

type Problem = { status: number; code: string; detail: string; field?: string };
type Entry = { name: string; count: number };
interface LinkStatsBody {
  from: string;
  to: string;
  granularity: string;
  visits: { total: number; humans: number; bots: number; uniqueVisitors: number };
  lastVisitAt: string | null;
  series: Array<{ t: string; humans: number; bots: number }>;
  referrers: Entry[];
  browsers: Entry[];
  os: Entry[];
  devices: Entry[];
  countries: Entry[];
  languages: Entry[];
  bots: Entry[];
}
interface InstanceStatsBody {
  from: string;
  to: string;
  totals: { links: number; humans: number };
  period: { linksCreated: number; humans: number; bots: number; uniqueVisitors: number };
  days: Array<{ t: string; linksCreated: number; humans: number; bots: number; uniqueVisitors: number }>;
  topLinks: Array<{
    code: string;
    shortUrl: string;
    url: string;
    title: string | null;
    humans: number;
    bots: number;
    uniqueVisitors: number;
  }>;
}

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const IPAD =
  'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const SLACKBOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';
const TWITTERBOT = 'Twitterbot/1.0';
const CURL = 'curl/8.5.0';

/** The fake clock's start: 2026-01-15 12:00 UTC. */
const START = Date.UTC(2026, 0, 15, 12);

async function create(k: TestKurz, body: Record<string, unknown>): Promise<string> {
  const res = await k.postJson('/api/v1/links', body);
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { code: string }).code;
}

/** Follows a short link with these headers (a browser's user agent unless they give one); returns the status. */
async function follow(k: TestKurz, code: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${k.base}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA, ...headers } });
  await res.arrayBuffer();
  return res.status;
}

async function linkStats(k: TestKurz, code: string, query = ''): Promise<LinkStatsBody> {
  const res = await k.get(`/api/v1/links/${code}/stats${query}`);
  if (res.status !== 200) throw new Error(`stats: ${res.status} ${await res.text()}`);
  return (await res.json()) as LinkStatsBody;
}

test("a link's stats: humans, bots, unique visitors, the series and every top list", async (t) => {
  const k = await startKurz(t, { visitFlushInterval: '60s' });
  const code = await create(k, { url: 'https://example.com/stats', alias: 'launch' });
  const visits: Array<[number, Record<string, string>]> = [
    [0, { referer: 'https://www.news.example/story', 'accept-language': 'de-DE,de;q=0.9' }],
    [60_000, { referer: 'https://news.example/other', 'accept-language': 'de' }],
    [60_000, { 'user-agent': IPHONE, referer: 'https://social.example/post/1', 'accept-language': 'fr-FR' }],
    [60_000, { 'user-agent': FIREFOX, 'accept-language': 'en-US,en;q=0.5' }],
    [60_000, { 'user-agent': IPAD }],
    [60_000, { 'user-agent': SLACKBOT, referer: 'https://slack.example/' }],
    [0, { 'user-agent': TWITTERBOT }],
    [0, { 'user-agent': CURL }],
    [0, { 'user-agent': CURL, 'accept-language': 'de' }],
  ];
  for (const [wait, headers] of visits) {
    k.clock.advance(wait);
    t.is(await follow(k, code, headers), 302);
  }
  await k.flushVisits();

  const stats = await linkStats(k, code, '?granularity=hour');
  t.like(stats, {
    from: new Date(START + HOUR - 48 * HOUR).toISOString(),
    to: new Date(START + HOUR).toISOString(),
    granularity: 'hour',
    visits: { total: 9, humans: 5, bots: 4, uniqueVisitors: 4 },
    lastVisitAt: new Date(START + 4 * 60_000).toISOString(),
  });
  t.is(stats.series.length, 48);
  t.deepEqual(stats.series.at(-1), { t: new Date(START).toISOString(), humans: 5, bots: 4 });
  t.deepEqual(stats.series[0], { t: new Date(START - 47 * HOUR).toISOString(), humans: 0, bots: 0 });
  t.true(
    stats.series.slice(0, -1).every((p) => p.humans === 0 && p.bots === 0),
    'every other hour is empty',
  );
  t.deepEqual(stats.referrers, [
    { name: 'direct', count: 2 },
    { name: 'news.example', count: 2 },
    { name: 'social.example', count: 1 },
  ]);
  t.deepEqual(stats.browsers, [
    { name: 'Chrome', count: 2 },
    { name: 'Safari', count: 2 },
    { name: 'Firefox', count: 1 },
  ]);
  t.deepEqual(stats.os, [
    { name: 'iOS', count: 2 },
    { name: 'Linux', count: 2 },
    { name: 'Windows', count: 1 },
  ]);
  t.deepEqual(stats.devices, [
    { name: 'desktop', count: 3 },
    { name: 'mobile', count: 1 },
    { name: 'tablet', count: 1 },
  ]);
  t.deepEqual(stats.countries, [{ name: 'unknown', count: 5 }], 'no country database configured');
  t.deepEqual(stats.languages, [
    { name: 'de', count: 2 },
    { name: 'en', count: 1 },
    { name: 'fr', count: 1 },
    { name: 'unknown', count: 1 },
  ]);
  t.deepEqual(stats.bots, [
    { name: 'curl', count: 2 },
    { name: 'Slack', count: 1 },
    { name: 'X', count: 1 },
  ]);

  const byDay = await linkStats(k, code, '?granularity=day');
  t.like(byDay, {
    from: new Date(Date.UTC(2026, 0, 16) - 90 * DAY).toISOString(),
    to: new Date(Date.UTC(2026, 0, 16)).toISOString(),
    granularity: 'day',
    visits: { total: 9, humans: 5, bots: 4, uniqueVisitors: 4 },
  });
  t.is(byDay.series.length, 90);
  t.deepEqual(byDay.series.at(-1), { t: new Date(Date.UTC(2026, 0, 15)).toISOString(), humans: 5, bots: 4 });
  t.deepEqual((await linkStats(k, code)).series, byDay.series, 'by day unless told');

  const window = await linkStats(k, code, '?granularity=hour&from=2026-01-15T12:00:00Z&to=2026-01-15T13:00:00Z');
  t.deepEqual(window.series, [{ t: new Date(START).toISOString(), humans: 5, bots: 4 }]);
  const before = await linkStats(k, code, '?granularity=hour&from=2026-01-14&to=2026-01-15T12:00:00Z');
  t.like(before, { visits: { total: 0, humans: 0, bots: 0, uniqueVisitors: 0 }, referrers: [], bots: [] });
  t.is(before.series.length, 36);
});

const BAD_QUERIES: Array<[string, string, RegExp]> = [
  ['?from=yesterday', 'from', /from must be an ISO 8601 date/],
  ['?to=2026-13-45', 'to', /to must be an ISO 8601 date/],
  ['?from=2026-02-30', 'from', /from must be an ISO 8601 date/],
  ['?granularity=hour&from=2026-04-31T10:00:00Z', 'from', /from must be an ISO 8601 date/],
  ['?from=2026-01-15&to=2026-01-14', 'from', /"from" must be before "to"/],
  ['?from=2026-01-15&to=2026-01-15', 'from', /"from" must be before "to"/],
  ['?granularity=hour&from=2025-01-01&to=2026-01-01', 'from', /the period is too long: at most 31 days by the hour/],
  ['?granularity=day&from=2000-01-01&to=2026-01-01', 'from', /the period is too long/],
  ['?granularity=week', 'granularity', /granularity must be one of hour, day/],
  ['?granularity=hour&granularity=day', 'granularity', /granularity/],
];
for (const [query, field, detail] of BAD_QUERIES) {
  test(`link stats with ${query} are a 400 naming ${field}`, async (t) => {
    const k = await startKurz(t);
    const code = await create(k, { url: 'https://example.com/bad' });
    const res = await k.get(`/api/v1/links/${code}/stats${query}`);
    t.is(res.status, 400);
    t.regex(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const problem = (await res.json()) as Problem;
    t.like(problem, { status: 400, code: 'invalid', field });
    t.regex(problem.detail, detail);
  });
}

test('the stats of an unknown code are a 404; without a key a 401', async (t) => {
  const k = await startKurz(t);
  const code = await create(k, { url: 'https://example.com/private' });
  const missing = await k.get('/api/v1/links/nope42/stats');
  t.is(missing.status, 404);
  t.like((await missing.json()) as Problem, { code: 'not_found' });
  for (const path of [`/api/v1/links/${code}/stats`, '/api/v1/stats']) {
    const res = await fetch(k.base + path);
    t.is(res.status, 401, path);
    t.like((await res.json()) as Problem, { code: 'unauthorized' });
    const wrong = await k.get(path, { authorization: 'Bearer kurz_wrong' });
    t.is(wrong.status, 401, `${path} with a wrong key`);
  }
});

test('past ten values a top list folds the rest into "other"', async (t) => {
  const k = await startKurz(t, { visitFlushInterval: '60s' });
  const twelve = await create(k, { url: 'https://example.com/twelve' });
  const ten = await create(k, { url: 'https://example.com/ten' });
  // r01 to r12; the last three get 3, 2 and 2 visits, so they lead.
  const counts = new Map<string, number>();
  for (let i = 1; i <= 12; i++) counts.set(`r${String(i).padStart(2, '0')}.example`, i === 12 ? 3 : i >= 10 ? 2 : 1);
  for (const [host, n] of counts) for (let i = 0; i < n; i++) t.is(await follow(k, twelve, { referer: `https://${host}/` }), 302);
  for (let i = 1; i <= 10; i++) t.is(await follow(k, ten, { referer: `https://s${i}.example/` }), 302);
  await k.flushVisits();

  const stats = await linkStats(k, twelve);
  t.is(stats.visits.humans, 16);
  t.deepEqual(stats.referrers, [
    { name: 'r12.example', count: 3 },
    { name: 'r10.example', count: 2 },
    { name: 'r11.example', count: 2 },
    { name: 'r01.example', count: 1 },
    { name: 'r02.example', count: 1 },
    { name: 'r03.example', count: 1 },
    { name: 'r04.example', count: 1 },
    { name: 'r05.example', count: 1 },
    { name: 'r06.example', count: 1 },
    { name: 'other', count: 3 },
  ]);
  const exactlyTen = await linkStats(k, ten);
  t.is(exactlyTen.referrers.length, 10);
  t.false(
    exactlyTen.referrers.some((e) => e.name === 'other'),
    'ten values are shown as they are',
  );
});

test('the instance stats: days zero-filled, links created and visits per day, top links and totals', async (t) => {
  const k = await startKurz(t, { visitFlushInterval: '60s' });
  k.clock.advance(-3 * DAY);
  const old = await create(k, { url: 'https://example.com/old', alias: 'old', title: 'Old one' });
  await create(k, { url: 'https://example.com/old2', alias: 'old2' });
  t.is(await follow(k, old), 302);
  t.is(await follow(k, old, { 'user-agent': IPHONE }), 302);
  await k.flushVisits();
  k.clock.advance(3 * DAY);
  const popular = await create(k, { url: 'https://example.com/popular', alias: 'popular' });
  const quiet = await create(k, { url: 'https://example.com/quiet', alias: 'quiet' });
  for (let i = 0; i < 3; i++) t.is(await follow(k, popular, { 'user-agent': [BROWSER_UA, IPHONE, FIREFOX][i]! }), 302);
  t.is(await follow(k, popular, { 'user-agent': SLACKBOT }), 302);
  t.is(await follow(k, quiet), 302);
  t.is(await follow(k, old), 302);
  await k.flushVisits();

  const res = await k.get('/api/v1/stats');
  t.is(res.status, 200);
  const stats = (await res.json()) as InstanceStatsBody;
  t.is(stats.from, new Date(Date.UTC(2026, 0, 2)).toISOString());
  t.is(stats.to, new Date(Date.UTC(2026, 0, 16)).toISOString());
  t.deepEqual(stats.totals, { links: 4, humans: 7 });
  t.deepEqual(stats.period, { linksCreated: 4, humans: 7, bots: 1, uniqueVisitors: 7, detailDropped: 0 });
  t.is(stats.days.length, 14);
  const day = (d: number) => new Date(Date.UTC(2026, 0, d)).toISOString();
  t.deepEqual(
    stats.days.map((d) => d.t),
    Array.from({ length: 14 }, (_, i) => day(2 + i)),
  );
  t.deepEqual(stats.days.at(-4), { t: day(12), linksCreated: 2, humans: 2, bots: 0, uniqueVisitors: 2 });
  t.deepEqual(stats.days.at(-1), { t: day(15), linksCreated: 2, humans: 5, bots: 1, uniqueVisitors: 5 });
  t.true(
    stats.days
      .filter((d) => d.t !== day(12) && d.t !== day(15))
      .every((d) => d.linksCreated === 0 && d.humans === 0 && d.bots === 0 && d.uniqueVisitors === 0),
    'the other days are zero',
  );
  // Most human visits first; a tie goes to the older link.
  t.deepEqual(stats.topLinks, [
    {
      code: 'old',
      shortUrl: 'https://kurz.test/old',
      url: 'https://example.com/old',
      title: 'Old one',
      humans: 3,
      bots: 0,
      uniqueVisitors: 3,
    },
    {
      code: 'popular',
      shortUrl: 'https://kurz.test/popular',
      url: 'https://example.com/popular',
      title: null,
      humans: 3,
      bots: 1,
      uniqueVisitors: 3,
    },
    {
      code: 'quiet',
      shortUrl: 'https://kurz.test/quiet',
      url: 'https://example.com/quiet',
      title: null,
      humans: 1,
      bots: 0,
      uniqueVisitors: 1,
    },
  ]);

  const twoDays = (await (await k.get('/api/v1/stats?days=2')).json()) as InstanceStatsBody;
  t.is(twoDays.days.length, 2);
  t.deepEqual(twoDays.period, { linksCreated: 2, humans: 5, bots: 1, uniqueVisitors: 5, detailDropped: 0 });
  t.deepEqual(
    twoDays.topLinks.map((l) => [l.code, l.humans]),
    [
      ['popular', 3],
      ['old', 1],
      ['quiet', 1],
    ],
  );
  t.deepEqual(twoDays.totals, { links: 4, humans: 7 }, 'totals are all-time');
});

for (const query of ['days=0', 'days=abc', 'days=367', 'days=1.5', 'days=-1', 'days=2&days=3']) {
  test(`the instance stats with ${query} are a 400 naming days`, async (t) => {
    const k = await startKurz(t);
    const res = await k.get(`/api/v1/stats?${query}`);
    t.is(res.status, 400);
    t.like((await res.json()) as Problem, { status: 400, code: 'invalid', field: 'days' });
  });
}

test('bots look at a link with max visits without using any up, nor being shown its target; once humans have, bots get 410 too', async (t) => {
  const k = await startKurz(t, { visitFlushInterval: '60s' });
  const code = await create(k, { url: 'https://example.com/limited', maxVisits: 2 });
  const visitsLeft = async () => ((await (await k.get(`/api/v1/links/${code}`)).json()) as { visitsLeft: number }).visitsLeft;
  for (const ua of [SLACKBOT, TWITTERBOT, SLACKBOT, CURL, '']) t.is(await follow(k, code, { 'user-agent': ua }), 200, `bot ${ua}`);
  t.is(await visitsLeft(), 2, 'previews used up nothing');
  t.is(await follow(k, code), 302);
  t.is(await visitsLeft(), 1);
  t.is(await follow(k, code, { 'user-agent': IPHONE }), 302);
  t.is(await visitsLeft(), 0);
  t.is(await follow(k, code, { 'user-agent': FIREFOX }), 410);
  t.is(await follow(k, code, { 'user-agent': SLACKBOT }), 410, 'a bot is refused once they are used up');
  await k.flushVisits();
  const stats = await linkStats(k, code);
  t.like(stats, { visits: { total: 7, humans: 2, bots: 5, uniqueVisitors: 2 } });
  t.is(((await (await k.get(`/api/v1/links/${code}`)).json()) as { visitCount: number }).visitCount, 2);
});

/** A country database: 203.0.113.0/24 in DE, 2001:db8::/32 in JP, loopback in AU. */
function countryDatabase(dir: string): string {
  const path = join(dir, 'countries.mmdb');
  writeFileSync(
    path,
    buildCountryMmdb([
      { network: '203.0.113.0/24', country: 'DE' },
      { network: '2001:db8::/32', country: 'JP' },
      { network: '127.0.0.0/8', country: 'AU' },
    ]),
  );
  return path;
}

const SPOOFS: Array<Record<string, string>> = [
  { 'x-forwarded-for': '203.0.113.9' },
  { forwarded: 'for=203.0.113.9' },
  { forwarded: 'for="[2001:db8::1]:4711"', 'x-forwarded-for': '203.0.113.9' },
];

test('without trusted proxies, Forwarded and X-Forwarded-For are ignored: the client is the socket', async (t) => {
  const k = await startKurz(t, { visitFlushInterval: '60s', geoipDatabase: countryDatabase(tempDir(t)) });
  const code = await create(k, { url: 'https://example.com/spoofed' });
  for (const headers of SPOOFS) t.is(await follow(k, code, headers), 302);
  await k.flushVisits();
  t.deepEqual(await k.sql('SELECT country FROM visits ORDER BY id'), [{ country: 'AU' }, { country: 'AU' }, { country: 'AU' }]);
  const stats = await linkStats(k, code);
  t.deepEqual(stats.countries, [{ name: 'AU', count: 3 }]);
  t.is(stats.visits.uniqueVisitors, 1, 'one client, one browser');
});

/** What a trusted proxy's request says, and the country of the client kurz takes from it. */
type Forwarding = Array<[string, Record<string, string>, string]>;

const X_FORWARDED_FOR: Forwarding = [
  ['X-Forwarded-For', { 'x-forwarded-for': '203.0.113.9' }, 'DE'],
  ['X-Forwarded-For with a chain: the nearest untrusted hop', { 'x-forwarded-for': '2001:db8::7, 203.0.113.9' }, 'DE'],
  ['X-Forwarded-For past a trusted hop', { 'x-forwarded-for': '203.0.113.15, 127.0.0.1' }, 'DE'],
  ['Forwarded alone: never read, the socket', { forwarded: 'for=203.0.113.10' }, 'AU'],
  ['Forwarded and X-Forwarded-For: X-Forwarded-For', { forwarded: 'for="[2001:db8::3]"', 'x-forwarded-for': '203.0.113.12' }, 'DE'],
  ['a hop that is no address: the socket', { 'x-forwarded-for': 'unknown' }, 'AU'],
  ['a malformed nearest hop ends the walk there', { 'x-forwarded-for': '203.0.113.16, garbage' }, 'AU'],
  ['neither: the socket', {}, 'AU'],
];

const FORWARDED: Forwarding = [
  ['Forwarded', { forwarded: 'for=203.0.113.10' }, 'DE'],
  ['Forwarded with an IPv4 address and port', { forwarded: 'for="203.0.113.11:8080"' }, 'DE'],
  ['Forwarded with a bracketed IPv6 address and port', { forwarded: 'for="[2001:db8::1]:4711"' }, 'JP'],
  ['Forwarded with an IPv6 address, no port', { forwarded: 'for="[2001:db8::2]"' }, 'JP'],
  ['Forwarded with a chain: the nearest untrusted hop', { forwarded: 'for=203.0.113.13, for="[2001:db8::4]";proto=https' }, 'JP'],
  ['X-Forwarded-For alone: never read, the socket', { 'x-forwarded-for': '203.0.113.12' }, 'AU'],
  ['Forwarded and X-Forwarded-For: Forwarded', { forwarded: 'for="[2001:db8::3]"', 'x-forwarded-for': '203.0.113.12' }, 'JP'],
  ['a malformed Forwarded: the socket, never X-Forwarded-For', { forwarded: 'for=', 'x-forwarded-for': '203.0.113.14' }, 'AU'],
  ['Forwarded past a trusted hop', { forwarded: 'for=203.0.113.17, for=127.0.0.1' }, 'DE'],
  ['neither: the socket', {}, 'AU'],
];

for (const [header, table, unique] of [
  ['x-forwarded-for', X_FORWARDED_FOR, 4],
  ['forwarded', FORWARDED, 8],
] as const) {
  test(`behind a trusted proxy with clientAddressHeader ${header}, the client comes from that header alone`, async (t) => {
    const k = await startKurz(t, {
      visitFlushInterval: '60s',
      trustedProxies: '127.0.0.1',
      clientAddressHeader: header,
      geoipDatabase: countryDatabase(tempDir(t)),
    });
    const code = await create(k, { url: 'https://example.com/proxied' });
    for (const [, headers] of table) t.is(await follow(k, code, headers), 302);
    await k.flushVisits();
    const countries = (await k.sql<{ country: string | null }>('SELECT country FROM visits ORDER BY id')).map((v) => v.country);
    t.is(countries.length, table.length);
    for (const [i, [name, , country]] of table.entries()) t.is(countries[i], country, name);
    const stats = await linkStats(k, code);
    t.is(stats.visits.uniqueVisitors, unique, 'each client address is its own visitor');
  });
}
