// How fast the stats read on a big database: node bench/stats.ts [--visits N] [--links N] [--chunk N] [--runs N]
// [--db FILE] (make bench-stats). Seeds a fresh database with links (plain INSERTs: links are not what is
// measured) and visits over the last 90 days, written through kurz's own write path (rollUp, then the
// SQLite visit store's addVisits, as the background writer does), so the raw rows and rollups are what
// production holds. Then times a link's stats page and the dashboard, cold and warm, and writes
// bench/results/stats-latest.md. STATS_VISITS and STATS_LINKS change the defaults; --db keeps the seeded file,
// and measures an existing one without seeding again.
import { randomFillSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { constants, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Database } from 'better-sqlite3';
import type { Link } from '../src/links/link.ts';
import { createLogger } from '../src/core/log.ts';
import { openDatabase } from '../src/store/sqlite/database.ts';
import { createSqliteLinkStore } from '../src/store/sqlite/link-store.ts';
import * as q from '../src/store/sqlite/queries.ts';
import { createSqliteVisitStore, type SqliteVisitStore } from '../src/store/sqlite/visit-store.ts';
import { watchWrites } from '../src/store/sqlite/write-health.ts';
import { rollUp } from '../src/visits/rollup.ts';
import { visitStats, type VisitStats } from '../src/visits/stats.ts';
import { DAY, dayOf, HOUR, hourOf, type Visit } from '../src/visits/visit.ts';
import { count } from './scenarios.ts';

const RESULTS = join(import.meta.dirname, 'results');
/** The period the visits cover: the retention period and the link page's default span. */
const DAYS = 90;
/** The targets the figures are held against, in ms (p95). */
const LINK_TARGET_MS = 50;
const DASHBOARD_TARGET_MS = 200;
const WARM_UP_RUNS = 3;

/** Human visits that are the same visitor's again (same link and day): those are not unique. */
const REPEAT_SHARE = 0.2;
const BOT_SHARE = 0.05;
/** Zipf exponent of link popularity: with 100k links the top link gets about 8% of all visits. */
const LINK_SKEW = 1;

// Value lists, most frequent first: zipfEntries gives them long-tailed weights.
const REFERRERS = (
  'google.com t.co news.ycombinator.com reddit.com linkedin.com facebook.com l.facebook.com ' +
  'duckduckgo.com bing.com github.com lobste.rs mastodon.social slack.com teams.microsoft.com ' +
  'instagram.com youtube.com medium.com substack.com stackoverflow.com dev.to news.google.com ' +
  'getpocket.com feedly.com mail.google.com outlook.live.com baidu.com yandex.ru ecosia.org ' +
  'search.brave.com kagi.com'
).split(' ');
const CLIENTS: [browser: string | null, os: string | null, device: string, weight: number][] = [
  ['Chrome', 'Windows', 'desktop', 30],
  ['Chrome', 'Android', 'mobile', 20],
  ['Safari', 'iOS', 'mobile', 15],
  ['Safari', 'macOS', 'desktop', 7],
  ['Chrome', 'macOS', 'desktop', 6],
  ['Microsoft Edge', 'Windows', 'desktop', 6],
  ['Firefox', 'Windows', 'desktop', 3],
  ['Samsung Internet for Android', 'Android', 'mobile', 3],
  ['Safari', 'iOS', 'tablet', 2],
  ['Firefox', 'Linux', 'desktop', 1.5],
  ['Chrome', 'Linux', 'desktop', 1.5],
  ['Chrome', 'Chrome OS', 'desktop', 1],
  ['Opera', 'Windows', 'desktop', 1],
  ['Chrome', 'Android', 'tablet', 1],
  [null, null, 'other', 2],
];
const COUNTRIES =
  'US DE GB IN FR CA BR NL JP AU ES IT PL SE CH AT BE MX KR ID TR RU UA CZ DK NO FI IE PT AR CO ZA NG EG SG TW VN PH IL NZ'.split(' ');
const LANGUAGES = ['en', 'de', 'fr', 'es', 'pt', 'ja', 'nl', 'it', 'pl', 'sv', 'ru', 'zh', 'ko', 'tr', 'id', 'uk', 'cs', 'da', 'fi', 'nb'];
const BOTS = ['Google', 'Slack', 'X', 'Facebook', 'Bing', 'Discord', 'LinkedIn', 'curl'];

const { values: flags } = parseArgs({
  options: {
    visits: { type: 'string', default: process.env.STATS_VISITS ?? '10000000' },
    links: { type: 'string', default: process.env.STATS_LINKS ?? '100000' },
    chunk: { type: 'string', default: '50000' },
    runs: { type: 'string', default: '20' },
    db: { type: 'string' },
  },
});
const settings = {
  visits: wholeNumber('visits', flags.visits),
  links: wholeNumber('links', flags.links),
  chunk: wholeNumber('chunk', flags.chunk),
  runs: wholeNumber('runs', flags.runs),
};

const dir = flags.db === undefined ? mkdtempSync(join(tmpdir(), 'kurz-stats-')) : undefined;
if (dir !== undefined) process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
// The temporary database is gigabytes: an interrupted run removes it too.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(128 + constants.signals[signal]));
const file = flags.db ?? join(dir!, 'stats.db');

let seeding: SeedResult | undefined;
if (existsSync(file)) console.log(`measuring ${file} as it is (delete it to seed again)`);
else seeding = await seed(file, settings);
const report = await measure(file, settings.runs);
const markdown = toMarkdown(report, seeding);
mkdirSync(RESULTS, { recursive: true });
const stamp = new Date().toISOString().slice(0, 19).replace(/:/g, '-') + 'Z';
const files = [join(RESULTS, `${stamp}-stats.md`), join(RESULTS, 'stats-latest.md')];
for (const f of files) writeFileSync(f, markdown);
console.log('\n' + markdown);
console.log(`written: ${files.join(', ')}`);

// --- seeding ---

interface SeedResult {
  links: number;
  visits: number;
  chunk: number;
  linkSeconds: number;
  visitSeconds: number;
  /** Of visitSeconds, in rollUp and addVisits: kurz's write path. */
  writeSeconds: number;
  /** The share of all visits the most visited link gets. */
  topShare: number;
}

/** Creates and fills the database at `path` through kurz's own code; prints progress. */
async function seed(path: string, options: typeof settings): Promise<SeedResult> {
  const now = Date.now();
  console.log(`seeding ${count(options.links)} links and ${count(options.visits)} visits into ${path}`);
  const db = openDatabase(path);
  let started = performance.now();
  insertLinks(db, options.links, now);
  const linkSeconds = (performance.now() - started) / 1000;

  const store = createSqliteVisitStore(db, watchWrites(db, createLogger(process.stderr)));
  const generator = visitGenerator(options.links, options.visits, now);
  // Where the time goes: making the visits is the bench's, rolling up and writing is kurz's.
  const spent = { making: 0, rollUp: 0, addVisits: 0 };
  started = performance.now();
  for (let first = 0, reported = 0; first < options.visits; first += options.chunk) {
    let t = performance.now();
    const visits = generator.visits(first, Math.min(options.chunk, options.visits - first));
    spent.making += performance.now() - t;
    t = performance.now();
    const batch = rollUp(visits, true);
    spent.rollUp += performance.now() - t;
    t = performance.now();
    await store.addVisits(batch);
    spent.addVisits += performance.now() - t;

    const done = first + visits.length;
    if (done * 10 >= (reported + 1) * options.visits || done === options.visits) {
      reported = Math.floor((done * 10) / options.visits);
      const seconds = (performance.now() - started) / 1000;
      const split = Object.entries(spent).map(([what, time]) => `${what} ${(time / 1000).toFixed(0)} s`);
      console.log(`  ${count(done).padStart(5)} visits, ${seconds.toFixed(0)} s (${split.join(', ')}), ${rate(done / seconds)} visits/s`);
    }
  }
  await store.idle();
  const visitSeconds = (performance.now() - started) / 1000;
  db.close();
  return {
    links: options.links,
    visits: options.visits,
    chunk: options.chunk,
    linkSeconds,
    visitSeconds,
    writeSeconds: (spent.rollUp + spent.addVisits) / 1000,
    topShare: generator.topShare(),
  };
}

/**
 * Makes `total` visits to links 1…`links` over the DAYS before `now`, in time order as the background writer
 * gets them (a chunk covers a few hours). A seeded generator: every run gets the same links, times and
 * values; only the visitor hashes are random.
 */
function visitGenerator(links: number, total: number, now: number): { visits(first: number, size: number): Visit[]; topShare(): number } {
  const random = prng(0x6b75727a);
  // Popularity rank -> link id, shuffled so that the popular links are not the first ids.
  const ids = Int32Array.from({ length: links }, (_, i) => i + 1);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  const rank = zipfIndex(links, LINK_SKEW, random);
  const referrer = weighted([...zipfEntries(REFERRERS), [null, 0.4 * harmonic(REFERRERS.length)]], random);
  const client = weighted(
    CLIENTS.map(([browser, os, device, weight]) => [{ browser, os, device }, weight]),
    random,
  );
  const country = weighted([...zipfEntries(COUNTRIES), [null, 0.03 * harmonic(COUNTRIES.length)]], random);
  const language = weighted(zipfEntries(LANGUAGES), random);
  const bot = weighted(zipfEntries(BOTS), random);
  // Each link's last visitor and the day of that visit, for repeat visits.
  const lastVisitor = new Map<number, { day: number; hash: Buffer }>();
  const from = now - DAYS * DAY;
  let top = 0;
  let made = 0;

  return {
    visits(first, size) {
      // Fresh visitor hashes: 8 random bytes each, as visitorHash makes them.
      const hashes = randomFillSync(Buffer.allocUnsafe(size * 8));
      const visits = new Array<Visit>(size);
      for (let k = 0; k < size; k++) {
        const at = from + Math.floor(((first + k + random()) * DAYS * DAY) / total);
        const r = rank();
        if (r === 0) top++;
        const linkId = ids[r]!;
        if (random() < BOT_SHARE) {
          const none = {
            referrer: null,
            browser: null,
            os: null,
            device: null,
            country: null,
            language: null,
            visitor: null,
            variant: null,
            rule: null,
          };
          visits[k] = { linkId, at, bot: bot(), ...none };
          continue;
        }
        const day = dayOf(at);
        const last = lastVisitor.get(linkId);
        let visitor: Buffer;
        if (last !== undefined && last.day === day && random() < REPEAT_SHARE) visitor = last.hash;
        else lastVisitor.set(linkId, { day, hash: (visitor = hashes.subarray(k * 8, k * 8 + 8)) });
        visits[k] = {
          linkId,
          at,
          bot: null,
          referrer: referrer(),
          ...client(),
          country: country(),
          language: language(),
          visitor,
          variant: null,
          rule: null,
        };
      }
      made += size;
      return visits;
    },
    topShare: () => top / made,
  };
}

/** `n` links created over the year before `now`, in id order, in one transaction (visits do not look at creation times). */
function insertLinks(db: Database, n: number, now: number): void {
  const insert = db.prepare(`INSERT INTO links (id, code, url, is_alias, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)`);
  db.transaction(() => {
    for (let id = 1; id <= n; id++) {
      const created = now - 365 * DAY + Math.floor((id * 365 * DAY) / (n + 1));
      insert.run(
        id,
        `s${id.toString(36)}`,
        `https://www.example.com/articles/${id}/a-link-people-share?utm_source=kurz-bench`,
        created,
        created,
      );
    }
  })();
}

/** A seeded generator of numbers in [0, 1) (mulberry32): the same database on every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws indexes 0…n-1 with weight 1/(index+1)^skew, by binary search over the cumulative weights. */
function zipfIndex(n: number, skew: number, random: () => number): () => number {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cumulative[i] = sum += 1 / (i + 1) ** skew;
  return () => {
    const target = random() * sum;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (cumulative[mid]! < target) low = mid + 1;
      else high = mid;
    }
    return low;
  };
}

