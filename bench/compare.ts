import { appendFileSync, closeSync, copyFileSync, existsSync, fsyncSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { NODE_FLAGS } from '../src/node-flags.ts';
import { BREAKDOWNS, DIMENSIONS } from '../src/visits/visit.ts';
import { cacheSizeOf, CONNECTIONS, DEFAULT_HOST, type Profile, type Scenario } from './scenarios.ts';
import { inheritedEnv } from './children.ts';
import { LIMITS_OUT_OF_REACH, startServer, type ServerProcess } from './server-process.ts';
import { runWrk, type WrkResult } from './wrk.ts';

/** A seeded database and its codes, shared by every scenario of that size. */
export interface Seed {
  links: number;
  db: string;
  /** Every code, one per line, in creation order. */
  codes: string;
  /** HOT_CODES of them, evenly spread. */
  hotCodes: string;
  /** With domains: each other domain's codes and hot codes, by host (`codes` are then the default domain's). */
  domains: Record<string, { codes: string; hotCodes: string }>;
  /** An API key in the database, for the scenarios that create links. */
  key: string;
  seconds: number;
  dbBytes: number;
}

export interface Setup {
  profile: Profile;
  /** The run's temporary folder. */
  dir: string;
  seed: Seed;
  /** build/kurz.cjs */
  bundle: string;
  /** For a half-load scenario: the kurz requests/s it offers half of. */
  maxRequestsPerSecond?: number | undefined;
  /** A PostgreSQL server's maintenance database (test/support/with-postgres.ts), for the PostgreSQL scenarios. */
  postgresUrl?: string | undefined;
}

export interface MeasuredRun extends WrkResult {
  round: number;
  /** The server's CPU time over the run, in % of its one core. */
  cpuPercent: number;
  rssKiB: number;
  /** The same of its child processes (kurz's background writer). */
  childCpuPercent: number;
  childRssKiB: number;
  /** The server's RSS plus its children's private memory: what they take together (ServerProcess.childPrivateKiB). */
  togetherKiB: number;
}

export interface ServerResult {
  runs: MeasuredRun[];
  /** Medians over the measured runs; latencies in ms. */
  requestsPerSecond: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  cpuPercent: number;
  /** After the last run. */
  rssKiB: number;
  /** Of the child processes (kurz's background writer): median CPU, and the largest memory after a run. */
  childCpuPercent: number;
  childRssKiB: number;
  /** The largest sum of the server's and its children's RSS after a run; the largest `togetherKiB`. */
  sumRssKiB: number;
  togetherKiB: number;
  /** Every run, warm-up included. */
  statuses: Record<string, number>;
  /** Statuses outside the scenario's expected ones, and socket errors, over every run. */
  unexpected: Record<string, number>;
  /** Redirect requests sent as a bot, over every run. */
  botRequests: number;
}

export interface Pacing {
  targetPerSecond: number;
  connections: number;
}

export interface ScenarioResult {
  name: string;
  title: string;
  variant?: Scenario['variant'];
  links: number;
  cacheSize: number;
  connections: number;
  kurz: ServerResult;
  baseline: ServerResult;
  /** kurz requests/s over the baseline's. */
  ratio: number;
  /** Seconds kurz took to exit after SIGTERM: writing the visits it still held. */
  kurzStopSeconds: number;
  /** kurz's database after it stopped, and its WAL just before. */
  dbBytes: number;
  walBytes: number;
  pacing?: Pacing | undefined;
  /** What was verified in kurz's database afterwards. */
  checks: string[];
  /** Anything that makes the numbers untrustworthy: fails the run. */
  problems: string[];
  /** Worth a look, but the numbers stand. */
  warnings: string[];
}

type Side = 'kurz' | 'baseline';

interface Measurement {
  /** Every run, warm-up and pilot included. */
  all: Record<Side, WrkResult[]>;
  measured: Record<Side, MeasuredRun[]>;
  connections: number;
  pacing: Pacing | undefined;
  /** Requests kurz may have answered that wrk did not count: one per connection per run, and timeouts. */
  uncounted: number;
  walBytes: number;
}

const KURZ_CORE = 0;
const WRK_CORE = 1;
// Paced runs get enough connections for this long a stall at the target rate. No more: wrk's event loop
// (redis's ae) searches its unsorted list of timers, one per waiting connection, on every iteration. At
// 28k requests/s the bare baseline's p99 was 6.2 ms on 100 connections and 29.7 ms on 600.
const PACED_SPARE_MS = 5;
// An offered rate further than this from its target is reported.
const PACING_TOLERANCE = 0.1;
// Below this, at full load, the baseline server was waiting for wrk: the ceiling is wrk's, not Node's.
const SATURATED_CPU_PERCENT = 90;
// Enough heap for the baseline's Map of 10M codes and URLs.
const BIG_BASELINE = 2_000_000;

/** Runs one scenario against kurz and the baseline, alternating (baseline, kurz, kurz, baseline, …). */
export async function runScenario(scenario: Scenario, setup: Setup): Promise<ScenarioResult> {
  const db = join(setup.dir, `${scenario.name}.db`);
  // Every scenario writes (visits, links), so each gets its own copy of the seeded file.
  copyFileSync(setup.seed.db, db);
  // Otherwise the kernel writes the copy back during the first runs, and the disk traffic lands on kurz's.
  const copy = openSync(db, 'r+');
  fsyncSync(copy);
  closeSync(copy);
  const store = scenario.variant?.postgres ? await postgresCopy(scenario, setup, db) : sqliteFile(db);
  const problems: string[] = [];
  const servers: ServerProcess[] = [];
  let measurement: Measurement;
  let kurzStopSeconds = Number.NaN;
  let done = false;
  try {
    const kurz = await startKurz(scenario, setup, store.env);
    servers.push(kurz);
    const baseline = await startBaseline(scenario, setup);
    servers.push(baseline);
    measurement = await measure(scenario, setup, { kurz, baseline });
    done = true;
    measurement.walBytes = existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0;
  } finally {
    const stops = await Promise.allSettled(servers.map((server) => server.stop()));
    for (const stop of stops) if (stop.status === 'rejected') problems.push((stop.reason as Error).message);
    if (stops[0]?.status === 'fulfilled') kurzStopSeconds = stops[0].value;
    if (!done) await store.drop();
  }

  const { all, measured, connections, pacing, uncounted } = measurement;
  const kurz = summarise(scenario, all.kurz, measured.kurz);
  const baseline = summarise(scenario, all.baseline, measured.baseline);
  const warnings: string[] = [];
  for (const [side, result] of [
    ['kurz', kurz],
    ['baseline', baseline],
  ] as const) {
    if (result.runs.length === 0 || result.runs.some((r) => r.requests === 0)) problems.push(`${side}: a run got no responses`);
    const unexpected = Object.entries(result.unexpected).map(([what, n]) => `${what} ×${n}`);
    if (unexpected.length > 0) problems.push(`${side}: unexpected ${unexpected.join(', ')}`);
    if (pacing && Math.abs(result.requestsPerSecond / pacing.targetPerSecond - 1) > PACING_TOLERANCE) {
      warnings.push(`${side} answered ${result.requestsPerSecond.toFixed(0)} requests/s of the ${pacing.targetPerSecond} offered`);
    }
  }
  if (!pacing && baseline.cpuPercent < SATURATED_CPU_PERCENT) {
    warnings.push(`the baseline server used ${baseline.cpuPercent.toFixed(0)}% of its core: wrk, not the server, may be the limit`);
  }
  const errorLines = servers[0]?.errorLines() ?? [];
  if (errorLines.length > 0) problems.push(`kurz logged ${errorLines.length} errors, first: ${errorLines[0]}`);
  const checks = checkDatabase(await store.read(), setup.seed.links, kurz, uncounted, problems);
  const dbBytes = await store.bytes();
  await store.drop();
  for (const file of [db, `${db}-wal`, `${db}-shm`]) rmSync(file, { force: true });

  return {
    name: scenario.name,
    title: scenario.title,
    variant: scenario.variant,
    links: scenario.links,
    cacheSize: cacheSizeOf(scenario),
    connections,
    kurz,
    baseline,
    ratio: kurz.requestsPerSecond / baseline.requestsPerSecond,
    kurzStopSeconds,
    dbBytes,
    walBytes: measurement.walBytes,
    pacing,
    checks,
    problems,
    warnings,
  };
}

async function measure(scenario: Scenario, setup: Setup, servers: Record<Side, ServerProcess>): Promise<Measurement> {
  const { profile, seed } = setup;
  const all: Record<Side, WrkResult[]> = { kurz: [], baseline: [] };
  const measured: Record<Side, MeasuredRun[]> = { kurz: [], baseline: [] };
  let connections = CONNECTIONS;
  let pacing: Pacing | undefined;
  if (scenario.halfLoadOf !== undefined) {
    if (!setup.maxRequestsPerSecond) throw new Error(`needs the kurz throughput of ${scenario.halfLoadOf}, which did not run`);
    const target = Math.round(setup.maxRequestsPerSecond / 2);
    // The script keeps to its schedule only while a connection is free whenever a request falls due.
    connections = Math.max(CONNECTIONS, Math.ceil((target * PACED_SPARE_MS) / 1000));
    pacing = { targetPerSecond: target, connections };
  }
  let runs = 0;
  let uncounted = 0;
  const run = async (side: Side, seconds: number): Promise<WrkResult> => {
    const args = wrkArgs(scenario, seed, `${scenario.name}-${side}-${runs++}`, pacing?.targetPerSecond ?? 0);
    const url = servers[side].url + '/';
    const stopDuring = side === 'kurz' ? startDuring(scenario, setup) : () => undefined;
    const result = await runWrk({ url, script: scenario.script, args, connections, seconds, core: WRK_CORE }).finally(stopDuring);
    all[side].push(result);
    // wrk stops counting with one request in flight per connection.
    if (side === 'kurz') uncounted += connections + result.socketErrors.timeout;
    return result;
  };

  if (profile.warmUpSeconds > 0) {
    await run('baseline', profile.warmUpSeconds);
    await run('kurz', profile.warmUpSeconds);
  }

  for (let round = 0; round < profile.rounds; round++) {
    const order: Side[] = round % 2 === 0 ? ['baseline', 'kurz'] : ['kurz', 'baseline'];
    for (const side of order) {
      const server = servers[side];
      const cpuBefore = server.cpuSeconds();
      const childCpuBefore = server.childCpuSeconds();
      const result = await run(side, profile.seconds);
      const percent = (seconds: number): number => (seconds / result.seconds) * 100;
      measured[side].push({
        ...result,
        round,
        cpuPercent: percent(server.cpuSeconds() - cpuBefore),
        rssKiB: server.rssKiB(),
        childCpuPercent: percent(server.childCpuSeconds() - childCpuBefore),
        childRssKiB: server.childRssKiB(),
        togetherKiB: server.rssKiB() + server.childPrivateKiB(),
      });
    }
  }
  return { all, measured, connections, pacing, uncounted, walBytes: 0 };
}

/** `prefix` makes created URLs unique to the run; `target` is a paced run's requests/s. */
function wrkArgs(scenario: Scenario, seed: Seed, prefix: string, target: number): string[] {
  const codes = scenario.codes === 'hot' ? seed.hotCodes : seed.codes;
  switch (scenario.script) {
    case 'redirect.lua':
      return [codes];
    case 'redirect-hosts.lua':
      return codesByHost(scenario, seed).flatMap((h) => [h.host, scenario.codes === 'hot' ? h.hotCodes : h.codes]);
    case 'paced-redirect.lua':
      return [codes, String(target)];
    case 'create.lua':
      return [prefix, seed.key];
    case 'mixed.lua':
      return [codes, prefix, seed.key];
    case 'scan.lua':
      return [];
  }
}

/**
 * The codes of each of the scenario's hosts (a redirect-hosts.lua scenario's): the default domain's are the
 * seed's own, each other host's are those the seed put on its domain.
 */
function codesByHost(scenario: Scenario, seed: Seed): Array<{ host: string; codes: string; hotCodes: string }> {
  return (scenario.hosts ?? []).map((host) => {
    const own = seed.domains[host];
    if (host !== DEFAULT_HOST && !own) throw new Error(`the seed has no links on ${host}`);
    return { host, ...(own ?? { codes: seed.codes, hotCodes: seed.hotCodes }) };
  });
}

function startKurz(scenario: Scenario, setup: Setup, storeEnv: Record<string, string>): Promise<ServerProcess> {
  const workers = scenario.variant?.workers ?? 1;
  const env: Record<string, string> = {
    ...inheritedEnv(),
    ...storeEnv,
    KURZ_HOST: '127.0.0.1',
    KURZ_PORT: '0',
    KURZ_PUBLIC_URL: `https://${DEFAULT_HOST}`,
    KURZ_CACHE_SIZE: String(cacheSizeOf(scenario)),
    KURZ_WORKERS: String(workers),
    ...LIMITS_OUT_OF_REACH,
    // One JSON line per request into the log file, what kurz's stderr is here.
    ...(scenario.variant?.accessLog ? { KURZ_ACCESS_LOG: 'on' } : {}),
    ...duringEnv(scenario, setup),
  };
  return startServer({
    name: 'kurz',
    command: [process.execPath, ...NODE_FLAGS, ...profileFlags(scenario), setup.bundle, 'serve'],
    env,
    // Workers get both cores, the one wrk runs on too: this machine has no third.
    cores: workers > 1 ? `${KURZ_CORE},${WRK_CORE}` : String(KURZ_CORE),
    logFile: join(setup.dir, `${scenario.name}-kurz.log`),
  });
}

/** Blocklist entries of the blocklist-scans variant: none of them is a seeded link's host. */
const BLOCKLIST_ENTRIES = 100_000;
const BLOCKLIST_SCAN_MS = 2000;

const blocklistFile = (scenario: Scenario, setup: Setup): string => join(setup.dir, `${scenario.name}-blocklist.txt`);

/** kurz's settings for the background work of a `during` variant (see BackgroundWork). */
function duringEnv(scenario: Scenario, setup: Setup): Record<string, string> {
  switch (scenario.variant?.during) {
    case 'backups':
      return { KURZ_BACKUP_INTERVAL: '1s', KURZ_BACKUP_KEEP: '2', KURZ_BACKUP_DIR: join(setup.dir, `${scenario.name}-backups`) };
    case 'blocklist-scans': {
      const file = blocklistFile(scenario, setup);
      writeFileSync(file, Array.from({ length: BLOCKLIST_ENTRIES }, (_, i) => `listed-${i}.invalid\n`).join(''));
      return { KURZ_BLOCKLIST: file };
    }
    case undefined:
      return {};
  }
}

/**
 * Keeps a `during` variant's background work going while kurz is measured, and returns what stops it: the
 * blocklist-scans variant changes the blocklist file every BLOCKLIST_SCAN_MS, which kurz rereads and then
 * screens every link against (backups need nothing: kurz makes them on its own schedule).
 */
function startDuring(scenario: Scenario, setup: Setup): () => void {
  if (scenario.variant?.during !== 'blocklist-scans') return () => undefined;
  let changes = 0;
  const timer = setInterval(() => appendFileSync(blocklistFile(scenario, setup), `listed-again-${changes++}.invalid\n`), BLOCKLIST_SCAN_MS);
  return () => clearInterval(timer);
}

/**
 * `BENCH_PROFILE_DIR=DIR`: kurz writes a V8 CPU profile of each scenario's run into DIR/SCENARIO at its stop
 * (warm-up, rounds and the stop's writing included), for `node --cpu-prof`'s usual readers.
 */
function profileFlags(scenario: Scenario): string[] {
  const dir = process.env.BENCH_PROFILE_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, scenario.name)}`] : [];
}

/** Where a scenario's kurz keeps its data: its environment, what the checks read, its size, and its removal. */
interface Store {
  env: Record<string, string>;
  read(): Promise<Stored>;
  bytes(): Promise<number>;
  drop(): Promise<void>;
}

function sqliteFile(db: string): Store {
  return {
    env: { KURZ_DB: db },
    read: async () => readStored((sql) => Promise.resolve(querySqlite(db, sql))),
    bytes: async () => statSync(db).size,
    drop: async () => undefined,
  };
}

/**
 * A fresh PostgreSQL database holding a copy of the seeded file, made by `kurz migrate` (PostgreSQL runs
 * on kurz's core: its work is kurz's).
 */
async function postgresCopy(scenario: Scenario, setup: Setup, seeded: string): Promise<Store> {
  if (!setup.postgresUrl) throw new Error('needs a PostgreSQL server: run it through make bench, which starts one');
  const name = `bench_${scenario.name.replace(/\W/g, '_')}_${process.pid}`;
  const url = new URL(setup.postgresUrl);
  url.pathname = `/${name}`;
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: setup.postgresUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const migrated = spawnSync(process.execPath, [setup.bundle, 'migrate', '--db', seeded, '--to', url.href], {
    encoding: 'utf8',
    env: inheritedEnv(),
  });
  if (migrated.status !== 0) throw new Error(`kurz migrate failed: ${migrated.stderr}`);
  let dropped = false;
  return {
    env: { KURZ_DATABASE_URL: url.href },
    async read() {
      const client = new pg.Client({ connectionString: url.href });
      await client.connect();
      try {
        return await readStored(async (sql) => (await client.query(sql)).rows.map(numbers));
      } finally {
        await client.end();
      }
    },
    bytes: () => admin(async (c) => Number((await c.query(`SELECT pg_database_size('${name}') AS n`)).rows[0].n)),
    async drop() {
      if (dropped) return;
      dropped = true;
      await admin(async (c) => {
        // FORCE ends kurz's connections, but not an autovacuum worker (the superuser's, on the durable server
        // the bench runs): the drop is refused while one works on the database, so it waits for it to end.
        const deadline = Date.now() + AUTOVACUUM_WAIT_MS;
        for (;;) {
          try {
            await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
            return;
          } catch (err) {
            if ((err as { code?: string }).code !== INSUFFICIENT_PRIVILEGE || Date.now() > deadline) throw err;
            await untilNoAutovacuum(c, name, deadline);
          }
        }
      });
    },
  };
}

const INSUFFICIENT_PRIVILEGE = '42501';
const AUTOVACUUM_WAIT_MS = 60_000;

/** Resolves once no autovacuum worker is on database `name` (or at the deadline). */
async function untilNoAutovacuum(client: pg.Client, name: string, deadline: number): Promise<void> {
  const busy = async () =>
    Number(
      (await client.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'autovacuum worker'`, [name]))
        .rows[0].n,
    ) > 0;
  while (Date.now() < deadline && (await busy())) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** A PostgreSQL row with its bigint and numeric columns (strings in pg) as numbers. */
