import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, request as httpRequest, type RequestListener } from 'node:http';
import { once } from 'node:events';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext, type Implementation } from 'ava';
import Sqlite, { type Database } from 'better-sqlite3';
import pg from 'pg';
import { createApp, type AppOptions, type Kurz } from '../src/app.ts';
import { SERVER_ADMIN } from '../src/auth/actor.ts';
import { withServices } from '../src/cli/wiring.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { createHttpServer } from '../src/http/server.ts';
import { memoryLogger } from '../src/core/log.ts';
import { DEFAULT_OPTIONS, type NewLink } from '../src/links/link.ts';
import { openStorage } from '../src/store/open.ts';
import type { Storage } from '../src/store/ports.ts';

/** A clock that only moves when told to. */
export function fakeClock(start = Date.UTC(2026, 0, 15, 12, 0, 0)) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

/** A fresh directory under the OS temp dir, removed when the test ends. */
export function tempDir(t: ExecutionContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'kurz-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** What a program run by `runProgram` did. */
export interface ProgramRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program to its end (stdin closed at once) and resolves with its exit code and output, whatever the
 * code: for tests of the packages, which run podman, docker, dpkg and the like.
 */
export function runProgram(
  file: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<ProgramRun> {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 64 * 1024 * 1024, env: options.env, cwd: options.cwd }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ).stdin?.end();
  });
}

/** A port nothing listens on now: the kernel's choice for a listener opened and closed at once. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Serves `listener` on 127.0.0.1 on a free port until the test ends; returns the base URL. With `config`,
 * on the server `serve` makes (its timeouts and header limit). Teardowns run last-registered first, so the
 * server closes before whatever it was registered after.
 */
export async function listen(t: ExecutionContext, listener: RequestListener, config?: Config): Promise<string> {
  const server = config ? createHttpServer(config, listener) : createServer(listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('server has no address');
  t.teardown(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  return `http://127.0.0.1:${address.port}`;
}

export interface TestKurz {
  /** Base URL of the listening server, http://127.0.0.1:PORT */
  base: string;
  kurz: Kurz;
  config: Config;
  clock: ReturnType<typeof fakeClock>;
  log: ReturnType<typeof memoryLogger>;
  /** The lines the access log wrote (setting accessLog), JSON unless logFormat says text. */
  accessLog: string[];
  /** Kurz's database, fresh for the test: its settings, and a connection of the test's own. */
  database: TestDatabase;
  /** `database.sql`: the rows of a query run behind kurz's back. */
  sql: TestDatabase['sql'];
  /** Number of rows in the links table. */
  linkCount(): Promise<number>;
  /** An API key made for the test ("tests", scope admin); `postJson`, `get` and `request` send it. */
  key: string;
  /** POST a JSON body (a string is sent as is) to `path`, with the test's API key. */
  postJson(path: string, body: unknown): Promise<Response>;
  /** GET `path` with the test's API key (unless `headers` give an Authorization of their own). */
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** Any request with the test's API key; a `body` object is sent as JSON. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Logs in as the admin through the login form; returns the Cookie header value to send. */
  login(): Promise<string>;
  /** Hands the buffered visits on and waits until they are classified and written. */
  flushVisits(): Promise<void>;
}

/** A real browser's user agent: visits with it count as human ones (Node's own, "node", is a bot's). */
export const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The admin password of the test app (set by its first `login()`). */
export const ADMIN_PASSWORD = 'correct horse battery staple';

/**
 * Starts the real app on a fresh database of the test's backend, listening on 127.0.0.1 on a free port, with
 * a fake clock. `settings` are config-file values overriding the test defaults; `terminal` says stderr is a
 * terminal (Deps.terminal). Everything is torn down after the test.
 */
export async function startKurz(
  t: ExecutionContext,
  settings: Record<string, unknown> = {},
  { terminal, ...options }: AppOptions & { terminal?: boolean } = {},
): Promise<TestKurz> {
  const database = await freshDatabase(t);
  // On PostgreSQL too, the first start's password file goes beside a `db` of the test's own.
  const dataFolder = backend === 'postgres' ? { db: join(tempDir(t), 'kurz.db') } : {};
  const config = loadConfig({ file: { ...dataFolder, ...database.settings, port: 0, publicUrl: 'https://kurz.test', ...settings } });
  const clock = fakeClock();
  const log = memoryLogger();
  const accessLog: string[] = [];
  const logStream = { write: (text: string) => accessLog.push(...text.trimEnd().split('\n')) };
  let counter = 0;
  const random = (size: number) => Buffer.alloc(size, ++counter);
  const kurz = await createApp(config, { now: clock.now, random, log, logStream, terminal }, { backgroundWriter: false, ...options });
  t.teardown(() => kurz.close());
  const base = await listen(t, kurz.callback, config);
  kurz.listeningOn({ address: '127.0.0.1', family: 'IPv4', port: Number(new URL(base).port) });
  // The harness's key may do everything; the scopes' own tests make keys with less.
  const key = (await kurz.services.access.createKey(1, 'tests', { scopes: ['admin'] })).secret;
  let passwordSet: Promise<void> | undefined;
  const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(base + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        'user-agent': BROWSER_UA,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      redirect: 'manual',
    });
  return {
    base,
    kurz,
    config,
    clock,
    log,
    accessLog,
    database,
    sql: database.sql,
    key,
    async linkCount() {
      const [row] = await database.sql<{ n: number }>('SELECT count(*) AS n FROM links');
      return row?.n ?? -1;
    },
    postJson: (path, body) => request('POST', path, body),
    get: (path, headers = {}) => request('GET', path, undefined, headers),
    request,
    async login() {
      await (passwordSet ??= kurz.services.access.setPassword(ADMIN_PASSWORD));
      return loginAs(base, config.adminUser, ADMIN_PASSWORD);
    },
    async flushVisits() {
      kurz.services.visits.flush();
      await kurz.services.recorder.idle();
    },
  };
}

/** Cookie header value of the Set-Cookie headers of `response`, merged into `jar`. */
export function cookiesOf(response: Response, jar = ''): string {
  const cookies = new Map(
    jar
      .split('; ')
      .filter(Boolean)
      .map((c) => c.split('=', 2) as [string, string]),
  );
  for (const line of response.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const at = pair.indexOf('=');
    cookies.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return [...cookies]
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');
}

/** The value of the hidden `_csrf` field of a page. */
export function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m?.[1]) throw new Error('the page has no CSRF field');
  return m[1];
}