function zipfEntries<T>(values: readonly T[]): [T, number][] {
  return values.map((v, i) => [v, 1 / (i + 1)]);
}

/** The sum of zipfEntries' weights: a share of it gives an extra entry that share of the draws, about. */
function harmonic(n: number): number {
  let sum = 0;
  for (let i = 1; i <= n; i++) sum += 1 / i;
  return sum;
}

/** Draws values in proportion to their weights (short lists: a linear scan). */
function weighted<T>(entries: readonly [T, number][], random: () => number): () => T {
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  return () => {
    let target = random() * total;
    for (const [value, w] of entries) if ((target -= w) < 0) return value;
    return entries.at(-1)![0];
  };
}

// --- measuring ---

interface Timing {
  name: string;
  /** In ms, held against the p95s; undefined for the store calls, which are there to explain. */
  target: number | undefined;
  cold: number[];
  warm: number[];
}

interface Report {
  file: string;
  bytes: number;
  sqlite: string;
  runs: number;
  /** The links whose pages were timed. */
  links: Picked[];
  rows: Record<string, number>;
  /** Bytes per table and index (SQLite's dbstat), when this SQLite has it. */
  tableBytes: Record<string, number> | undefined;
  stats: Timing[];
  store: Timing[];
  /** EXPLAIN QUERY PLAN of each query the stats make, by its name in queries.ts. */
  plans: Record<string, string[]>;
}