function numbers(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v]));
}

function querySqlite(file: string, sql: string): Record<string, unknown>[] {
  const db = new Sqlite(file, { readonly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

function startBaseline(scenario: Scenario, setup: Setup): Promise<ServerProcess> {
  const heap = scenario.links > BIG_BASELINE ? ['--max-old-space-size=8192'] : [];
  return startServer({
    name: 'baseline',
    command: [
      process.execPath,
      ...heap,
      join(import.meta.dirname, 'baseline-server.ts'),
      setup.seed.codes,
      // The default domain's codes are the first file's; the others' are looked up by Host.
      ...codesByHost(scenario, setup.seed)
        .filter((h) => h.host !== DEFAULT_HOST)
        .map((h) => `${h.host}=${h.codes}`),
    ],
    env: inheritedEnv(),
    cores: String(KURZ_CORE),
    logFile: join(setup.dir, `${scenario.name}-baseline.log`),
  });
}

function summarise(scenario: Scenario, all: WrkResult[], runs: MeasuredRun[]): ServerResult {
  const statuses: Record<string, number> = {};
  const unexpected: Record<string, number> = {};
  const add = (counts: Record<string, number>, key: string, n: number): void => void (counts[key] = (counts[key] ?? 0) + n);
  for (const run of all) {
    for (const [status, n] of Object.entries(run.statuses)) {
      add(statuses, status, n);
      if (!scenario.expected.includes(Number(status))) add(unexpected, `HTTP ${status}`, n);
    }
    for (const [kind, n] of Object.entries(run.socketErrors)) if (n > 0) add(unexpected, `socket ${kind} error`, n);
  }
  return {
    runs,
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
    p50: median(runs.map((r) => r.latency.p50)),
    p90: median(runs.map((r) => r.latency.p90)),
    p99: median(runs.map((r) => r.latency.p99)),
    p999: median(runs.map((r) => r.latency.p999)),
    cpuPercent: median(runs.map((r) => r.cpuPercent)),
    rssKiB: runs.at(-1)?.rssKiB ?? Number.NaN,
    childCpuPercent: median(runs.map((r) => r.childCpuPercent)),
    childRssKiB: Math.max(...runs.map((r) => r.childRssKiB)),
    sumRssKiB: Math.max(...runs.map((r) => r.rssKiB + r.childRssKiB)),
    togetherKiB: Math.max(...runs.map((r) => r.togetherKiB)),
    statuses,
    unexpected,
    botRequests: all.reduce((sum, run) => sum + run.botRequests, 0),
  };
}

/** What kurz's database holds after a scenario: the figures the checks compare. */
interface Stored {
  links: number;
  /** link_visits: people's visits, all time. */
  counted: number;
  hours: { humans: number; bots: number; uniques: number };
  days: { humans: number; bots: number; uniques: number };
  /** visit_totals: the instance's days. */
  totals: { humans: number; bots: number; uniques: number };
  raw: { visits: number; bots: number };
  visitors: number;
  /** visit_dimensions and visit_dimension_days: visits per dimension (its index in DIMENSIONS). */
  dimensions: Map<number, number>;
  dimensionDays: Map<number, number>;
  /** Visits only counted, their detail dropped, people's and bots': by hour, by day and in the instance's days. */
  undetailed: { humans: number; bots: number; dayHumans: number; dayBots: number; totalHumans: number; totalBots: number };
}

/**
 * Compares kurz's database with what wrk saw. Every 201 is a link; every 302 a visit, a person's or a
 * bot's, and kurz may have answered up to `uncounted` more than wrk counted; bots are as many as wrk sent,
 * or up to `uncounted` fewer (sent, never answered). The link counts, the rollups, the breakdowns and
 * the raw rows must then agree with each other exactly: the background writer lost or doubled nothing.
 */
function checkDatabase(stored: Stored, seeded: number, kurz: ServerResult, uncounted: number, problems: string[]): string[] {
  const checks: string[] = [];
  const within = (line: string, actual: number, low: number, high: number): void => {
    if (actual >= low && actual <= high) checks.push(line);
    else problems.push(`${line} (expected ${low === high ? low : `${low} to ${high}`})`);
  };
  const agree = (line: string, ...pairs: [number, number][]): void => {
    if (pairs.every(([a, b]) => a === b)) checks.push(line);
    else problems.push(`${line} (expected ${pairs.map(([a, b]) => `${a} = ${b}`).join(', ')})`);
  };
  const created = kurz.statuses['201'] ?? 0;
  const redirected = kurz.statuses['302'] ?? 0;
  const { hours, days, raw } = stored;
  const humans = stored.counted;
  within(`links added: ${stored.links - seeded} for ${created} 201 answers`, stored.links - seeded, created, created + uncounted);
  within(
    `visits: ${humans} people + ${hours.bots} bots for ${redirected} 302 answers`,
    humans + hours.bots,
    redirected,
    redirected + uncounted,
  );
  within(
    `bots: ${hours.bots} for ${kurz.botRequests} bot requests`,
    hours.bots,
    Math.max(0, kurz.botRequests - uncounted),
    kurz.botRequests,
  );
  const { totals } = stored;
  agree(
    `people ${humans}, bots ${hours.bots}: by hour = by day = instance days (= link counts, for people)`,
    [hours.humans, humans],
    [days.humans, humans],
    [totals.humans, humans],
    [days.bots, hours.bots],
    [totals.bots, hours.bots],
  );
  // Visits only counted (too many waited for the writer) have no raw row and no breakdown.
  const { undetailed } = stored;
  agree(
    `detail dropped: ${undetailed.humans} people, ${undetailed.bots} bots (only counted): by hour = by day = instance days`,
    [undetailed.dayHumans, undetailed.humans],
    [undetailed.totalHumans, undetailed.humans],
    [undetailed.dayBots, undetailed.bots],
    [undetailed.totalBots, undetailed.bots],
  );
  const detailed = { humans: humans - undetailed.humans, bots: hours.bots - undetailed.bots };
  agree(`raw visits: ${raw.visits}, ${raw.bots} bots`, [raw.visits, detailed.humans + detailed.bots], [raw.bots, detailed.bots]);
  // Every person's visit has a value in each breakdown ('' for unknown); a bot's only in 'bots'. The A/B
  // variant dimensions count only the visits of links with a split, and its visitors only once a day.
  agree(
    `breakdowns by hour and by day: each dimension sums to the people, 'bots' to the bots (those with detail)`,
    ...BREAKDOWNS.flatMap((d): [number, number][] => {
      const i = DIMENSIONS.indexOf(d);
      const expected = d === 'bots' ? detailed.bots : detailed.humans;
      return [
        [stored.dimensions.get(i) ?? 0, expected],
        [stored.dimensionDays.get(i) ?? 0, expected],
      ];
    }),
  );
  // One visitor hash per link and day: the instance's uniques add up the links'.
  agree(
    `unique visitors: ${stored.visitors} = by hour = by day = instance days`,
    [hours.uniques, stored.visitors],
    [days.uniques, stored.visitors],
    [totals.uniques, stored.visitors],
  );
  return checks;
}

/** The figures of kurz's database, through `query` (SQL both backends answer alike). */
async function readStored(query: (sql: string) => Promise<Record<string, unknown>[]>): Promise<Stored> {
  const one = async <T>(sql: string): Promise<T> => (await query(sql))[0] as T;
  const sums = (table: string): Promise<Stored['hours']> =>
    one(`SELECT coalesce(sum(humans), 0) AS humans, coalesce(sum(bots), 0) AS bots, coalesce(sum(uniques), 0) AS uniques FROM ${table}`);
  const byDimension = async (table: string): Promise<Map<number, number>> => {
    const rows = (await query(`SELECT dimension, sum(count) AS count FROM ${table} GROUP BY dimension`)) as {
      dimension: number;
      count: number;
    }[];
    return new Map(rows.map((r) => [r.dimension, r.count]));
  };
  return {
    links: (await one<{ n: number }>('SELECT count(*) AS n FROM links')).n,
    counted: (await one<{ n: number }>('SELECT coalesce(sum(count), 0) AS n FROM link_visits')).n,
    hours: await sums('visit_hours'),
    days: await sums('visit_days'),
    totals: await sums('visit_totals'),
    raw: await one('SELECT count(*) AS visits, count(bot) AS bots FROM visits'),
    visitors: (await one<{ n: number }>('SELECT count(*) AS n FROM visitors')).n,
    dimensions: await byDimension('visit_dimensions'),
    dimensionDays: await byDimension('visit_dimension_days'),
    undetailed: await one(
      `SELECT (SELECT coalesce(sum(undetailed_humans), 0) FROM visit_hours) AS humans,
        (SELECT coalesce(sum(undetailed_bots), 0) FROM visit_hours) AS bots,
        (SELECT coalesce(sum(undetailed_humans), 0) FROM visit_days) AS "dayHumans",
        (SELECT coalesce(sum(undetailed_bots), 0) FROM visit_days) AS "dayBots",
        (SELECT coalesce(sum(undetailed_humans), 0) FROM visit_totals) AS "totalHumans",
        (SELECT coalesce(sum(undetailed_bots), 0) FROM visit_totals) AS "totalBots"`,
    ),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
