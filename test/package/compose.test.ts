// docs/compose.yml as a self-hoster runs it, with docker-compose (Debian's 1.29) on a docker daemon (Debian's
// 20.10) the test starts in a folder of its own: the single set-up, and the cluster (PostgreSQL, two kurz nodes,
// nginx in front). `make compose-test` runs it.
//
// The cluster's postgres and nginx images come from a registry this machine cannot reach, so the test builds
// stand-ins under their names (test/package/compose/): Debian 12's PostgreSQL 15 and nginx, from a Debian root
// (KURZ_COMPOSE_ROOT, made by debootstrap), doing what the official images do for the settings the file gives
// them. kurz's own image is dist/kurz-image.tar, as a user loads it.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { VERSION } from '../../src/core/version.ts';
import { BROWSER_UA, freePort, runProgram, tempDir, waitFor, type ProgramRun } from '../helpers.ts';

const ROOT = process.env['KURZ_COMPOSE_ROOT'];
const ARCHIVE = process.env['KURZ_IMAGE'] ?? 'dist/kurz-image.tar';
const STAND_INS = join(import.meta.dirname, 'compose');
const DOCS = join(import.meta.dirname, '..', '..', 'docs');
// The address the file gives nginx, the one proxy kurz trusts.
const PROXY_ADDRESS = '172.30.0.10';

let daemonDir = '';
let daemon: ChildProcess | undefined;
let env: NodeJS.ProcessEnv = {};

/** Runs a program with the daemon's DOCKER_HOST (and `extraEnv`), in `cwd`. */
const run = (command: string, args: string[], options: { cwd?: string; extraEnv?: NodeJS.ProcessEnv } = {}) =>
  runProgram(command, args, { env: { ...env, ...options.extraEnv }, ...(options.cwd === undefined ? {} : { cwd: options.cwd }) });