interface Picked {
  name: string;
  link: Link;
  /** People's visits, all time. */
  visits: number;
}

type Call = (stats: VisitStats, store: SqliteVisitStore) => Promise<unknown>;

/** Times the link page's and the dashboard's stats, and each store query they make, cold and warm. */
async function measure(path: string, runs: number): Promise<Report> {
  let now = 0;
  const open = (): { db: Database; store: SqliteVisitStore; stats: VisitStats } => {
    const db = openDatabase(path, { mustExist: true });
    const store = createSqliteVisitStore(db, watchWrites(db, createLogger(process.stderr)));
    return { db, store, stats: visitStats({ visits: { ...store, offload: () => false }, now: () => now, severalDomains: () => false }) };
  };
  console.log(`\nreading ${path}`);
  const db = openDatabase(path, { mustExist: true });
  // Just after the last visit, so that the periods cover what was seeded, whenever that was.
  now = (db.prepare<[], number>('SELECT max(at) FROM visits').pluck().get() ?? Date.now()) + 1;
  const links = await pickLinks(db);
  const sqlite = db.prepare<[], string>(q.SQLITE_VERSION).pluck().get() ?? '';
  const rows = rowCounts(db);
  const tableBytes = sizesOf(db);
  const plans = queryPlans(db, links[0]!.link.id, now);
  db.close();

  const stats: [string, number | undefined, Call][] = [];
  for (const { name, link, visits } of links) {
    stats.push([
      `${name} link (${visitCount(visits)}), ${DAYS} days by the day`,
      LINK_TARGET_MS,
      (s) => s.forLink(link, { granularity: 'day' }),
    ]);
    stats.push([`${name} link (${visitCount(visits)}), 48 h by the hour`, LINK_TARGET_MS, (s) => s.forLink(link, { granularity: 'hour' })]);
  }
  stats.push(['dashboard, 14 days', DASHBOARD_TARGET_MS, (s) => s.forInstance(14)]);

  // The periods forLink and forInstance ask the store for (alignedPeriod's defaults).
  const to = new Date(dayOf(now) + DAY);
  const days = new Date(to.getTime() - DAYS * DAY);
  const hourTo = new Date(hourOf(now) + HOUR);
  const hours = new Date(hourTo.getTime() - 48 * HOUR);
  const fortnight = new Date(to.getTime() - 14 * DAY);
  const store: [string, number | undefined, Call][] = [];
  for (const { name, link } of links) {
    store.push([`linkHours, ${name} link, ${DAYS} days`, undefined, (_, s) => s.linkHours(link.id, days, to)]);
    store.push([`linkDimensions, ${name} link, ${DAYS} days`, undefined, (_, s) => s.linkDimensions(link.id, days, to)]);
    store.push([`linkDimensions, ${name} link, 48 h`, undefined, (_, s) => s.linkDimensions(link.id, hours, hourTo)]);
  }
  store.push(['dayTotals, 14 days', undefined, (_, s) => s.dayTotals(fortnight, to)]);
  store.push(['topLinks, 14 days', undefined, (_, s) => s.topLinks(fortnight, to, 10)]);
  store.push(['totals', undefined, (_, s) => s.totals()]);
  store.push(['linksCreatedPerDay, 14 days', undefined, (_, s) => s.linksCreatedPerDay(fortnight, to)]);

  const timeAll = async (calls: typeof stats): Promise<Timing[]> => {
    const timings: Timing[] = [];
    for (const [name, target, call] of calls) {
      process.stdout.write(`  ${name}: `);
      const timing: Timing = { name, target, cold: [], warm: [] };
      // Cold: a new connection each run, its statements prepared and its page cache empty.
      for (let i = 0; i < runs; i++) {
        const c = open();
        timing.cold.push(await timed(() => call(c.stats, c.store)));
        c.db.close();
      }
      const w = open();
      for (let i = 0; i < WARM_UP_RUNS; i++) await call(w.stats, w.store);
      for (let i = 0; i < runs; i++) timing.warm.push(await timed(() => call(w.stats, w.store)));
      w.db.close();
      console.log(`cold ${ms(percentile(timing.cold, 50))} ms, warm ${ms(percentile(timing.warm, 50))} ms (medians)`);
      timings.push(timing);
    }
    return timings;
  };
  console.log(`timing ${runs} cold and ${runs} warm runs of each call`);
  const statsTimings = await timeAll(stats);
  console.log('the store calls they make:');
  const storeTimings = await timeAll(store);
  return { file: path, bytes: statSync(path).size, sqlite, runs, links, rows, tableBytes, stats: statsTimings, store: storeTimings, plans };
}

