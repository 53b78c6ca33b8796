// The soak: a real `kurz serve` (the bundle, with its background writer, as `make run` starts it) on a fresh
// database, fed redirects, creations and stats reads at fixed rates for minutes; its memory, CPU and
// latency every window; then a clean stop and a check of the database against what it answered.
// `make soak` (bench/soak.ts) runs it for 10 minutes, test/reliability/soak.test.ts for one.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { NODE_FLAGS } from '../src/node-flags.ts';
import { inheritedEnv } from './children.ts';
import { runPacedLoad, type KindWindow, type LoadKind, type LoadWindow } from './paced-load.ts';
import { LIMITS_OUT_OF_REACH, startServer, type ServerProcess } from './server-process.ts';

export interface SoakOptions {
  /** build/kurz.cjs */
  bundle: string;
  minutes: number;
  /** Figures are reported per window. */
  windowSeconds: number;
  redirectsPerSecond: number;
  creationsPerSecond: number;
  statsPerSecond: number;
  /** Links made (through the API) before the load; the redirects go to them. */
  links: number;
  /** More environment for kurz: settings (KURZ_…), NODE_OPTIONS. */
  env?: Record<string, string>;
}

export const SOAK_DEFAULTS: Omit<SoakOptions, 'bundle'> = {
  minutes: 10,
  windowSeconds: 60,
  redirectsPerSecond: 2000,
  creationsPerSecond: 50,
  statsPerSecond: 5,
  links: 10_000,
};

/** Memory and CPU of kurz (the server) and its background writer (its child). */
export interface ProcessSample {
  serverRssKiB: number;
  writerRssKiB: number;
  /** The writer's private memory (USS): what it adds to the server's RSS (ServerProcess.childPrivateKiB). */
  writerPrivateKiB: number;
  /** Since the previous sample, in % of one core. */
  serverCpuPercent: number;
  writerCpuPercent: number;
}

export interface SoakWindow extends LoadWindow {
  sample: ProcessSample;
}

export interface SoakResult {
  options: SoakOptions;
  startedAt: string;
  environment: { node: string; cpu: string; cores: number; commit: string; loadAverageBefore: string; loadAverageAfter: string };
  /** At the start of the load, after the links were made. */
  start: ProcessSample;
  windows: SoakWindow[];
  /** Requests of each kind, answered rightly, over the whole run. */
  answered: Record<string, number>;
  /** Every error of the run: wrong statuses, failed connections, kurz's error log lines. */
  errors: string[];
  /** Requests sent again on a new connection: the kept-alive one had just been closed as idle (not errors). */
  resent: number;
  /** Each kind's p99 in the last window over its p99 in the first. */
  p99Growth: Record<string, number>;
  /** From SIGTERM to exit. */
  stopSeconds: number;
  /** What the database check verified, and what it found wrong (also in `errors`). */
  checks: string[];
}