/** A link as `kurz export` writes it (an alias, never visited, made 2026-01-01): a record of an import file. */
export function exportedLink(code: string, url: string) {
  const at = '2026-01-01T00:00:00.000Z';
  return { code, url, isAlias: true, createdAt: at, updatedAt: at, visitCount: 0, lastVisitAt: null, deletedAt: null };
}

/** Logs in through the login form as a browser would; returns the cookies to send afterwards. */
export async function loginAs(base: string, user: string, password: string): Promise<string> {
  const page = await fetch(`${base}/login`, { headers: { accept: BROWSER_ACCEPT } });
  let jar = cookiesOf(page);
  const form = new URLSearchParams({ _csrf: csrfOf(await page.text()), user, password, next: '/' });
  const res = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { cookie: jar, 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER_ACCEPT },
    body: form,
    redirect: 'manual',
  });
  if (res.status !== 303) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  jar = cookiesOf(res, jar);
  return jar;
}

/** Accept header a browser sends for a page. */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Polls `condition` on the event loop until it holds; throws after `ms` so a test fails instead of hanging. */
export async function waitFor(condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const ROOT = join(import.meta.dirname, '..');

/**
 * What the tests start as a kurz process: the bundle of src/ that `make test` builds first (build/kurz.cjs,
 * what `make run` starts), not src/main.ts, which Node would type-strip and load module by module again in
 * every process, about twice the CPU of the CLI and `serve` tests. `kurzScript()` refuses a bundle older than
 * a file it is built from, so that a test never runs yesterday's kurz.
 */
export function kurzScript(): string {
  if (!bundleChecked) {
    const built = existsSync(BUNDLE) ? statSync(BUNDLE).mtimeMs : 0;
    const sources = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).map((f) => join(ROOT, 'src', f));
    // What the Makefile builds the bundle from, views/ aside (kurz reads those from the folder at run time).
    const newer = [...sources, join(ROOT, 'package.json'), join(ROOT, 'package-lock.json')].find((f) => statSync(f).mtimeMs > built);
    if (newer !== undefined)
      throw new Error(`${BUNDLE} is missing or older than ${newer}: run \`make build\` (make test does) before the tests`);
    bundleChecked = true;
  }
  return BUNDLE;
}

