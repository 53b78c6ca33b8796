import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import Sqlite from 'better-sqlite3';
import type { VisitStore } from '../../src/store/ports.ts';
import { classifyUserAgent } from '../../src/visits/classify.ts';
import { noCountry, openCountryDatabase, type CountryOf } from '../../src/visits/geo.ts';
import { DAY, dayOf, DIMENSIONS, HOUR, hourOf } from '../../src/visits/visit.ts';
import { VisitLog } from '../../src/visits/visit-events.ts';
import { createVisitRecorder } from '../../src/visits/visit-recorder.ts';
import { visitorHash, visitorSalts } from '../../src/visits/visitor-salts.ts';
import { AppError } from '../../src/core/errors.ts';
import { memoryLogger } from '../../src/core/log.ts';
import { BROWSER_UA, fakeClock, freshDatabase, freshStorage, runCli, sqliteOnly, startKurz, tempDir, waitFor } from '../helpers.ts';
import { buildCountryMmdb } from '../support/mmdb.ts';

const SLACKBOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

/** One visit event as a test writes it: [link id, time, client, user agent, referrer, accepted languages]. */
type Event = [linkId: number, at: number, client: string, userAgent: string, referrer?: string, language?: string];

interface Setup {
  retentionDays?: number;
  countryOf?: CountryOf;
  chunk?: number;
  maxWaitingWhileFailing?: number;
  /** Wraps the real store (to make it fail). */
  store?: (store: VisitStore) => VisitStore;
}

/** A recorder on a fresh database with links 1, 2 and 3, a fake clock and counting randomness. */
async function recorderOn(t: ExecutionContext, setup: Setup = {}) {
  const { storage, database } = await freshStorage(t);
  for (const [i, code] of ['a', 'b', 'c'].entries())
    await database.sql(
      'INSERT INTO links (id, code, url, created_at, updated_at) VALUES (?, ?, ?, 0, 0)',
      i + 1,
      code,
      `https://example.com/${code}`,
    );
  const clock = fakeClock();
  const log = memoryLogger();
  let counter = 0;
  const store: VisitStore = { ...storage.visits, offload: () => false };
  const recorder = createVisitRecorder({
    store: setup.store?.(store) ?? store,
    classify: classifyUserAgent,
    countryOf: setup.countryOf ?? noCountry,
    retentionDays: setup.retentionDays ?? 90,
    now: clock.now,
    salts: visitorSalts({ store, now: clock.now, random: (size) => Buffer.alloc(size, ++counter), makes: true }),
    log,
    ...(setup.chunk === undefined ? {} : { chunk: setup.chunk }),
    ...(setup.maxWaitingWhileFailing === undefined ? {} : { maxWaitingWhileFailing: setup.maxWaitingWhileFailing }),
  });
  /** Adds the events as one flush and waits until they are written. */
  const record = async (events: readonly Event[]): Promise<void> => {
    const visits = new VisitLog();
    for (const [linkId, at, client, userAgent, referrer = '', language = ''] of events)
      visits.record(linkId, at, client, userAgent, referrer, language);
    recorder.add(visits.take());
    await recorder.idle();
  };
  const all = <T>(sql: string, ...params: unknown[]) => database.sql<T>(sql, ...params);
  /** The first column of the first row. */
  const one = async (sql: string, ...params: unknown[]) => Object.values((await database.sql(sql, ...params))[0] ?? {})[0] as number;
  return { database, storage, clock, log, recorder, record, all, one };
}