const KINDS = ['redirect', 'create', 'stats'] as const;
const LABELS: Record<(typeof KINDS)[number], string> = { redirect: 'redirects', create: 'creations', stats: 'stats reads' };
const HOT_LINKS = 100;
// Of the redirects, this share goes to the hot links; the rest to any link made before the load.
const HOT_SHARE = 0.8;
// Links a batch request makes: its JSON stays under the 64 KiB a request body may have.
const BATCH = 500;
const ADMIN_PASSWORD = 'soak test admin password';
const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
];
const BOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';
const PAGE = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Runs the soak; never throws for what it finds (that goes into `errors`), only when kurz cannot be started. */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  if (!existsSync(options.bundle)) throw new Error(`${options.bundle} is missing: run make build`);
  const dir = mkdtempSync(join(tmpdir(), 'kurz-soak-'));
  const db = join(dir, 'kurz.db');
  const env = { ...inheritedEnv(), KURZ_DB: db, KURZ_CACHE_DIR: join(dir, 'cache') };
  const cli = (args: string[], input = ''): string =>
    execFileSync(process.execPath, [options.bundle, ...args], { env, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  const startedAt = new Date().toISOString();
  const loadAverageBefore = loadAverage();
  let kurz: ServerProcess | undefined;
  try {
    const key = (JSON.parse(cli(['keys', 'create', '--name', 'soak', '--json'])) as { key: string }).key;
    cli(['admin', 'password'], `${ADMIN_PASSWORD}\n`);
    kurz = await startServer({
      name: 'kurz',
      command: [process.execPath, ...NODE_FLAGS, options.bundle, 'serve'],
      env: {
        ...env,
        ...LIMITS_OUT_OF_REACH,
        KURZ_HOST: '127.0.0.1',
        KURZ_PORT: '0',
        KURZ_PUBLIC_URL: 'https://s.example.test',
        ...options.env,
      },
      cores: `0-${cpus().length - 1}`,
      logFile: join(dir, 'kurz.log'),
    });
    const server = kurz;
    const cookie = await login(server.url);
    const seeded = await makeLinks(server.url, key, options.links);
    const created = new Map<string, string>();
    const run = Date.now().toString(36);
    const kinds = loadKinds(options, { seeded, created, key, cookie, run });

    const errors: string[] = [];
    const sampler = processSampler(server);
    const start = sampler();
    const windows: SoakWindow[] = [];
    const loadWindows = await runPacedLoad({
      url: server.url,
      kinds,
      seconds: options.minutes * 60,
      windowSeconds: options.windowSeconds,
      windowEnded(window) {
        let sample: ProcessSample;
        try {
          sample = sampler();
        } catch (err) {
          // kurz is gone: its requests fail from here on, and are counted.
          errors.push((err as Error).message);
          sample = {
            serverRssKiB: Number.NaN,
            writerRssKiB: Number.NaN,
            writerPrivateKiB: Number.NaN,
            serverCpuPercent: Number.NaN,
            writerCpuPercent: Number.NaN,
          };
        }
        windows.push({ ...window, sample });
      },
    });
    if (loadWindows.length !== windows.length) throw new Error('a window went unreported');

    const answered: Record<string, number> = {};
    let resent = 0;
    for (const window of windows)
      for (const [name, kind] of Object.entries(window.kinds)) {
        resent += kind.resent;
        for (const count of Object.values(kind.statuses)) answered[name] = (answered[name] ?? 0) + count;
        for (const [what, n] of Object.entries(kind.errors)) errors.push(`${name}, ${window.from}-${window.to} s: ${what} ×${n}`);
      }
    const redirected = windows.reduce((sum, w) => sum + (w.kinds['redirect']?.statuses['302'] ?? 0), 0);
    let stopSeconds = Number.NaN;
    try {
      stopSeconds = await server.stop();
    } catch (err) {
      errors.push((err as Error).message);
    }
    kurz = undefined;
    errors.push(...server.errorLines().map((line) => `kurz logged: ${line}`));
    const checks = checkDatabase(db, seeded.length, created, redirected, errors);
    return {
      options,
      startedAt,
      environment: {
        node: process.version,
        cpu: cpus()[0]?.model ?? 'unknown CPU',
        cores: cpus().length,
        commit: commit(),
        loadAverageBefore,
        loadAverageAfter: loadAverage(),
      },
      start,
      windows,
      answered,
      errors,
      resent,
      p99Growth: Object.fromEntries(KINDS.map((k) => [k, p99Of(windows.at(-1), k) / p99Of(windows[0], k)])),
      stopSeconds,
      checks,
    };
  } finally {
    if (kurz) await kurz.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

interface LoadState {
  seeded: string[];
  /** Code → URL of every creation kurz answered 201 to. */
  created: Map<string, string>;
  key: string;
  cookie: string;
  /** Makes the created URLs unique to the run. */
  run: string;
}

/** Redirects over hot and cold links (one in twenty by a bot), creations through the API, stats reads. */
function loadKinds(options: SoakOptions, state: LoadState): LoadKind[] {
  const { seeded, created, key, cookie, run } = state;
  const hot = seeded.slice(0, HOT_LINKS);
  const api = { authorization: `Bearer ${key}`, 'user-agent': 'kurz-soak' };
  const page = { cookie, accept: PAGE, 'user-agent': BROWSERS[0]! };
  return [
    {
      name: 'redirect',
      perSecond: options.redirectsPerSecond,
      expected: [302],
      connections: 64,
      request(n) {
        // A fixed sequence: the nth request always goes to the same code.
        const cold = (n * 7919) % 100 >= HOT_SHARE * 100;
        const code = cold ? seeded[(n * 104_729) % seeded.length]! : hot[n % hot.length]!;
        const userAgent = n % 20 === 0 ? BOT : BROWSERS[n % BROWSERS.length]!;
        return { method: 'GET', path: `/${code}`, headers: { 'user-agent': userAgent, accept: PAGE, 'accept-language': 'en-US,en;q=0.9' } };
      },
    },
    {
      name: 'create',
      perSecond: options.creationsPerSecond,
      expected: [201],
      connections: 16,
      readBody: true,
      request: (n) => ({
        method: 'POST',
        path: '/api/v1/links',
        headers: { ...api, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `https://soak.example.com/${run}/${n}` }),
      }),
      answered(n, _status, body) {
        created.set((JSON.parse(body) as { code: string }).code, `https://soak.example.com/${run}/${n}`);
      },
    },
    {
      name: 'stats',
      perSecond: options.statsPerSecond,
      expected: [200],
      connections: 8,
      request(n) {
        const code = hot[n % hot.length]!;
        if (n % 3 === 0) return { method: 'GET', path: `/api/v1/links/${code}/stats`, headers: api };
        if (n % 3 === 1) return { method: 'GET', path: `/links/${code}/stats`, headers: page };
        return { method: 'GET', path: '/', headers: page };
      },
    },
  ];
}

/** Logs in as the admin through the login form; returns the Cookie header to send. */
async function login(url: string): Promise<string> {
  const form = await fetch(`${url}/login`, { headers: { accept: PAGE } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!csrf) throw new Error('the login page has no CSRF field');
  const before = cookiesOf(form);
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { cookie: before, accept: PAGE, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, user: 'admin', password: ADMIN_PASSWORD, next: '/' }),
    redirect: 'manual',
  });
  if (res.status !== 303) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  return cookiesOf(res);
}