const BUNDLE = join(ROOT, 'build', 'kurz.cjs');
let bundleChecked = false;

/**
 * What a kurz process started by a test gets of the test's environment: PATH, and Node's compile cache when
 * `make test` sets one (each process then reads kurz's modules compiled, type-stripped, instead of doing it again).
 */
export const BASE_ENV: Readonly<Record<string, string>> = {
  PATH: process.env['PATH'] ?? '',
  ...(process.env['NODE_COMPILE_CACHE'] ? { NODE_COMPILE_CACHE: process.env['NODE_COMPILE_CACHE'] } : {}),
};

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs kurz's CLI as its own process with only `env` (plus PATH), from the bundle (`kurzScript()`) or, when `binary` is given,
 * from the executable. `input` is written to its standard input.
 */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  options: { binary?: string; input?: string; cwd?: string } = {},
): Promise<CliResult> {
  const [file, argv] = options.binary ? [options.binary, args] : [process.execPath, [kurzScript(), ...args]];
  await cliSlots.take();
  try {
    return await runProcess(file, argv, env, options);
  } finally {
    cliSlots.give();
  }
}

/**
 * CLI processes a test file runs at once: a table of cases is one test each, and ava starts them all
 * together; hundreds of Node processes starting at the same time would stall every test on the machine.
 */