test('a browser is stored as browser, OS, device, referrer host and language; a bot as its name only', async (t) => {
  const r = await recorderOn(t);
  const now = r.clock.now();
  await r.record([
    [1, now, '192.0.2.1', BROWSER_UA, 'https://www.news.example/story?id=7', 'de-CH,de;q=0.9,en;q=0.8'],
    [1, now + 1, '192.0.2.2', IPHONE, '', 'fr'],
    [1, now + 2, '192.0.2.3', SLACKBOT, 'https://slack.example/', 'en'],
  ]);
  t.deepEqual(await r.all('SELECT link_id, at, bot, referrer, browser, os, device, country, language FROM visits ORDER BY at'), [
    {
      link_id: 1,
      at: now,
      bot: null,
      referrer: 'news.example',
      browser: 'Chrome',
      os: 'Linux',
      device: 'desktop',
      country: null,
      language: 'de',
    },
    { link_id: 1, at: now + 1, bot: null, referrer: null, browser: 'Safari', os: 'iOS', device: 'mobile', country: null, language: 'fr' },
    { link_id: 1, at: now + 2, bot: 'Slack', referrer: null, browser: null, os: null, device: null, country: null, language: null },
  ]);
  t.is(await r.one('SELECT count(*) FROM visitors'), 2, 'a visitor hash for each person, none for the bot');
  t.deepEqual(
    await r.all('SELECT link_id, count, last_at FROM link_visits'),
    [{ link_id: 1, count: 2, last_at: now + 1 }],
    'link_visits counts humans only',
  );
  t.deepEqual(await r.all('SELECT link_id, hour, humans, bots, uniques FROM visit_hours'), [
    { link_id: 1, hour: hourOf(now), humans: 2, bots: 1, uniques: 2 },
  ]);
  t.deepEqual(await r.all('SELECT value, count FROM visit_dimensions WHERE dimension = ?', DIMENSIONS.indexOf('bots')), [
    { value: 'Slack', count: 1 },
  ]);
});

test('only bots visiting a link leave its all-time count alone', async (t) => {
  const r = await recorderOn(t);
  const now = r.clock.now();
  await r.record([
    [2, now, '192.0.2.3', SLACKBOT],
    [2, now, '192.0.2.3', 'curl/8.5.0'],
    [2, now, '192.0.2.3', ''],
  ]);
  t.is(await r.one('SELECT count(*) FROM link_visits'), 0);
  t.is(await r.one('SELECT count(*) FROM visitors'), 0);
  t.deepEqual(await r.all('SELECT humans, bots, uniques FROM visit_days'), [{ humans: 0, bots: 3, uniques: 0 }]);
  t.deepEqual(
    (
      await r.all<{ value: string }>('SELECT value FROM visit_dimensions WHERE dimension = ? ORDER BY value', DIMENSIONS.indexOf('bots'))
    ).map((v) => v.value),
    ['No user agent', 'Slack', 'curl'],
  );
});

test('a visitor is counted once per link and day; the next day again, under a hash that differs', async (t) => {
  const r = await recorderOn(t);
  const day1 = r.clock.now();
  const uniques = (link: number, day: number) =>
    r.one('SELECT coalesce(sum(uniques), 0) FROM visit_days WHERE link_id = ? AND day = ?', link, dayOf(day));
  await r.record([
    [1, day1, '192.0.2.1', BROWSER_UA],
    [1, day1 + HOUR, '192.0.2.1', BROWSER_UA],
    [2, day1 + HOUR, '192.0.2.1', BROWSER_UA],
  ]);
  // A later flush of the same day, the same person: not new.
  await r.record([[1, day1 + 2 * HOUR, '192.0.2.1', BROWSER_UA]]);
  t.is(await uniques(1, day1), 1, 'the same client and browser on one link and day');
  t.is(await uniques(2, day1), 1, 'counted on each link');
  t.deepEqual(
    await r.all('SELECT hour, humans, uniques FROM visit_hours WHERE link_id = 1 ORDER BY hour'),
    [
      { hour: hourOf(day1), humans: 1, uniques: 1 },
      { hour: hourOf(day1 + HOUR), humans: 1, uniques: 0 },
      { hour: hourOf(day1 + 2 * HOUR), humans: 1, uniques: 0 },
    ],
    'unique in the hour first seen',
  );
  await r.record([
    [1, day1 + 3 * HOUR, '192.0.2.2', BROWSER_UA],
    [1, day1 + 3 * HOUR, '192.0.2.1', FIREFOX],
  ]);
  t.is(await uniques(1, day1), 3, 'another address, or another browser, is another visitor');

  const day1Hashes = (await r.all<{ hash: Buffer }>('SELECT hash FROM visitors WHERE day = ?', dayOf(day1))).map((v) =>
    v.hash.toString('hex'),
  );
  t.is(new Set(day1Hashes).size, 4, 'three visitors of link 1 and one of link 2, each its own hash');
  t.true(day1Hashes.every((h) => h.length === 16));

  // Flushed just after midnight: yesterday's last visits use yesterday's salt, so a known visitor stays known.
  const midnight = dayOf(day1) + DAY;
  r.clock.advance(midnight + 30_000 - r.clock.now());
  await r.record([
    [1, midnight - 1000, '192.0.2.1', BROWSER_UA],
    [1, midnight - 500, '192.0.2.3', BROWSER_UA],
  ]);
  t.is(await uniques(1, day1), 4, 'one new visitor, one known');
  t.is(await r.one('SELECT humans FROM visit_days WHERE link_id = 1 AND day = ?', dayOf(day1)), 7);

  r.clock.advance(12 * HOUR);
  const day2 = r.clock.now();
  await r.record([
    [1, day2, '192.0.2.1', BROWSER_UA],
    [1, day2 + 1, '192.0.2.1', BROWSER_UA],
  ]);
  t.is(await uniques(1, day2), 1, 'the next UTC day, counted again');
  const day2Hashes = (await r.all<{ hash: Buffer }>('SELECT hash FROM visitors WHERE day = ?', dayOf(day2))).map((v) =>
    v.hash.toString('hex'),
  );
  t.is(day2Hashes.length, 1);
  t.false(day1Hashes.includes(day2Hashes[0]!), "a new day's salt: the hash cannot be matched with yesterday's");
});