async function must(command: string, args: string[], options: { cwd?: string } = {}): Promise<string> {
  const done = await run(command, args, options);
  if (done.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${done.code}: ${done.stderr}${done.stdout}`);
  return done.stdout;
}

/** docs/compose.yml and its nginx file copied into a folder of the test's, where the secrets are written as the file says. */
interface Project {
  dir: string;
  name: string;
  base: string;
  compose: (...args: string[]) => Promise<ProgramRun>;
}

async function project(t: ExecutionContext, profile: 'single' | 'cluster'): Promise<Project> {
  const dir = tempDir(t);
  copyFileSync(join(DOCS, 'compose.yml'), join(dir, 'compose.yml'));
  copyFileSync(join(DOCS, 'compose-nginx.conf'), join(dir, 'compose-nginx.conf'));
  const password = randomBytes(16).toString('hex');
  writeFileSync(join(dir, 'db-password'), `${password}\n`, { mode: 0o600 });
  writeFileSync(join(dir, 'database-url'), `postgres://kurz:${password}@postgres:5432/kurz\n`, { mode: 0o600 });
  chownSync(join(dir, 'database-url'), 10001, 10001);
  const name = `kurz${randomBytes(3).toString('hex')}`;
  const port = await freePort();
  const compose = (...args: string[]): Promise<ProgramRun> =>
    run('docker-compose', ['-p', name, '-f', 'compose.yml', '--profile', profile, ...args], {
      cwd: dir,
      extraEnv: { KURZ_HOST_PORT: String(port) },
    });
  t.teardown(async () => void (await compose('down', '-v', '-t', '10')));
  return { dir, name, base: `http://127.0.0.1:${port}`, compose };
}

async function up(t: ExecutionContext, p: Project, database: string): Promise<void> {
  const started = await p.compose('up', '-d');
  t.is(started.code, 0, started.stderr);
  await waitFor(async () => {
    try {
      const answer = await fetch(`${p.base}/healthz`);
      return answer.status === 200 && ((await answer.json()) as { database: string }).database === database;
    } catch {
      return false;
    }
  }, 90_000);
}

/** Runs `kurz ARGS` in the service's container, as `docker compose exec` does. */
async function kurz(p: Project, service: string, ...args: string[]): Promise<string> {
  const done = await p.compose('exec', '-T', service, 'kurz', ...args);
  if (done.code !== 0) throw new Error(`kurz ${args.join(' ')} in ${service} exited ${done.code}: ${done.stderr}${done.stdout}`);
  return done.stdout;
}

async function redirect(base: string, code: string): Promise<{ status: number; location: string | null }> {
  const answer = await fetch(`${base}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  await answer.body?.cancel();
  return { status: answer.status, location: answer.headers.get('location') };
}

/** `compose ARGS` timed: the seconds it took. */
async function timed(t: ExecutionContext, p: Project, ...args: string[]): Promise<number> {
  const began = Date.now();
  const done = await p.compose(...args);
  t.is(done.code, 0, done.stderr);
  const seconds = (Date.now() - began) / 1000;
  t.log(`${args.join(' ')} in ${seconds.toFixed(1)} s`);
  return seconds;
}

// A docker daemon of the test's own: its images, containers and volumes in a temporary folder, gone after. It
// leaves the machine's firewall and bridges alone: published ports go through docker's own proxy on loopback,
// and the containers talk over their compose network's bridge.
test.before(async () => {
  if (!ROOT) throw new Error('KURZ_COMPOSE_ROOT names the Debian root for the stand-in images: run `make compose-test`');
  daemonDir = (await must('mktemp', ['-d', '/tmp/kurz-docker-XXXXXX'])).trim();
  const socket = `unix://${daemonDir}/docker.sock`;
  env = { ...process.env, DOCKER_HOST: socket };
  delete env['DOCKER_CONTEXT'];
  daemon = spawn(
    'dockerd',
    [
      '--data-root',
      `${daemonDir}/data`,
      '--exec-root',
      `${daemonDir}/exec`,
      '--pidfile',
      `${daemonDir}/pid`,
      '-H',
      socket,
      '--iptables=false',
      '--bridge=none',
    ],
    { stdio: 'ignore' },
  );
  await waitFor(async () => (await run('docker', ['version'])).code === 0, 60_000);
  await must('sh', ['-c', `docker import - kurz-compose-test/debian < "${ROOT}"`]);
  await must('docker', ['build', '-q', '-t', 'docker.io/library/postgres:15', '-f', 'postgres.Dockerfile', '.'], { cwd: STAND_INS });
  await must('docker', ['build', '-q', '-t', 'docker.io/library/nginx:stable', '-f', 'nginx.Dockerfile', '.'], { cwd: STAND_INS });
  await must('docker', ['load', '-i', ARCHIVE]);
});

test.after.always(async () => {
  if (daemon && daemon.exitCode === null) {
    const exited = new Promise((resolve) => daemon?.once('exit', resolve));
    daemon.kill('SIGTERM');
    await exited;
  }
  if (daemonDir) await run('rm', ['-rf', daemonDir]);
});

test.serial('the single set-up serves from its volume and keeps its links across down and up', async (t) => {
  const p = await project(t, 'single');
  await up(t, p, 'sqlite');
  t.regex(await kurz(p, 'kurz', 'version'), new RegExp(`^kurz ${VERSION.replaceAll('.', '\\.')}\n`));
  await kurz(p, 'kurz', 'create', 'https://example.com/single', '--alias', 'single');
  t.deepEqual(await redirect(p.base, 'single'), { status: 302, location: 'https://example.com/single' });
  t.true((await timed(t, p, 'down', '-t', '10')) < 10);
  await up(t, p, 'sqlite');
  t.deepEqual(await redirect(p.base, 'single'), { status: 302, location: 'https://example.com/single' });
});

test.serial(
  'the cluster: two nodes on PostgreSQL behind nginx share links and visits, see the client, and survive a node and a restart',
  async (t) => {
    const p = await project(t, 'cluster');
    await up(t, p, 'postgres');

    // One admin for both nodes: the first start's generated password is logged by one node only. A node sets it
    // while it starts, and the one that sets it may answer last: its line is awaited here, and counted once the
    // other node has had the whole test to log a second one (below).
    const bothLogs = async () => (await p.compose('logs', '--no-color', 'kurz-1', 'kurz-2')).stdout;
    const GENERATED = 'first start: the admin account has a generated password';
    await waitFor(async () => (await bothLogs()).includes(GENERATED), 90_000);

    // A link made on one node redirects through nginx, whichever node answers, and its visit is counted for both
    // (by a node's background process, at nice 19: it waits while the machine is busy).
    await kurz(p, 'kurz-1', 'create', 'https://example.com/cluster', '--alias', 'cluster');
    t.deepEqual(await redirect(p.base, 'cluster'), { status: 302, location: 'https://example.com/cluster' });
    await waitFor(async () => {
      const link = JSON.parse(await kurz(p, 'kurz-2', 'stats', 'cluster', '--json')) as { stats: { visits: { humans: number } } };
      return link.stats.visits.humans === 1;
    }, 90_000);

    // kurz trusts nginx's fixed address only, so it records the client nginx saw (the network's gateway, where
    // docker's proxy for the published port connects from), never nginx itself.
    const key = (await kurz(p, 'kurz-2', 'keys', 'create', '--name', 'compose-test')).trim();
    const created = await fetch(`${p.base}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
      body: JSON.stringify({ url: 'https://example.com/api', alias: 'from-api' }),
    });
    t.is(created.status, 201, await created.text());
    const audit = (await kurz(p, 'kurz-1', 'audit', '--json'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; via: string; client: string | null });
    const byKey = audit.find((entry) => entry.action === 'link.create' && entry.via === 'key');
    t.regex(byKey?.client ?? '', /^172\.30\.0\.\d+$/);
    t.not(byKey?.client, PROXY_ADDRESS);
    // nginx replaces the header the client sent: the address is the one nginx saw, not the forged one.
    t.not(byKey?.client, '203.0.113.9');

    const logs = await bothLogs();
    t.is(logs.split(GENERATED).length - 1, 1, logs);

    // One node stopped (SIGTERM, 10 s grace): it exits cleanly and nginx sends everything to the other.
    t.true((await timed(t, p, 'stop', '-t', '10', 'kurz-1')) < 10);
    const state = await must('docker', ['inspect', `${p.name}_kurz-1_1`, '--format', '{{.State.ExitCode}}']);
    t.is(state.trim(), '0');
    for (let i = 0; i < 5; i++) {
      t.deepEqual(await redirect(p.base, 'cluster'), { status: 302, location: 'https://example.com/cluster' });
    }

    // Everything down and up again on the same volumes: the links are in PostgreSQL's.
    t.true((await timed(t, p, 'down', '-t', '10')) < 10);
    await up(t, p, 'postgres');
    t.deepEqual(await redirect(p.base, 'cluster'), { status: 302, location: 'https://example.com/cluster' });
    t.deepEqual(await redirect(p.base, 'from-api'), { status: 302, location: 'https://example.com/api' });
  },
);