const cliSlots = (() => {
  let free = Math.max(2, availableParallelism());
  const waiting: (() => void)[] = [];
  return {
    async take(): Promise<void> {
      if (free > 0) free--;
      else await new Promise<void>((resolve) => waiting.push(resolve));
    },
    give(): void {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
})();

function runProcess(
  file: string,
  argv: string[],
  env: Record<string, string>,
  options: { input?: string; cwd?: string },
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      argv,
      { env: { ...BASE_ENV, ...env }, cwd: options.cwd, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

/** A link as a store's insertLink takes it: `code` on the default domain, the admin's, made by the server, with `fields` over that. */
export function newLink(code: string, fields: Partial<NewLink> = {}): NewLink {
  return {
    ...DEFAULT_OPTIONS,
    domain: 0,
    ownerId: 1,
    review: null,
    createdBy: SERVER_ADMIN,
    code,
    url: `https://example.com/${code}`,
    isAlias: false,
    passwordHash: null,
    urlHash: null,
    createdAt: new Date(1),
    ...fields,
  };
}

/** `storage` with every link lookup by address (the redirect's, past its cache) reported to `looked`. */
export function countingLookups(storage: Storage, looked: () => void): Storage {
  const { links } = storage;
  return {
    ...storage,
    links: {
      ...links,
      targetByAddress: (domain, code) => (looked(), links.targetByAddress(domain, code)),
      ...(links.targetByAddressAtOnce
        ? { targetByAddressAtOnce: (domain: number, code: string) => (looked(), links.targetByAddressAtOnce!(domain, code)) }
        : {}),
    },
  };
}

export interface ServeProcess {
  url: string;
  child: ReturnType<typeof spawn>;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  output(): { stdout: string; stderr: string };
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `kurz serve` as its own process; resolves once it prints the URL to open. Stopped after the test.
 * It logs in the text format the tests read (KURZ_LOG_FORMAT=text) unless `env` says otherwise; the
 * JSON lines it writes by default are test/http/logs.test.ts's.
 */
export async function startServe(
  t: ExecutionContext,
  env: Record<string, string>,
  options: { binary?: string; args?: string[]; cwd?: string } = {},
): Promise<ServeProcess> {
  const [file, argv] = options.binary
    ? [options.binary, ['serve', ...(options.args ?? [])]]
    : [process.execPath, [kurzScript(), 'serve', ...(options.args ?? [])]];
  const child = spawn(file, argv, {
    env: { ...BASE_ENV, KURZ_PORT: '0', KURZ_LOG_FORMAT: 'text', ...env },
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return watchServe(t, child);
}

/**
 * A `kurz serve` started some other way (in a chroot, say) with its output piped: resolves once it prints the URL
 * to open; killed after the test if still running.
 */
export async function watchServe(t: ExecutionContext, child: ReturnType<typeof spawn>): Promise<ServeProcess> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d));
  child.stderr!.on('data', (d: Buffer) => (stderr += d));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const m = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout);
      if (m?.[1]) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`kurz exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    exited,
    output: () => ({ stdout, stderr }),
    async stop() {
      child.kill('SIGTERM');
      return (await exited)[0];
    },
  };
}

/** Makes an API key (scope admin) in `database` (for a kurz started as its own process); returns the key. */
export async function createKeyIn(database: TestDatabase, name = 'tests'): Promise<string> {
  const config = loadConfig({ file: database.settings });
  return withServices(config, async (services) => (await services.access.createKey(1, name, { scopes: ['admin'] })).secret);
}

// --- the backend: one test matrix over SQLite and PostgreSQL ---
// `make test` runs every test on SQLite, then the tests that touch storage again with
// KURZ_TEST_BACKEND=postgres, on the throwaway server test/support/with-postgres.ts starts.

export type Backend = 'sqlite' | 'postgres';

/** The backend of this run: KURZ_TEST_BACKEND, SQLite unless told. */
export const backend: Backend = backendOf(process.env['KURZ_TEST_BACKEND']);

const POSTGRES_URL = process.env['KURZ_TEST_POSTGRES_URL'] ?? '';
if (backend === 'postgres' && POSTGRES_URL === '') {
  throw new Error(
    'KURZ_TEST_BACKEND=postgres needs a server, but KURZ_TEST_POSTGRES_URL is not set: ' +
      'run the tests through `node test/support/with-postgres.ts -- ava …` (make test does)',
  );
}

/** A fresh, empty database of the test's backend; kurz makes its tables when it first opens it. */
export interface TestDatabase {
  /** The config-file setting naming it: { db } on SQLite, { databaseUrl } on PostgreSQL. */
  settings: { db: string } | { databaseUrl: string };
  /** The same for a kurz process's environment: KURZ_DB or KURZ_DATABASE_URL. */
  env: Record<string, string>;
  /** The same as command-line flags: --db FILE or --database-url URL. */
  flags: [string, string];
  /** The SQLite file ('' on PostgreSQL), for the tests of what only SQLite has. */
  file: string;
  /**
   * Runs `query` on a connection of the test's own (to read or plant rows behind kurz's back) and resolves
   * with its rows. `?` marks a parameter on both backends; integers come back as numbers, blobs as Buffers.
   */
  sql<T = Record<string, unknown>>(query: string, ...params: unknown[]): Promise<T[]>;
  /** Inserts `rows` (objects with the same keys: the columns) into `table`, in one transaction. */
  insert(table: string, rows: ReadonlyArray<Record<string, unknown>>): Promise<void>;
}

/**
 * A fresh database for the test, removed when it ends (after a kurz started later has closed it). SQLite: a
 * file in a new temp dir (`file`, a path inside it, if given); PostgreSQL: a database of a random name on the
 * server of KURZ_TEST_POSTGRES_URL.
 */
export async function freshDatabase(t: ExecutionContext, options: { file?: string } = {}): Promise<TestDatabase> {
  return backend === 'sqlite' ? sqliteDatabase(t, join(tempDir(t), options.file ?? 'kurz.db')) : postgresDatabase(t);
}

/** The storage kurz opens on a fresh database (closed when the test ends), and that database. */
export async function freshStorage(t: ExecutionContext): Promise<{ storage: Storage; database: TestDatabase }> {
  const database = await freshDatabase(t);
  const storage = await openStorage(loadConfig({ file: database.settings }), { log: memoryLogger() });
  t.teardown(() => storage.close());
  return { storage, database };
}

/**
 * A test of what only SQLite has (its file, WAL, PRAGMAs, backup, background writer): run on SQLite; in the
 * PostgreSQL pass listed as skipped, the reason in its title.
 */
export function sqliteOnly(title: string, why: string, implementation: Implementation<[]>): void {
  if (backend === 'sqlite') test(title, implementation);
  else test.skip(`${title} [SQLite only: ${why}]`, implementation);
}

function sqliteDatabase(t: ExecutionContext, file: string): TestDatabase {
  // Opened on first use: kurz, not the test, creates the file.
  let connection: Database | undefined;
  const db = () => (connection ??= new Sqlite(file));
  t.teardown(() => connection?.close());
  return {
    settings: { db: file },
    env: { KURZ_DB: file },
    flags: ['--db', file],
    file,
    async sql<T>(query: string, ...params: unknown[]) {
      const statement = db().prepare(query);
      if (statement.reader) return statement.all(...params) as T[];
      statement.run(...params);
      return [];
    },
    async insert(table, rows) {
      const sqlite = db();
      sqlite.transaction(() => {
        for (const [statement, params] of insertStatements(table, rows)) sqlite.prepare(statement).run(...params);
      })();
    },
  };
}

/** pg's parsers, but BIGINT (times in ms, counts) and NUMERIC (sums) parsed as numbers, as SQLite gives them. */
const numbersAsNumbers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC
      ? Number
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Connections to the test server's own database, for creating and dropping the tests' databases. */
let postgresAdmin: pg.Pool | undefined;

async function postgresDatabase(t: ExecutionContext): Promise<TestDatabase> {
  postgresAdmin ??= new pg.Pool({ connectionString: POSTGRES_URL, max: 2, allowExitOnIdle: true });
  const admin = postgresAdmin;
  const name = `kurz_test_${randomBytes(8).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  let connection: Promise<pg.Client> | undefined;
  const client = () =>
    (connection ??= (async () => {
      const c = new pg.Client({ connectionString: url.href, types: numbersAsNumbers });
      await c.connect();
      return c;
    })());
  t.teardown(async () => {
    if (connection) await (await connection).end();
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  });
  const sql = async <T>(query: string, ...params: unknown[]): Promise<T[]> =>
    (await (await client()).query(numberedParameters(query), params)).rows as T[];
  return {
    settings: { databaseUrl: url.href },
    env: { KURZ_DATABASE_URL: url.href },
    flags: ['--database-url', url.href],
    file: '',
    sql,
    async insert(table, rows) {
      await sql('BEGIN');
      try {
        for (const [statement, params] of insertStatements(table, rows)) await sql(statement, ...params);
        await sql('COMMIT');
      } catch (err) {
        await sql('ROLLBACK');
        throw err;
      }
    },
  };
}

/** Rows per INSERT statement: well within both backends' limits on parameters. */
const INSERT_CHUNK = 500;

/** Multi-row INSERTs of `rows` into `table`, each with its parameters. */
function insertStatements(table: string, rows: ReadonlyArray<Record<string, unknown>>): Array<[string, unknown[]]> {
  const columns = Object.keys(rows[0] ?? {});
  const statements: Array<[string, unknown[]]> = [];
  for (let at = 0; at < rows.length; at += INSERT_CHUNK) {
    const chunk = rows.slice(at, at + INSERT_CHUNK);
    const values = chunk.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
    statements.push([`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values}`, chunk.flatMap((row) => columns.map((c) => row[c]))]);
  }
  return statements;
}

/** `?` parameters as PostgreSQL's $1, $2, …; quoted strings and identifiers are left alone. */
function numberedParameters(query: string): string {
  let n = 0;
  return query.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (match) => (match === '?' ? `$${++n}` : match));
}

function backendOf(value: string | undefined): Backend {
  if (value === undefined || value === '' || value === 'sqlite') return 'sqlite';
  if (value === 'postgres') return 'postgres';
  throw new Error(`KURZ_TEST_BACKEND must be sqlite or postgres, got ${JSON.stringify(value)}`);
}

/** What a GET sent with `getWithHost` was answered: the status and the headers a redirect's test reads. */
export interface HostAnswer {
  status: number;
  location: string | undefined;
  cache: string | undefined;
}

/**
 * A GET of `path` on the server at `base` with exactly this Host header (fetch sends the URL's own Host,
 * whatever it is given), with a browser's user agent, so that a visit counts.
 */
export function getWithHost(base: string, host: string, path: string, accept = '*/*'): Promise<HostAnswer> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host, 'user-agent': BROWSER_UA, accept } }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, location: res.headers.location, cache: res.headers['cache-control'] as string | undefined }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** The body and content type of a GET of `path` with exactly this Host header (fetch sends the URL's own). */
export function textWithHost(base: string, host: string, path: string): Promise<{ text: string; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: new URL(base).port, path, headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ text, type: res.headers['content-type'] }));
    });
    req.on('error', reject);
    req.end();
  });
}