const HASH_INPUTS: Array<[string, Parameters<typeof visitorHash>]> = [
  ['another salt', [Buffer.alloc(32, 2), '192.0.2.1', 'ua', 1]],
  ['another client', [Buffer.alloc(32, 1), '192.0.2.2', 'ua', 1]],
  ['another user agent', [Buffer.alloc(32, 1), '192.0.2.1', 'ub', 1]],
  ['another link', [Buffer.alloc(32, 1), '192.0.2.1', 'ua', 2]],
  ['fields shifted across the separator', [Buffer.alloc(32, 1), '192.0.2.1u', 'a', 1]],
];
for (const [name, input] of HASH_INPUTS) {
  test(`the visitor hash changes with ${name}`, (t) => {
    const base = visitorHash(Buffer.alloc(32, 1), '192.0.2.1', 'ua', 1);
    t.deepEqual(visitorHash(Buffer.alloc(32, 1), '192.0.2.1', 'ua', 1), base, 'the same input, the same hash');
    t.is(base.length, 8);
    t.notDeepEqual(visitorHash(...input), base);
  });
}

/** A small deterministic random source, for varied visits that are the same in every run. */
function lcg(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s % n;
  };
}

test('the rollups agree with the raw visits, over many flushes, hours and days', async (t) => {
  const r = await recorderOn(t, { chunk: 64 });
  const pick = lcg(7);
  const agents = [BROWSER_UA, IPHONE, FIREFOX, SLACKBOT, 'Twitterbot/1.0', 'curl/8.5.0', ''];
  const referrers = [
    '',
    'https://news.example/a',
    'https://www.search.example/?q=1',
    'android-app://com.example',
    'https://social.example/p/1',
  ];
  const languages = ['', 'de-DE', 'en-US,en;q=0.9', 'fr', '*'];
  const people = new Set<string>();
  // Three days of flushes, each a few hours apart; visits from the last few minutes.
  for (let flush = 0; flush < 20; flush++) {
    r.clock.advance(HOUR * (1 + pick(6)));
    const events: Event[] = [];
    for (let i = 0; i < 40; i++) {
      const event: Event = [
        1 + pick(3),
        r.clock.now() - pick(600_000),
        `192.0.2.${pick(6)}`,
        agents[pick(agents.length)]!,
        referrers[pick(referrers.length)]!,
        languages[pick(languages.length)]!,
      ];
      events.push(event);
      if (classifyUserAgent(event[3]).bot === null) people.add(`${event[0]} ${dayOf(event[1])} ${event[2]} ${event[3]}`);
    }
    await r.record(events);
  }
  t.is(await r.one('SELECT count(*) FROM visits'), 800);
  t.true((await r.one('SELECT count(DISTINCT at / 86400000) FROM visits')) >= 3, 'the visits span days');

  const hours = 'SELECT link_id, hour, humans, bots FROM visit_hours ORDER BY link_id, hour';
  const rawHours = `SELECT link_id, at - at % 3600000 AS hour, sum(CASE WHEN bot IS NULL THEN 1 ELSE 0 END) AS humans,
    sum(CASE WHEN bot IS NULL THEN 0 ELSE 1 END) AS bots
    FROM visits GROUP BY 1, 2 ORDER BY 1, 2`;
  t.deepEqual(await r.all(hours), await r.all(rawHours), 'visit_hours: humans and bots per link and hour');

  const days = 'SELECT day, link_id, humans, bots, uniques FROM visit_days ORDER BY day, link_id';
  const hoursPerDay = `SELECT hour - hour % 86400000 AS day, link_id, sum(humans) AS humans, sum(bots) AS bots, sum(uniques) AS uniques
    FROM visit_hours GROUP BY 1, 2 ORDER BY 1, 2`;
  t.deepEqual(await r.all(days), await r.all(hoursPerDay), 'visit_days: visit_hours summed per day');
  const daysSummed = `SELECT day, sum(humans) AS humans, sum(bots) AS bots, sum(uniques) AS uniques FROM visit_days GROUP BY 1 ORDER BY 1`;
  t.deepEqual(
    await r.all('SELECT day, humans, bots, uniques FROM visit_totals ORDER BY day'),
    await r.all(daysSummed),
    'visit_totals: visit_days summed',
  );

  const visitorsPerDay = 'SELECT day, link_id, count(*) AS uniques FROM visitors GROUP BY 1, 2 ORDER BY 1, 2';
  t.deepEqual(
    await r.all(visitorsPerDay),
    await r.all('SELECT day, link_id, uniques FROM visit_days WHERE uniques > 0 ORDER BY 1, 2'),
    'one visitor hash per unique visitor',
  );
  t.is(await r.one('SELECT sum(uniques) FROM visit_days'), people.size, 'unique visitors: distinct client and browser per link and day');

  const columns: Record<string, string> = {
    referrers: 'referrer',
    browsers: 'browser',
    os: 'os',
    devices: 'device',
    countries: 'country',
    languages: 'language',
  };
  const rawDimensions = [
    ...Object.entries(columns).map(
      ([dimension, column]) => `SELECT link_id, at - at % 3600000 AS hour, ${DIMENSIONS.indexOf(dimension as never)} AS dimension,
        coalesce(${column}, '') AS value, count(*) AS count FROM visits WHERE bot IS NULL GROUP BY 1, 2, 4`,
    ),
    `SELECT link_id, at - at % 3600000, ${DIMENSIONS.indexOf('bots')}, bot, count(*) FROM visits WHERE bot IS NOT NULL GROUP BY 1, 2, 4`,
  ].join(' UNION ALL ');
  const expected = await r.all(`SELECT * FROM (${rawDimensions}) AS raw ORDER BY link_id, hour, dimension, value`);
  t.true(expected.length > 100);
  t.deepEqual(
    await r.all('SELECT link_id, hour, dimension, value, count FROM visit_dimensions ORDER BY link_id, hour, dimension, value'),
    expected,
  );
  t.deepEqual(
    await r.all('SELECT link_id, day, dimension, value, count FROM visit_dimension_days ORDER BY link_id, day, dimension, value'),
    await r.all(`SELECT link_id, hour - hour % 86400000 AS day, dimension, value, sum(count) AS count FROM visit_dimensions
      GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`),
    'visit_dimension_days: visit_dimensions summed per day',
  );

  t.deepEqual(
    await r.all('SELECT link_id, count, last_at FROM link_visits ORDER BY link_id'),
    await r.all('SELECT link_id, count(*) AS count, max(at) AS last_at FROM visits WHERE bot IS NULL GROUP BY link_id ORDER BY link_id'),
    'link_visits: human visits and the latest',
  );
});