/** The cookies `res` sets, as a Cookie header (those it clears left out). */
function cookiesOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((line) => line.split(';')[0] ?? '')
    .filter((pair) => !pair.endsWith('='))
    .join('; ');
}

/** Makes `count` links through the batch API; resolves with their codes. */
async function makeLinks(url: string, key: string, count: number): Promise<string[]> {
  const codes: string[] = [];
  for (let first = 0; first < count; first += BATCH) {
    const links = Array.from({ length: Math.min(BATCH, count - first) }, (_, i) => ({
      url: `https://www.example.com/articles/${first + i}`,
    }));
    const res = await fetch(`${url}/api/v1/links/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ links }),
    });
    const body = (await res.json()) as { created: number; results: { link?: { code: string } }[] };
    if (res.status !== 200 || body.created !== links.length)
      throw new Error(`making links: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    codes.push(...body.results.map((r) => r.link!.code));
  }
  return codes;
}

/** A function that samples kurz and its writer, with the CPU they used since it was last called. */
function processSampler(server: ServerProcess): () => ProcessSample {
  let at = performance.now();
  let cpu = server.cpuSeconds();
  let childCpu = server.childCpuSeconds();
  return () => {
    const now = performance.now();
    const [serverCpu, writerCpu] = [server.cpuSeconds(), server.childCpuSeconds()];
    const percent = (seconds: number): number => (seconds / ((now - at) / 1000)) * 100;
    const sample = {
      serverRssKiB: server.rssKiB(),
      writerRssKiB: server.childRssKiB(),
      writerPrivateKiB: server.childPrivateKiB(),
      serverCpuPercent: percent(serverCpu - cpu),
      writerCpuPercent: percent(writerCpu - childCpu),
    };
    [at, cpu, childCpu] = [now, serverCpu, writerCpu];
    return sample;
  };
}

/**
 * After the stop: every link kurz acknowledged is stored with its URL and no other appeared, and the visits
 * written (each link's count plus the bots; and raw rows plus the visits only counted, whose detail was dropped
 * while more than visitBacklog waited for a writer the machine kept busy) are the 302s it answered.
 */
function checkDatabase(file: string, seeded: number, created: Map<string, string>, redirected: number, errors: string[]): string[] {
  const checks: string[] = [];
  const db = new Sqlite(file, { readonly: true });
  try {
    const urls = new Map((db.prepare('SELECT code, url FROM links').all() as { code: string; url: string }[]).map((r) => [r.code, r.url]));
    const missing = [...created].filter(([code, url]) => urls.get(code) !== url).length;
    const verdict = (ok: boolean, line: string): void => void (ok ? checks.push(line) : errors.push(`database: ${line}`));
    verdict(missing === 0, `every acknowledged creation stored with its URL: ${created.size - missing} of ${created.size}`);
    verdict(urls.size === seeded + created.size, `links: ${urls.size} = ${seeded} made before + ${created.size} created`);
    const one = (sql: string): number => db.prepare(sql).pluck().get() as number;
    const raw = one('SELECT count(*) FROM visits');
    const undetailed = one('SELECT coalesce(sum(undetailed_humans + undetailed_bots), 0) FROM visit_hours');
    const counted = one('SELECT coalesce(sum(count), 0) FROM link_visits') + one('SELECT coalesce(sum(bots), 0) FROM visit_hours');
    verdict(
      raw + undetailed === redirected,
      `raw visits: ${raw}, and ${undetailed} only counted (detail dropped), for ${redirected} 302 answers`,
    );
    verdict(counted === redirected, `visits counted (people per link + bots): ${counted} for ${redirected} 302 answers`);
  } finally {
    db.close();
  }
  return checks;
}

function p99Of(window: LoadWindow | undefined, kind: string): number {
  return window?.kinds[kind]?.p99 ?? Number.NaN;
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

function commit(): string {
  const git = spawnSync('git', ['-C', join(import.meta.dirname, '..'), 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return git.status === 0 ? git.stdout.trim() : 'unknown commit';
}

/** The run as markdown: settings, a row per window, the start and end memory, errors and checks. */
export function soakReport(result: SoakResult): string {
  const { options: o, environment: env, start, windows } = result;
  const end = windows.at(-1)?.sample;
  const out: string[] = [];
  out.push(`# kurz soak: ${result.startedAt.slice(0, 16).replace('T', ' ')} UTC`, '');
  out.push(
    `kurz ${env.commit} (the bundle, with its background writer), Node ${env.node}, ${env.cpu}, ${env.cores} cores, ` +
      `load average ${env.loadAverageBefore} before and ${env.loadAverageAfter} after (other work on the machine shows there). ` +
      `${o.minutes} min at fixed rates, open loop: ${o.redirectsPerSecond}/s redirects (${HOT_SHARE * 100}% to ${HOT_LINKS} hot links, ` +
      `the rest over all ${o.links.toLocaleString('en')} made before; one in twenty by a bot), ${o.creationsPerSecond}/s creations ` +
      `through the API, ${o.statsPerSecond}/s stats reads (a link's stats from the API, its stats page, the dashboard). ` +
      `Latency in ms from when a request was due; "driver lag": the most a request left after it was due (the load driver's ` +
      `own delay, a busy machine's; it counts in the latencies); RSS in MiB; "together": the ` +
      `server's RSS plus the writer's private memory (USS), the rest of the writer's being mostly Node's code, which the ` +
      `server maps too; CPU in % of one core.`,
    '',
  );
  const head = [
    'window (s)',
    ...KINDS.flatMap((k) => [LABELS[k], 'p50', 'p99']),
    'errors',
    'driver lag',
    'server RSS',
    'writer RSS',
    'sum',
    'together',
    'server CPU',
    'writer CPU',
  ];
  const rows = windows.map((w) => [
    `${seconds(w.from)}–${seconds(w.to)}`,
    ...KINDS.flatMap((k) => {
      const kind = w.kinds[k];
      return [String(kind?.sent ?? 0), ms(kind?.p50), ms(kind?.p99)];
    }),
    String(KINDS.reduce((sum, k) => sum + errorCount(w.kinds[k]), 0)),
    ms(Math.max(...KINDS.map((k) => w.kinds[k]?.maxSendLag ?? 0))),
    ...memory(w.sample),
    `${w.sample.serverCpuPercent.toFixed(0)}%`,
    `${w.sample.writerCpuPercent.toFixed(0)}%`,
  ]);
  out.push(table(head, [['start', ...KINDS.flatMap(() => ['', '', '']), '', '', ...memory(start), '', ''], ...rows]), '');
  out.push(
    `- **RSS**: server ${mib(start.serverRssKiB)} at the start, ${mib(end?.serverRssKiB)} at the end; writer ${mib(start.writerRssKiB)}, ` +
      `${mib(end?.writerRssKiB)}; together ${mib(start.serverRssKiB + start.writerRssKiB)}, ${mib(end ? end.serverRssKiB + end.writerRssKiB : undefined)} ` +
      `(server RSS and writer USS: ${mib(together(start))}, ${mib(end ? together(end) : undefined)}).`,
    `- **Requests answered**: ${KINDS.map((k) => `${(result.answered[k] ?? 0).toLocaleString('en')} ${LABELS[k]}`).join(', ')}.`,
    `- **p99, last window over first**: ${KINDS.map((k) => `${LABELS[k]} ${(result.p99Growth[k] ?? Number.NaN).toFixed(2)}×`).join(', ')}.`,
    `- **Stop** (SIGTERM to exit): ${result.stopSeconds.toFixed(1)} s.`,
    `- **Errors**: ${result.errors.length === 0 ? 'none' : result.errors.length}. Sent again on a new connection, the ` +
      `kept-alive one having just been closed as idle (as clients do; not errors): ${result.resent}.`,
    ...result.errors.slice(0, 20).map((e) => `  - ${e}`),
    `- **Database after the stop**:`,
    ...result.checks.map((c) => `  - ${c}`),
    '',
  );
  return out.join('\n');
}

function errorCount(kind: KindWindow | undefined): number {
  return Object.values(kind?.errors ?? {}).reduce((sum, n) => sum + n, 0);
}

function together(sample: ProcessSample): number {
  return sample.serverRssKiB + sample.writerPrivateKiB;
}

function memory(sample: ProcessSample): string[] {
  return [mib(sample.serverRssKiB), mib(sample.writerRssKiB), mib(sample.serverRssKiB + sample.writerRssKiB), mib(together(sample))];
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

const seconds = (n: number): string => String(Math.round(n));
const ms = (n: number | undefined): string => (n !== undefined && Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : '–');
const mib = (kib: number | undefined): string => (kib !== undefined && Number.isFinite(kib) ? (kib / 1024).toFixed(1) : '–');
