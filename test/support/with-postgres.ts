// node test/support/with-postgres.ts [--durable] -- COMMAND [ARGS…]
//
// Runs COMMAND with a throwaway PostgreSQL server of its own: a fresh data folder under the OS temp dir,
// listening on 127.0.0.1 on a free port (its Unix socket in that folder), trust authentication for the
// role kurz (allowed to create databases), fsync and autovacuum off unless --durable (the benchmark: commits
// wait for the disk, as SQLite's do). COMMAND gets
// KURZ_TEST_POSTGRES_URL=postgres://kurz@127.0.0.1:PORT/postgres; when it ends, or fails, or on Ctrl-C, the
// server stops and the folder is removed. Exits with COMMAND's exit code.
//
// The server binaries come from Debian's postgresql package (/usr/lib/postgresql/VERSION/bin, the highest
// version), or wherever `pg_config --bindir` points. As root, they run as the postgres system user:
// initdb and postgres refuse to run as root.
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Someone develops against a server on this port: never take it. */
const TAKEN_PORT = 55999;
/** How long the server may take to accept connections. */
const START_TIMEOUT_MS = 60_000;
/** Starts tried when another process takes the free port first. */
const START_ATTEMPTS = 3;
/** Tests run in parallel, each with kurz's connection pool and one of its own. */
const MAX_CONNECTIONS = 500;

const separator = process.argv.indexOf('--');
const durable = process.argv.slice(2, separator === -1 ? undefined : separator).includes('--durable');
const command = separator === -1 ? [] : process.argv.slice(separator + 1);
if (command.length === 0) {
  console.error('usage: node test/support/with-postgres.ts -- COMMAND [ARGS…]');
  process.exit(2);
}

// Ctrl-C reaches the command from the terminal; a signal sent to this process alone is passed on. Either
// way this process carries on, to stop the server and remove the folder.
let interrupted: NodeJS.Signals | undefined;
let commandChild: ChildProcess | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    interrupted ??= signal;
    commandChild?.kill(signal);
  });
}

const bin = serverBinaries();
const runAs = process.getuid?.() === 0 ? systemUser('postgres') : undefined;
const folder = mkdtempSync(join(tmpdir(), 'kurz-postgres-'));
const data = join(folder, 'data');
let server: ChildProcess | undefined;
let exitCode: number;
try {
  if (runAs) chownSync(folder, runAs.uid, runAs.gid);
  // The C locale: text sorts by byte, as SQLite's BINARY collation does.
  await run(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
    '--no-instructions',
  ]);
  const port = await startServer();
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  await admin.query('CREATE ROLE kurz LOGIN CREATEDB');
  await admin.end();
  const url = `postgres://kurz@127.0.0.1:${port}/postgres`;
  console.error(`with-postgres: PostgreSQL ${serverVersion()} on ${url} (data in ${data})`);
  exitCode = await runCommand({ ...process.env, KURZ_TEST_POSTGRES_URL: url });
} catch (err) {
  console.error(`with-postgres: ${(err as Error).message}`);
  exitCode = interrupted ? signalExitCode(interrupted) : 1;
} finally {
  await stopServer();
  rmSync(folder, { recursive: true, force: true });
}
process.exit(exitCode);