test('prune() deletes raw visits past the retention period and old visitor hashes; the rollups stay', async (t) => {
  const r = await recorderOn(t, { retentionDays: 30 });
  const now = r.clock.now();
  // Written as they happened, each with the clock of its day.
  const times = [now - 40 * DAY, now - 31 * DAY, now - 29 * DAY, now - 2 * DAY, now - DAY, now];
  r.clock.advance(-40 * DAY);
  for (const at of times) {
    r.clock.advance(at - r.clock.now());
    await r.record([
      [1, at, '192.0.2.1', BROWSER_UA],
      [2, at, '192.0.2.1', SLACKBOT],
    ]);
  }
  t.is(r.clock.now(), now);
  const rollups = async () => ({
    hours: await r.all('SELECT * FROM visit_hours ORDER BY link_id, hour'),
    days: await r.all('SELECT * FROM visit_days ORDER BY day, link_id'),
    dimensions: await r.all('SELECT * FROM visit_dimensions ORDER BY link_id, hour, dimension, value'),
    links: await r.all('SELECT * FROM link_visits'),
  });
  const before = await rollups();
  t.is(before.hours.length, 12);
  t.is(await r.recorder.expired(), 4, 'two flushes of two visits are past 30 days');
  t.is(await r.one('SELECT count(*) FROM visits'), 12, 'expired() deletes nothing');

  t.is(await r.recorder.prune(), 4);
  t.deepEqual(
    (await r.all<{ at: number }>('SELECT DISTINCT at FROM visits ORDER BY at')).map((v) => v.at),
    times.slice(2),
  );
  t.deepEqual(await rollups(), before, 'the rollups are untouched');
  t.deepEqual(
    (await r.all<{ day: number }>('SELECT day FROM visitors ORDER BY day')).map((v) => v.day),
    [dayOf(now - DAY), dayOf(now)],
    "only today's and yesterday's visitor hashes are kept",
  );
  t.is(await r.recorder.expired(), 0);
  t.is(await r.recorder.prune(), 0, 'nothing twice');
});