async function timed(call: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await call();
  return performance.now() - start;
}

/** The most visited link, the median one and the least visited one (by people, of those visited), read as the stats page reads them. */
async function pickLinks(db: Database): Promise<Picked[]> {
  const ranked = db
    .prepare<[], { id: number; count: number }>('SELECT link_id AS id, count FROM link_visits ORDER BY count DESC, link_id')
    .all();
  if (ranked.length === 0) throw new Error('the database has no visited links');
  const codeOf = db.prepare<[number], string>('SELECT code FROM links WHERE id = ?').pluck();
  const store = createSqliteLinkStore(db, watchWrites(db, createLogger(process.stderr)));
  try {
    const picks = [
      ['top', ranked[0]!],
      ['median', ranked[Math.floor(ranked.length / 2)]!],
      ['tail', ranked.at(-1)!],
    ] as const;
    return await Promise.all(
      picks.map(async ([name, { id, count: visits }]) => {
        const link = await store.linkByAddress(0, codeOf.get(id) ?? '');
        if (!link) throw new Error(`link ${id} is missing`);
        return { name, link, visits };
      }),
    );
  } finally {
    store.close();
  }
}

/** Rows of the links and of every visit table there is (the visit tables are named visit…). */
function rowCounts(db: Database): Record<string, number> {
  const tables = db
    .prepare<[], string>(
      `SELECT name FROM sqlite_schema WHERE type = 'table' AND (name IN ('links', 'link_visits') OR name LIKE 'visit%') ORDER BY name`,
    )
    .pluck()
    .all();
  return Object.fromEntries(tables.map((t) => [t, db.prepare<[], number>(`SELECT count(*) FROM ${t}`).pluck().get() ?? 0]));
}