/** The folder holding initdb and postgres: the newest /usr/lib/postgresql/N/bin, else pg_config's. */
function serverBinaries(): string {
  const debian = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .filter((version) => /^\d+$/.test(version) && existsSync(join('/usr/lib/postgresql', version, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (debian[0] !== undefined) return join('/usr/lib/postgresql', debian[0], 'bin');
  try {
    const bindir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(join(bindir, 'postgres')) && existsSync(join(bindir, 'initdb'))) return bindir;
  } catch {
    // No pg_config: fall through to the message below.
  }
  console.error('with-postgres: no PostgreSQL server binaries (initdb, postgres); install them: apt-get install -y postgresql');
  process.exit(1);
}

function systemUser(name: string): { uid: number; gid: number } {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    console.error(
      `with-postgres: running as root, but there is no "${name}" user to run the server as (Debian's postgresql package makes it)`,
    );
    process.exit(1);
  }
}

/** Spawns a server binary, as the postgres user when this runs as root. */
function spawnServerBinary(file: string, args: string[], options: SpawnOptions): ChildProcess {
  return runAs ? spawn('runuser', ['-u', 'postgres', '--', file, ...args], options) : spawn(file, args, options);
}

/** Runs a server binary to its end; rejects with its output when it fails. */
async function run(file: string, args: string[]): Promise<void> {
  const child = spawnServerBinary(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d));
  child.stderr?.on('data', (d: Buffer) => (output += d));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${file} ${args.join(' ')} failed (exit ${code}):\n${output}`);
}

/** Starts postgres on a free port and waits until it accepts connections; returns the port. */
async function startServer(): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawnServerBinary(
      join(bin, 'postgres'),
      [
        '-D',
        data,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `port=${port}`,
        '-c',
        `unix_socket_directories=${folder}`,
        ...(durable ? [] : ['-c', 'fsync=off']),
        // An autovacuum worker runs as the superuser: a test's DROP DATABASE … WITH (FORCE), as role kurz,
        // may not end it. The test databases live seconds; the benchmark's keep it.
        ...(durable ? [] : ['-c', 'autovacuum=off']),
        '-c',
        `max_connections=${MAX_CONNECTIONS}`,
      ],
      // Its own process group: Ctrl-C reaches the command, and the server is stopped afterwards, in order.
      { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
    );
    server = child;
    let log = '';
    child.stderr?.on('data', (d: Buffer) => (log += d));
    const exited = once(child, 'exit');
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (child.exitCode === null && child.signalCode === null) {
      if (interrupted) throw new Error(`interrupted by ${interrupted} while PostgreSQL started`);
      if (await accepts(port)) return port;
      if (Date.now() > deadline) throw new Error(`PostgreSQL did not accept connections within ${START_TIMEOUT_MS} ms:\n${log}`);
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 50))]);
    }
    server = undefined;
    if (!/could not bind|Address already in use/.test(log) || attempt === START_ATTEMPTS)
      throw new Error(`PostgreSQL did not start:\n${log}`);
  }
}

/** True when the server on `port` answers pg_isready with "accepting connections". */
async function accepts(port: number): Promise<boolean> {
  const child = spawn(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres'], {
    stdio: 'ignore',
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return code === 0;
}

/** A port on 127.0.0.1 nothing listens on right now (never TAKEN_PORT). */
async function freePort(): Promise<number> {
  for (;;) {
    const probe = createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const address = probe.address();
    probe.close();
    await once(probe, 'close');
    if (typeof address === 'object' && address !== null && address.port !== TAKEN_PORT) return address.port;
  }
}

function serverVersion(): string {
  return readFileSync(join(data, 'PG_VERSION'), 'utf8').trim();
}

/** Runs the wrapped command with `env`; resolves with its exit code (128 + the signal's number if a signal ended it). */
async function runCommand(env: NodeJS.ProcessEnv): Promise<number> {
  if (interrupted) throw new Error(`interrupted by ${interrupted} before ${command.join(' ')} started`);
  const [file = '', ...args] = command;
  const child = spawn(file, args, { stdio: 'inherit', env });
  commandChild = child;
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  if (signal !== null) console.error(`with-postgres: ${file} ended by ${signal}`);
  return code ?? signalExitCode(signal ?? 'SIGKILL');
}

function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (osConstants.signals[signal] ?? 0);
}

/** Stops the server at once (its data is thrown away) and waits until it has exited. */
async function stopServer(): Promise<void> {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const exited = once(server, 'exit');
  try {
    await run(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-w']);
  } catch (err) {
    console.error(`with-postgres: ${(err as Error).message}`);
    if (server.pid !== undefined) process.kill(-server.pid, 'SIGKILL');
  }
  await exited;
}