test('prune() deletes more raw visits than one batch holds', async (t) => {
  const r = await recorderOn(t, { retentionDays: 1 });
  const old = r.clock.now() - 10 * DAY;
  await r.database.insert(
    'visits',
    Array.from({ length: 12_001 }, (_, i) => ({ link_id: 1, at: old + i, bot: null })),
  );
  await r.database.sql('INSERT INTO visits (link_id, at, bot) VALUES (1, ?, NULL)', r.clock.now());
  t.is(await r.recorder.expired(), 12_001);
  t.is(await r.recorder.prune(), 12_001);
  t.is(await r.one('SELECT count(*) FROM visits'), 1);
});

test('with visitRetentionDays 0 no raw visit is written, only the rollups', async (t) => {
  const r = await recorderOn(t, { retentionDays: 0 });
  const now = r.clock.now();
  await r.record([
    [1, now, '192.0.2.1', BROWSER_UA, 'https://news.example/'],
    [1, now, '192.0.2.2', SLACKBOT],
  ]);
  t.is(await r.one('SELECT count(*) FROM visits'), 0);
  t.deepEqual(await r.all('SELECT humans, bots, uniques FROM visit_hours'), [{ humans: 1, bots: 1, uniques: 1 }]);
  t.is(await r.one('SELECT count FROM visit_dimensions WHERE value = ?', 'news.example'), 1);
  t.is(await r.one('SELECT count FROM link_visits WHERE link_id = 1'), 1);
});

test('while writes fail, visits wait up to a bound with their detail, newer ones beyond it as counts, and each is logged once', async (t) => {
  let failing = true;
  const r = await recorderOn(t, {
    maxWaitingWhileFailing: 4,
    store: (store) => ({
      ...store,
      addVisits: (batch) =>
        failing ? Promise.reject(new AppError('unavailable', 'the database cannot be written: the disk is full')) : store.addVisits(batch),
    }),
  });
  const now = r.clock.now();
  const visit = (i: number): Event => [1, now + i, `192.0.2.${i}`, BROWSER_UA];
  await r.record([visit(0), visit(1), visit(2)]);
  await r.record([visit(3)]);
  await r.record([visit(4), visit(5)]);
  await r.record([visit(6)]);
  t.is(r.recorder.pending, 5, 'the first four wait, and one count for the three after them');
  t.is(r.recorder.detailDropped, 3);
  t.deepEqual(
    r.log.lines.filter((l) => l.includes('could not write visits')).map((l) => l.replace(/^\S+ /, '')),
    [
      'error could not write visits; will retry every second, keeping them in memory visits=3 err="the database cannot be written: the disk is full"',
    ],
    'logged once, without the stack of an error the store has logged',
  );
  t.is(r.log.lines.filter((l) => l.includes('too many visits wait for the database')).length, 1);

  failing = false;
  await waitFor(() => r.recorder.pending === 0);
  await r.recorder.idle();
  t.deepEqual(
    (await r.all<{ at: number }>('SELECT at FROM visits ORDER BY at')).map((v) => v.at - now),
    [0, 1, 2, 3],
    'a raw visit for each that kept its detail',
  );
  t.deepEqual(await r.all('SELECT sum(humans) AS humans FROM visit_hours'), [{ humans: 7 }], 'every visit counted');
  t.deepEqual(await r.all('SELECT count FROM link_visits'), [{ count: 7 }]);
  t.true(r.log.lines.some((l) => l.includes('visits are written again') && l.endsWith('detailDropped=3')));
});