/** Bytes per table and index, largest first; undefined when SQLite was built without the dbstat table. */
function sizesOf(db: Database): Record<string, number> | undefined {
  try {
    const rows = db
      .prepare<[], { name: string; bytes: number }>('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC')
      .all();
    return Object.fromEntries(rows.map((r) => [r.name, r.bytes]));
  } catch {
    return undefined;
  }
}

/**
 * How SQLite runs each read query of the stats, with the arguments the top link's page and the dashboard
 * give it. Looked up by name in queries.ts, so a query renamed or gone there is left out here, not an error.
 */
function queryPlans(db: Database, linkId: number, now: number): Record<string, string[]> {
  const to = dayOf(now) + DAY;
  const period = [to - DAYS * DAY, to];
  const fortnight = [to - 14 * DAY, to];
  const queries: [name: string, args: unknown[]][] = [
    ['LINK_HOURS', [linkId, ...period]],
    ['LINK_DIMENSIONS', [linkId, ...period]],
    ['LINK_DIMENSION_DAYS', [linkId, ...period]],
    ['DAY_TOTALS', fortnight],
    ['TOP_LINKS', [{ from: fortnight[0], to: fortnight[1], limit: 10, days: 14 }]],
    ['INSTANCE_TOTALS', []],
    ['LINKS_CREATED_PER_DAY', fortnight],
  ];
  const sqlOf = q as Record<string, unknown>;
  const plans: Record<string, string[]> = {};
  for (const [name, args] of queries) {
    const sql = sqlOf[name];
    if (typeof sql !== 'string') continue;
    const steps = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { id: number; parent: number; detail: string }[];
    const depth = new Map<number, number>([[0, 0]]);
    plans[name] = steps.map((step) => {
      depth.set(step.id, (depth.get(step.parent) ?? 0) + 1);
      return `${'  '.repeat(depth.get(step.id)! - 1)}${step.detail}`;
    });
  }
  return plans;
}

// --- the report ---

