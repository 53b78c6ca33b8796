import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { DIMENSIONS } from '../../src/visits/visit.ts';
import { BROWSER_UA, freshDatabase, runCli, startServe, tempDir, waitFor, type ServeProcess, type TestDatabase } from '../helpers.ts';
import { buildCountryMmdb } from '../support/mmdb.ts';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const SLACKBOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';

/** A fresh database with links "one" and "two", made by the CLI before kurz serves it. */
async function databaseWithLinks(t: ExecutionContext): Promise<TestDatabase> {
  const db = await freshDatabase(t);
  for (const code of ['one', 'two']) {
    const created = await runCli(['create', `https://example.com/${code}`, '--alias', code], db.env);
    if (created.code !== 0) throw new Error(created.stderr);
  }
  return db;
}

async function follow(kurz: ServeProcess, code: string, userAgent: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${kurz.url}/${code}`, { redirect: 'manual', headers: { 'user-agent': userAgent, ...headers } });
  await res.arrayBuffer();
  return res.status;
}

const hourTotals = async (db: TestDatabase) =>
  (
    await db.sql<{ humans: number; bots: number }>(
      'SELECT coalesce(sum(humans), 0) AS humans, coalesce(sum(bots), 0) AS bots FROM visit_hours',
    )
  )[0]!;

const backgroundPid = (stderr: string): number => Number(/background process started pid=(\d+)/.exec(stderr)?.[1]);

test('on SIGTERM every buffered visit reaches the raw visits, the rollups and the counts', async (t) => {
  const db = await databaseWithLinks(t);
  const kurz = await startServe(t, { ...db.env, KURZ_VISIT_FLUSH_INTERVAL: '60s' });
  t.true(backgroundPid(kurz.output().stderr) > 0, 'with its background process');
  const visits: Array<[string, string, Record<string, string>]> = [
    ['one', BROWSER_UA, { referer: 'https://news.example/a', 'accept-language': 'de-DE' }],
    ['one', IPHONE, {}],
    ['one', SLACKBOT, {}],
    ['two', BROWSER_UA, {}],
    ['two', 'curl/8.5.0', {}],
    ['two', BROWSER_UA, {}],
  ];
  for (const [code, ua, headers] of visits) t.is(await follow(kurz, code, ua, headers), 302);

  t.is(await kurz.stop(), 0);
  t.deepEqual(
    await db.sql(
      'SELECT code, bot, referrer, browser, os, device, language FROM visits JOIN links ON links.id = visits.link_id ORDER BY visits.id',
    ),
    [
      { code: 'one', bot: null, referrer: 'news.example', browser: 'Chrome', os: 'Linux', device: 'desktop', language: 'de' },
      { code: 'one', bot: null, referrer: null, browser: 'Safari', os: 'iOS', device: 'mobile', language: null },
      { code: 'one', bot: 'Slack', referrer: null, browser: null, os: null, device: null, language: null },
      { code: 'two', bot: null, referrer: null, browser: 'Chrome', os: 'Linux', device: 'desktop', language: null },
      { code: 'two', bot: 'curl', referrer: null, browser: null, os: null, device: null, language: null },
      { code: 'two', bot: null, referrer: null, browser: 'Chrome', os: 'Linux', device: 'desktop', language: null },
    ],
  );
  t.deepEqual(
    await db.sql(
      'SELECT code, sum(humans) AS humans, sum(bots) AS bots, sum(uniques) AS uniques FROM visit_hours JOIN links ON links.id = link_id GROUP BY code ORDER BY code',
    ),
    [
      { code: 'one', humans: 2, bots: 1, uniques: 2 },
      { code: 'two', humans: 2, bots: 1, uniques: 1 },
    ],
  );
  t.deepEqual(await db.sql('SELECT code, humans, bots FROM visit_days JOIN links ON links.id = link_id ORDER BY code'), [
    { code: 'one', humans: 2, bots: 1 },
    { code: 'two', humans: 2, bots: 1 },
  ]);
  t.deepEqual(await db.sql('SELECT code, count FROM link_visits JOIN links ON links.id = link_id ORDER BY code'), [
    { code: 'one', count: 2 },
    { code: 'two', count: 2 },
  ]);
});

test('once the background process is killed, the server starts another, which classifies and writes later visits', async (t) => {
  const db = await databaseWithLinks(t);
  const kurz = await startServe(t, { ...db.env, KURZ_VISIT_FLUSH_INTERVAL: '100ms' });
  t.is(await follow(kurz, 'one', BROWSER_UA), 302);
  await waitFor(async () => (await hourTotals(db)).humans === 1);
  const pid = backgroundPid(kurz.output().stderr);
  process.kill(pid, 'SIGKILL');
  await waitFor(() => /the background process stopped; starting another/.test(kurz.output().stderr));
  await waitFor(() => [...kurz.output().stderr.matchAll(/background process started pid=(\d+)/g)].length === 2, 60_000);

  t.is(await follow(kurz, 'one', IPHONE), 302);
  t.is(await follow(kurz, 'two', BROWSER_UA), 302);
  t.is(await follow(kurz, 'two', SLACKBOT), 302);
  // Written while the server runs: no shutdown needed.
  await waitFor(async () => {
    const totals = await hourTotals(db);
    return totals.humans === 3 && totals.bots === 1;
  }, 60_000);
  t.deepEqual(await hourTotals(db), { humans: 3, bots: 1 });
  t.deepEqual(await db.sql('SELECT bot, browser, os FROM visits ORDER BY id'), [
    { bot: null, browser: 'Chrome', os: 'Linux' },
    { bot: null, browser: 'Safari', os: 'iOS' },
    { bot: null, browser: 'Chrome', os: 'Linux' },
    { bot: 'Slack', browser: null, os: null },
  ]);
  t.is(await kurz.stop(), 0);
  t.deepEqual(await hourTotals(db), { humans: 3, bots: 1 }, 'nothing written twice at shutdown');
  t.deepEqual(await db.sql('SELECT sum(count) AS n FROM link_visits'), [{ n: 3 }]);
});

test('the background process uses the country database and the retention setting of the server', async (t) => {
  const db = await databaseWithLinks(t);
  const mmdb = join(tempDir(t), 'countries.mmdb');
  writeFileSync(mmdb, buildCountryMmdb([{ network: '127.0.0.0/8', country: 'AU' }]));
  const kurz = await startServe(t, {
    ...db.env,
    KURZ_VISIT_FLUSH_INTERVAL: '100ms',
    KURZ_GEOIP_DATABASE: mmdb,
    KURZ_VISIT_RETENTION_DAYS: '0',
  });
  t.true(backgroundPid(kurz.output().stderr) > 0);
  for (let i = 0; i < 3; i++) t.is(await follow(kurz, 'one', BROWSER_UA), 302);
  const countries = () =>
    db.sql<{ value: string; count: number }>(
      'SELECT value, sum(count) AS count FROM visit_dimensions WHERE dimension = ? GROUP BY value',
      DIMENSIONS.indexOf('countries'),
    );
  await waitFor(async () => (await countries())[0]?.count === 3);
  t.deepEqual(await countries(), [{ value: 'AU', count: 3 }]);
  t.is(await kurz.stop(), 0);
  t.deepEqual(await db.sql('SELECT count(*) AS n FROM visits'), [{ n: 0 }], 'no raw visits with visitRetentionDays 0');
  t.deepEqual(await hourTotals(db), { humans: 3, bots: 0 });
});