test('a write that fails is tried again: nothing is lost and nothing is written twice', async (t) => {
  let calls = 0;
  let failures = 0;
  const r = await recorderOn(t, {
    chunk: 2,
    store: (store) => ({
      ...store,
      addVisits(batch) {
        // The second transaction fails once (a busy database).
        if (++calls === 2) {
          failures++;
          return Promise.reject(new Error('SQLITE_BUSY: database is locked'));
        }
        return store.addVisits(batch);
      },
    }),
  });
  const now = r.clock.now();
  const events: Event[] = Array.from({ length: 5 }, (_, i) => [1 + (i % 2), now + i, `192.0.2.${i}`, i === 4 ? SLACKBOT : BROWSER_UA]);
  await r.record(events);
  t.is(failures, 1);
  t.true(r.recorder.pending > 0, 'the failed chunk and the rest wait for the retry');
  t.true(r.log.lines.some((l) => l.includes('could not write visits; will retry')));
  // Visits added while the retry waits go with it.
  await r.record([[3, now + 10, '192.0.2.9', BROWSER_UA]]);
  await waitFor(() => r.recorder.pending === 0);
  await r.recorder.idle();
  t.is(await r.one('SELECT count(*) FROM visits'), 6);
  t.deepEqual(
    (await r.all<{ at: number }>('SELECT at FROM visits ORDER BY at')).map((v) => v.at),
    [0, 1, 2, 3, 4, 10].map((i) => now + i),
  );
  t.deepEqual(await r.all('SELECT link_id, humans, bots, uniques FROM visit_hours ORDER BY link_id'), [
    { link_id: 1, humans: 2, bots: 1, uniques: 2 },
    { link_id: 2, humans: 2, bots: 0, uniques: 2 },
    { link_id: 3, humans: 1, bots: 0, uniques: 1 },
  ]);
  t.deepEqual(await r.all('SELECT link_id, count FROM link_visits ORDER BY link_id'), [
    { link_id: 1, count: 2 },
    { link_id: 2, count: 2 },
    { link_id: 3, count: 1 },
  ]);
});

/** Where `needle` occurs in `haystack`, or -1. */
const find = (haystack: Buffer, needle: Buffer): number => haystack.indexOf(needle);

/** The byte forms a string could be stored in: ASCII, UTF-16 little and big endian. */
function spellings(text: string): Buffer[] {
  const le = Buffer.from(text, 'utf16le');
  const be = Buffer.from(le).swap16();
  return [Buffer.from(text, 'latin1'), le, be];
}