function toMarkdown(r: Report, seeded: SeedResult | undefined): string {
  const out: string[] = [];
  out.push(`# kurz stats benchmark, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`, '');
  out.push(`Node ${process.version}, SQLite ${r.sqlite}; ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores.`, '');
  if (seeded) {
    const visitRate = seeded.visits / seeded.visitSeconds;
    out.push(
      `Seeded ${count(seeded.links)} links (plain INSERTs, ${seeded.linkSeconds.toFixed(1)} s) and ${count(seeded.visits)} visits ` +
        `over the last ${DAYS} days, in time order, through \`rollUp(chunk, true)\` and the SQLite visit store's ` +
        `\`addVisits\` in chunks of ${count(seeded.chunk)}: ${seeded.visitSeconds.toFixed(0)} s, ${rate(visitRate)} visits/s ` +
        `(${seeded.writeSeconds.toFixed(0)} s of it in rollUp and addVisits, the rest making the visits). ` +
        `Links by Zipf (s = ${LINK_SKEW}): the top link has ${(seeded.topShare * 100).toFixed(1)}% of the visits. ` +
        `${BOT_SHARE * 100}% bots (${BOTS.length} names); people from ${REFERRERS.length} referrers or none, ` +
        `${CLIENTS.length} browser/OS/device mixes, ${COUNTRIES.length} countries, ${LANGUAGES.length} languages; ` +
        `${REPEAT_SHARE * 100}% of people's visits repeat a visitor of that link and day.`,
      '',
    );
  } else out.push(`Measured ${r.file} as it was (not seeded by this run).`, '');
  out.push(
    `Database: ${mib(r.bytes)}; rows: ${Object.entries(r.rows)
      .map(([table, rows]) => `${table} ${rows.toLocaleString('en')}`)
      .join(', ')}.`,
    '',
  );
  if (r.tableBytes) {
    out.push(
      'Space by table or index: ' +
        Object.entries(r.tableBytes)
          .filter(([, bytes]) => bytes >= 1024 * 1024)
          .map(([name, bytes]) => `${name} ${mib(bytes)}`)
          .join(', ') +
        '.',
      '',
    );
  }

  out.push('## Stats', '');
  out.push(
    `${r.runs} runs of each call; ms. Cold: each run on a new connection (statements prepared), so SQLite's ` +
      `page cache is empty, but the operating system's is not: the file was just read and stays in memory ` +
      `(emptying it needs root and hits the whole machine). Warm: one connection, after ${WARM_UP_RUNS} unmeasured runs. ` +
      `Targets: a link's stats under ${LINK_TARGET_MS} ms, the dashboard under ${DASHBOARD_TARGET_MS} ms, at p95.`,
    '',
  );
  out.push(timingTable(r.stats, true), '');
  out.push('Links: ' + r.links.map((l) => `${l.name} ${l.link.code} (${visitCount(l.visits)})`).join(', ') + '.', '');

  out.push('## The store calls they make', '');
  out.push(timingTable(r.store, false), '');

  out.push('## Query plans', '', 'EXPLAIN QUERY PLAN with the top link and the 14-day dashboard.', '');
  for (const [name, steps] of Object.entries(r.plans)) out.push(`${name}:`, '', '```', ...steps, '```', '');
  return out.join('\n');
}

function timingTable(timings: Timing[], targets: boolean): string {
  const header = ['call', 'cold p50', 'cold p95', 'warm p50', 'warm p95', ...(targets ? ['target', ''] : [])];
  const rows = timings.map((t) => {
    const worst = Math.max(percentile(t.cold, 95), percentile(t.warm, 95));
    const verdict =
      t.target === undefined ? '' : worst < t.target ? 'met' : percentile(t.warm, 95) < t.target ? '**missed cold**' : '**missed**';
    return [
      t.name,
      ms(percentile(t.cold, 50)),
      ms(percentile(t.cold, 95)),
      ms(percentile(t.warm, 50)),
      ms(percentile(t.warm, 95)),
      ...(targets ? [t.target === undefined ? '' : `< ${t.target}`, verdict] : []),
    ];
  });
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((h, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

/** The p-th percentile, nearest rank. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function wholeNumber(name: string, text: string): number {
  const n = Number(text.replace(/_/g, ''));
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a whole number above 0, not "${text}"`);
  return n;
}

function ms(n: number): string {
  return Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : '–';
}

function visitCount(n: number): string {
  return `${n.toLocaleString('en')} ${n === 1 ? 'visit' : 'visits'}`;
}

function rate(n: number): string {
  return Math.round(n).toLocaleString('en');
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
