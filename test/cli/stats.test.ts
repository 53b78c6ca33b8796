import test, { type ExecutionContext } from 'ava';
import { BROWSER_UA, runCli, startKurz, type TestKurz } from '../helpers.ts';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const SLACKBOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const VISIT_COLUMNS = ['at', 'code', 'bot', 'referrer', 'browser', 'os', 'device', 'country', 'language'] as const;

async function follow(k: TestKurz, code: string, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(`${k.base}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA, ...headers } });
  if (res.status !== 302) throw new Error(`follow: ${res.status}`);
}

/**
 * Kurz (fake clock at 2026-01-15 12:00 UTC) with link "cli" visited by one person on the 14th and on the
 * 15th by four people and two bots, written to its database; returns it and a CLI runner on that database.
 */
async function visited(t: ExecutionContext) {
  const k = await startKurz(t, { visitFlushInterval: '60s' });
  const res = await k.postJson('/api/v1/links', { url: 'https://example.com/cli', alias: 'cli' });
  if (res.status !== 201) throw new Error(await res.text());
  k.clock.advance(-DAY);
  await follow(k, 'cli', { referer: 'https://news.example/', 'accept-language': 'de' });
  await k.flushVisits();
  k.clock.advance(DAY);
  await follow(k, 'cli', { referer: 'https://news.example/', 'accept-language': 'de' });
  await follow(k, 'cli', { 'user-agent': IPHONE, referer: 'https://social.example/', 'accept-language': 'fr' });
  k.clock.advance(HOUR);
  await follow(k, 'cli', { 'user-agent': IPHONE, 'accept-language': 'fr' });
  await follow(k, 'cli', { 'user-agent': `${IPHONE} extra`, 'accept-language': 'fr' });
  await follow(k, 'cli', { 'user-agent': SLACKBOT });
  await follow(k, 'cli', { 'user-agent': 'curl/8.5.0' });
  await k.flushVisits();
  const env = { ...k.database.env, KURZ_PUBLIC_URL: 'https://s.example' };
  return { k, kurz: (...args: string[]) => runCli(args, env), env };
}

test('stats prints the period, humans, unique visitors and bots, a sparkline and the top lists', async (t) => {
  const { kurz } = await visited(t);
  const result = await kurz('stats', 'cli', '--from', '2026-01-01', '--to', '2026-02-01');
  t.is(result.code, 0, result.stderr);
  t.is(
    result.stdout,
    [
      'Short URL   https://s.example/cli',
      'Target      https://example.com/cli',
      'Created     2026-01-15T12:00:00.000Z',
      'Visits      5',
      'Last visit  2026-01-15T13:00:00.000Z',
      'Period      2026-01-01 00:00 to 2026-02-01 00:00 UTC, by day',
      'In period   5 human visits, 4 unique visitors, 2 bot hits',
      `Humans      ${'▁'.repeat(13)}▃█${'▁'.repeat(16)} peak 4 per day`,
      'Referrers   direct 2, news.example 2, social.example 1',
      'Browsers    Safari 3, Chrome 2',
      'OS          iOS 3, Linux 2',
      'Devices     mobile 3, desktop 2',
      'Countries   unknown 5',
      'Languages   fr 3, de 2',
      'Bots        curl 1, Slack 1',
      '',
    ].join('\n'),
  );
});

test('stats --granularity hour draws a character per hour', async (t) => {
  const { kurz } = await visited(t);
  const result = await kurz('stats', 'cli', '--granularity', 'hour', '--from', '2026-01-15T00:00:00Z', '--to', '2026-01-16T00:00:00Z');
  t.is(result.code, 0, result.stderr);
  const lines = result.stdout.split('\n');
  t.true(lines.includes('Period      2026-01-15 00:00 to 2026-01-16 00:00 UTC, by hour'), result.stdout);
  t.true(lines.includes('In period   4 human visits, 3 unique visitors, 2 bot hits'), result.stdout);
  // Two people at 12:00, two at 13:00.
  t.true(lines.includes(`Humans      ${'▁'.repeat(12)}██${'▁'.repeat(10)} peak 2 per hour`), result.stdout);
});

test('stats --json has the link and its figures', async (t) => {
  const { kurz } = await visited(t);
  const result = await kurz('stats', 'cli', '--json', '--from', '2026-01-15', '--to', '2026-01-16', '--granularity', 'hour');
  t.is(result.code, 0, result.stderr);
  const json = JSON.parse(result.stdout) as {
    code: string;
    visitCount: number;
    stats: { from: string; to: string; granularity: string; visits: object; series: unknown[]; bots: unknown[] };
  };
  t.like(json, {
    code: 'cli',
    visitCount: 5,
    stats: {
      from: '2026-01-15T00:00:00.000Z',
      to: '2026-01-16T00:00:00.000Z',
      granularity: 'hour',
      visits: { total: 6, humans: 4, bots: 2, uniqueVisitors: 3 },
    },
  });
  t.is(json.stats.series.length, 24);
  t.deepEqual(json.stats.bots, [
    { name: 'curl', count: 1 },
    { name: 'Slack', count: 1 },
  ]);
});

const BAD_STATS: Array<[string[], string]> = [
  [['--from', 'yesterday'], 'kurz: from must be an ISO 8601 date or date and time, such as 2026-11-23 or 2026-11-23T14:00:00Z\n'],
  [['--to', '15.01.2026'], 'kurz: to must be an ISO 8601 date or date and time, such as 2026-11-23 or 2026-11-23T14:00:00Z\n'],
  [['--from', '2026-02-30'], 'kurz: from must be an ISO 8601 date or date and time, such as 2026-11-23 or 2026-11-23T14:00:00Z\n'],
  [['--from', '2026-01-15', '--to', '2026-01-14'], 'kurz: "from" must be before "to"\n'],
  [['--granularity', 'week'], 'kurz: granularity must be one of hour, day\n'],
];
for (const [flags, stderr] of BAD_STATS) {
  test(`stats ${flags.join(' ')} exits 1 naming the flag`, async (t) => {
    const { kurz } = await visited(t);
    t.deepEqual(await kurz('stats', 'cli', ...flags), { code: 1, stdout: '', stderr });
  });
}

/** The raw visits kept, as an export shows them, oldest first. */
async function storedVisits(k: TestKurz, from = 0): Promise<Array<Record<string, unknown>>> {
  const rows = await k.sql<{ at: number }>(
    `SELECT at, code, bot, referrer, browser, os, device, country, language FROM visits JOIN links ON links.id = visits.link_id
     WHERE at >= ? ORDER BY visits.id`,
    from,
  );
  return rows.map((r) => ({ ...r, at: new Date(r.at).toISOString() }));
}

const ndjson = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('export --visits --format ndjson writes the raw visits stored, and --from picks a period', async (t) => {
  const { k, kurz } = await visited(t);
  const all = await kurz('export', '--visits', '--format', 'ndjson');
  t.is(all.code, 0, all.stderr);
  const stored = await storedVisits(k);
  t.is(stored.length, 7);
  t.deepEqual(ndjson(all.stdout), stored);
  t.deepEqual(Object.keys(ndjson(all.stdout)[0]!), [...VISIT_COLUMNS]);

  const later = await kurz('export', '--visits', '--format', 'ndjson', '--from', '2026-01-15T13:00:00Z');
  t.deepEqual(ndjson(later.stdout), await storedVisits(k, Date.UTC(2026, 0, 15, 13)));
  t.is(ndjson(later.stdout).length, 4);

  const csv = await kurz('export', '--visits');
  t.is(csv.stdout.split('\n')[0], VISIT_COLUMNS.join(','), 'CSV unless told');
  t.is(csv.stdout.trimEnd().split('\n').length, 8);
});

test('a time without an offset means UTC, whatever the time zone kurz runs in', async (t) => {
  const { env } = await visited(t);
  const run = (tz: string, from: string) => runCli(['export', '--visits', '--format', 'ndjson', '--from', from], { ...env, TZ: tz });
  const utc = await run('UTC', '2026-01-15T13:00:00Z');
  t.is(ndjson(utc.stdout).length, 4);
  for (const tz of ['Asia/Tokyo', 'America/New_York']) {
    const local = await run(tz, '2026-01-15T13:00:00');
    t.is(local.stdout, utc.stdout, tz);
  }
});

test('export --from or --to without --visits is a usage error', async (t) => {
  const { kurz } = await visited(t);
  for (const flag of ['--from', '--to']) {
    const result = await kurz('export', flag, '2026-01-01');
    t.is(result.code, 2, flag);
    t.regex(result.stderr, /^kurz: --from and --to go with --visits/);
    t.is(result.stdout, '');
  }
});

test('prune --dry-run counts the raw visits past visitRetentionDays; prune deletes them and old visitor hashes', async (t) => {
  const k = await startKurz(t);
  const res = await k.postJson('/api/v1/links', { url: 'https://example.com/old', alias: 'old' });
  t.is(res.status, 201);
  const env = k.database.env;
  const kurz = (...args: string[]) => runCli(args, env);
  // The CLI runs on the real clock: plant visits relative to it.
  const now = Date.now();
  for (const ago of [200, 200, 100, 10, 0])
    await k.sql(`INSERT INTO visits (link_id, at, bot) VALUES ((SELECT id FROM links WHERE code = 'old'), ?, NULL)`, now - ago * DAY);
  await k.sql(
    'INSERT INTO visit_hours (link_id, hour, humans, bots, uniques) VALUES (1, ?, 2, 0, 1)',
    now - 200 * DAY - ((now - 200 * DAY) % HOUR),
  );
  const oldDay = now - 200 * DAY - ((now - 200 * DAY) % DAY);
  const today = now - (now % DAY);
  const addVisitor = (day: number, hash: Buffer) => k.sql('INSERT INTO visitors (day, link_id, hash) VALUES (?, 1, ?)', day, hash);
  await addVisitor(oldDay, Buffer.from('0102030405060708', 'hex'));
  await addVisitor(today, Buffer.from('1112131415161718', 'hex'));
  const count = async () => (await k.sql<{ n: number }>('SELECT count(*) AS n FROM visits'))[0]?.n;
  const hours = await k.sql('SELECT * FROM visit_hours');

  t.deepEqual(await kurz('prune', '--dry-run'), { code: 0, stdout: 'would delete 3 raw visits older than 90 days\n', stderr: '' });
  const dryJson = await kurz('prune', '--dry-run', '--json');
  t.deepEqual(JSON.parse(dryJson.stdout), { dryRun: true, visits: 3, audit: 0, links: [] });
  t.is(await count(), 5, 'a dry run deletes nothing');

  t.deepEqual(await kurz('prune'), { code: 0, stdout: 'deleted 3 raw visits older than 90 days\n', stderr: '' });
  t.deepEqual(await k.sql('SELECT at FROM visits ORDER BY at'), [{ at: now - 10 * DAY }, { at: now }]);
  t.deepEqual(await k.sql('SELECT * FROM visit_hours'), hours, 'the rollups stay');
  t.deepEqual(await k.sql('SELECT day FROM visitors'), [{ day: today }], "only recent days' visitor hashes stay");

  const shorter = await runCli(['prune', '--json'], { ...env, KURZ_VISIT_RETENTION_DAYS: '5' });
  t.deepEqual(JSON.parse(shorter.stdout), { dryRun: false, visits: 1, audit: 0, links: [] });
  t.deepEqual(await kurz('prune'), { code: 0, stdout: 'deleted 0 raw visits older than 90 days\n', stderr: '' });
  t.is(await count(), 1);
});