sqliteOnly('no client address, user agent or referrer path reaches the database file or its WAL', 'scans the SQLite file', async (t) => {
  const r = await recorderOn(t);
  const path = r.database.file;
  const person = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0; Kurzwelle-7731) Gecko/20100101 Firefox/133.0';
  const robot = 'Mozilla/5.0 (compatible; KurzProbe/2.0; +https://probe.example/bot-7731)';
  const addresses = ['203.0.113.77', '2001:db8::beef', '::ffff:198.51.100.23'];
  const now = r.clock.now();
  const events: Event[] = [];
  for (const [i, client] of addresses.entries()) {
    events.push([1, now + i, client, person, 'https://news.example/private/path-7731?token=s3cr3t', 'de']);
    events.push([2, now + i, client, robot, 'https://news.example/private/path-7731', 'de']);
  }
  await r.record(events);
  t.deepEqual(
    await r.all('SELECT DISTINCT bot, browser, referrer FROM visits ORDER BY bot'),
    [
      { bot: null, browser: 'Firefox', referrer: 'news.example' },
      { bot: 'KurzProbe', browser: null, referrer: null },
    ],
    'the visits were written, as a person and as a bot',
  );

  const needles: Array<[string, Buffer]> = [];
  for (const text of [...addresses, '198.51.100.23', person, robot, 'Kurzwelle-7731', 'path-7731', 's3cr3t'])
    for (const bytes of spellings(text)) needles.push([text, bytes]);
  needles.push(['203.0.113.77 as 4 bytes', Buffer.from([203, 0, 113, 77])]);
  needles.push(['198.51.100.23 as 4 bytes', Buffer.from([198, 51, 100, 23])]);
  needles.push(['2001:db8::beef as 16 bytes', Buffer.from(`20010db8${'0'.repeat(20)}beef`, 'hex')]);

  const scan = (when: string) => {
    const files = [path, `${path}-wal`].filter((f) => existsSync(f));
    const contents = files.map((f) => readFileSync(f));
    t.true(
      contents.some((c) => c.length > 0),
      `${when}: there is something to scan`,
    );
    for (const [i, file] of files.entries()) {
      for (const [name, bytes] of needles) t.is(find(contents[i]!, bytes), -1, `${when}: ${name} in ${file}`);
    }
  };
  scan('before the checkpoint');
  const checkpoint = new Sqlite(path);
  checkpoint.pragma('wal_checkpoint(TRUNCATE)');
  checkpoint.close();
  await r.storage.close();
  scan('after the checkpoint');
  t.true(readFileSync(path).includes(Buffer.from('news.example')), 'the scan reads the rows that were written');
});

test('a visit from an address in a mapped network gets its country; others none', async (t) => {
  const path = join(tempDir(t), 'countries.mmdb');
  writeFileSync(
    path,
    buildCountryMmdb([
      { network: '203.0.113.0/24', country: 'NL' },
      { network: '2001:db8::/32', country: 'JP' },
    ]),
  );
  const r = await recorderOn(t, { countryOf: openCountryDatabase(path) });
  const now = r.clock.now();
  await r.record([
    [1, now, '203.0.113.77', BROWSER_UA],
    [1, now + 1, '::ffff:203.0.113.78', BROWSER_UA],
    [1, now + 2, '2001:db8::beef', BROWSER_UA],
    [1, now + 3, '198.51.100.1', BROWSER_UA],
    [1, now + 4, '203.0.113.79', SLACKBOT],
  ]);
  t.deepEqual(
    (await r.all<{ country: string | null }>('SELECT country FROM visits ORDER BY at')).map((v) => v.country),
    ['NL', 'NL', 'JP', null, null],
  );
  t.deepEqual(
    await r.all('SELECT value, count FROM visit_dimensions WHERE dimension = ? ORDER BY value', DIMENSIONS.indexOf('countries')),
    [
      { value: '', count: 1 },
      { value: 'JP', count: 1 },
      { value: 'NL', count: 2 },
    ],
  );
});

test('a configured country database that cannot be read stops the app, naming the file', async (t) => {
  const dir = tempDir(t);
  const missing = join(dir, 'missing.mmdb');
  await t.throwsAsync(startKurz(t, { geoipDatabase: missing }), { message: new RegExp(`cannot read the country database ${missing}`) });
  const junk = join(dir, 'junk.mmdb');
  writeFileSync(junk, 'not a database');
  await t.throwsAsync(startKurz(t, { geoipDatabase: junk }), { message: new RegExp(`the country database ${junk} is not a MaxMind DB`) });
});

test('kurz serve with a country database that cannot be read exits, naming the file', async (t) => {
  const dir = tempDir(t);
  const missing = join(dir, 'missing.mmdb');
  const result = await runCli(['serve'], { ...(await freshDatabase(t)).env, KURZ_PORT: '0', KURZ_GEOIP_DATABASE: missing });
  t.is(result.code, 1);
  t.true(result.stderr.includes(`cannot read the country database ${missing}`), result.stderr);
  t.false(result.stderr.includes('    at '), 'no stack trace');
});
