// The container image (dist/kurz-image.tar, `make image`) as a self-hoster runs it: podman load, run with a
// volume, /healthz, create, redirect, restart on the same volume, stop. `make image-test` runs it.
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { VERSION } from '../../src/core/version.ts';
import { freePort, runProgram, tempDir, waitFor } from '../helpers.ts';

const ARCHIVE = process.env['KURZ_IMAGE'] ?? 'dist/kurz-image.tar';
// The archive's docker side names them so (it knows no platforms): what podman load reads from an index of two images.
const IMAGE = `kurz:${VERSION}`;
const ARM64_IMAGE = `kurz:${VERSION}-arm64`;

/**
 * How podman must run here, and why: crun refuses a machine whose cgroups are mixed v1 and v2 ("cgroups in
 * hybrid mode not supported"), runc does not; and podman raises a container's open files and processes to
 * its own defaults (1048576), which this machine refuses ("setrlimit: operation not permitted"). Open files
 * get this machine's hard limit; processes 4096 (kurz runs a few), as setting even 65536 fails here.
 */
const RUNTIME = ['--runtime', 'runc'];
const LIMITS = ['--ulimit', `nofile=${openFilesLimit()}`, '--ulimit', 'nproc=4096'];

function openFilesLimit(): string {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const hard = line?.split(/\s+/)[4];
  if (!hard) throw new Error('no "Max open files" in /proc/self/limits');
  return hard === 'unlimited' ? '1048576' : hard;
}

const podman = (...args: string[]) => runProgram('podman', [...RUNTIME, ...args]);

/** Starts the image with `volume` on /data, published on a free loopback port; removed after the test. */
async function start(t: ExecutionContext, volume: string, extra: string[] = [], image = IMAGE): Promise<{ name: string; base: string }> {
  const name = `kurz-test-${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const run = await podman(
    'run',
    '-d',
    '--name',
    name,
    ...LIMITS,
    '-v',
    `${volume}:/data`,
    '-p',
    `127.0.0.1:${port}:8080`,
    ...extra,
    image,
  );
  t.is(run.code, 0, run.stderr);
  t.teardown(async () => void (await podman('rm', '-f', '-t', '0', name)));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    try {
      return (await fetch(`${base}/healthz`)).status === 200;
    } catch {
      return false;
    }
  }, 60_000);
  return { name, base };
}

/** Stops the container as `podman stop` (SIGTERM, 10 s before SIGKILL) does; returns the seconds taken and the exit code. */
async function stop(t: ExecutionContext, name: string): Promise<{ seconds: number; exitCode: string }> {
  const began = Date.now();
  const stopped = await podman('stop', '-t', '10', name);
  t.is(stopped.code, 0, stopped.stderr);
  const seconds = (Date.now() - began) / 1000;
  t.log(`${name} stopped in ${seconds.toFixed(1)} s`);
  const state = await podman('inspect', name, '--format', '{{.State.ExitCode}}');
  return { seconds, exitCode: state.stdout.trim() };
}

// Serial: the tests share the loaded image, and the last one changes how podman stores it.
test.before(async () => {
  // A fresh load each run: podman keeps an image it already has as it was stored.
  await podman('rmi', '-f', IMAGE, ARM64_IMAGE);
  const loaded = await podman('load', '-i', ARCHIVE);
  if (loaded.code !== 0) throw new Error(`podman load failed: ${loaded.stderr}`);
});

test.serial('the image runs as a non-root user, with kurz and its libraries only: no shell', async (t) => {
  const config = await podman(
    'image',
    'inspect',
    IMAGE,
    '--format',
    '{{.Config.User}} {{json .Config.Entrypoint}} {{json .Config.Volumes}}',
  );
  t.is(config.stdout.trim(), '10001:10001 ["/usr/bin/kurz"] {"/data":{}}');
  const version = await podman('run', '--rm', ...LIMITS, IMAGE, 'version');
  t.is(version.code, 0, version.stderr);
  t.true(version.stdout.startsWith(`kurz ${VERSION}\n`));
  const shell = await podman('run', '--rm', ...LIMITS, '--entrypoint', '/bin/sh', IMAGE, '-c', 'true');
  t.not(shell.code, 0);
  t.regex(shell.stderr, /\/bin\/sh.*(no such file|not found)/i);
});

test.serial('a container serves, keeps its links in the /data volume across a restart, and stops within 10 s', async (t) => {
  const volume = `kurz-test-${randomBytes(4).toString('hex')}`;
  t.is((await podman('volume', 'create', volume)).code, 0);
  t.teardown(async () => void (await podman('volume', 'rm', '-f', volume)));
  // A secret from a file, as a compose secret or a mounted file gives it.
  const dir = tempDir(t);
  chmodSync(dir, 0o755);
  const metricsKey = randomBytes(24).toString('hex');
  writeFileSync(join(dir, 'metrics-key'), metricsKey, { mode: 0o644 });
  const secret = ['-v', `${dir}/metrics-key:/run/secrets/metrics-key:ro`, '-e', 'KURZ_METRICS_KEY_FILE=/run/secrets/metrics-key'];
  const health = ['--health-cmd', '["/usr/bin/kurz","healthcheck"]', '--health-interval', 'disable'];

  const first = await start(t, volume, [...secret, ...health]);
  const healthz = await fetch(`${first.base}/healthz`);
  t.deepEqual(await healthz.json(), { status: 'ok', database: 'sqlite' });
  const check = await podman('healthcheck', 'run', first.name);
  t.is(check.code, 0, check.stdout + check.stderr);
  const inside = await podman('exec', first.name, '/usr/bin/kurz', 'healthcheck');
  t.is(inside.stdout, 'ok: http://127.0.0.1:8080/healthz (sqlite)\n', inside.stderr);
  const logs = await podman('logs', first.name);
  t.regex(logs.stdout + logs.stderr, /first start: the admin account has a generated password.*"file":"\/data\/kurz-admin-password"/);

  t.not((await fetch(`${first.base}/metrics`)).status, 200, 'the metrics need the key from the file');
  t.is((await fetch(`${first.base}/metrics`, { headers: { authorization: `Bearer ${metricsKey}` } })).status, 200);

  const made = await podman('exec', first.name, '/usr/bin/kurz', 'keys', 'create', '--name', 'image-test', '--json');
  t.is(made.code, 0, made.stderr);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  const created = await fetch(`${first.base}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/from-the-container' }),
  });
  t.is(created.status, 201);
  const { code } = (await created.json()) as { code: string };
  const redirect = await fetch(`${first.base}/${code}`, { redirect: 'manual' });
  t.is(redirect.status, 302);
  t.is(redirect.headers.get('location'), 'https://example.com/from-the-container');

  const firstStop = await stop(t, first.name);
  t.true(firstStop.seconds < 10, `stopped in ${firstStop.seconds} s`);
  t.is(firstStop.exitCode, '0');

  const second = await start(t, volume);
  const again = await fetch(`${second.base}/${code}`, { redirect: 'manual' });
  t.is(again.status, 302, 'the link is in the volume');
  t.is(again.headers.get('location'), 'https://example.com/from-the-container');
  const secondLogs = await podman('logs', second.name);
  t.notRegex(secondLogs.stdout + secondLogs.stderr, /first start/);
  const secondStop = await stop(t, second.name);
  t.true(secondStop.seconds < 10, `stopped in ${secondStop.seconds} s`);
  t.is(secondStop.exitCode, '0');
});

test.serial("podman load takes both architectures, with docker's HEALTHCHECK, and the arm64 image serves under qemu-user", async (t) => {
  const format = '{{.Architecture}} {{.ManifestType}} {{json .HealthCheck.Test}} {{.User}}';
  const docker = 'application/vnd.docker.distribution.manifest.v2+json ["CMD","/usr/bin/kurz","healthcheck"] 10001:10001';
  t.is((await podman('image', 'inspect', IMAGE, '--format', format)).stdout.trim(), `amd64 ${docker}`);
  t.is((await podman('image', 'inspect', ARM64_IMAGE, '--format', format)).stdout.trim(), `arm64 ${docker}`);
  const version = await podman('run', '--rm', ...LIMITS, ARM64_IMAGE, 'version', '--json');
  t.is(version.code, 0, version.stderr);
  t.like(JSON.parse(version.stdout), { kurz: VERSION, arch: 'arm64' });
  const volume = `kurz-test-${randomBytes(4).toString('hex')}`;
  t.teardown(async () => void (await podman('volume', 'rm', '-f', volume)));
  const arm64 = await start(t, volume, [], ARM64_IMAGE);
  t.deepEqual(await (await fetch(`${arm64.base}/healthz`)).json(), { status: 'ok', database: 'sqlite' });
  t.true((await stop(t, arm64.name)).seconds < 10);
});
