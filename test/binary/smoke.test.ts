import { execFile, execFileSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import test, { type ExecutionContext } from 'ava';
import { BROWSER_ACCEPT, csrfOf, loginAs, runCli, startServe, tempDir, waitFor } from '../helpers.ts';
import { NODE_FLAGS } from '../../src/node-flags.ts';

// The built executable under test (make smoke sets it): these tests never touch the source.
const BUILT = process.env['KURZ_BINARY'] ?? '';

// Where qemu-user finds the C libraries of an executable built for another architecture (make smoke ARCH=arm64).
const QEMU_LD_PREFIX = process.env['QEMU_LD_PREFIX'];

/** A copy of the executable in an empty folder, run with no Node on PATH and its own home. */
function installed(t: ExecutionContext) {
  if (!BUILT || !existsSync(BUILT)) throw new Error('KURZ_BINARY must name the built executable (run make smoke)');
  const dir = tempDir(t);
  const binary = join(dir, 'kurz');
  copyFileSync(BUILT, binary);
  const env = { PATH: '/nonexistent', HOME: join(dir, 'home'), ...(QEMU_LD_PREFIX ? { QEMU_LD_PREFIX } : {}) };
  return {
    dir,
    binary,
    env,
    run: (args: string[], extra: Record<string, string> = {}) => runCli(args, { ...env, ...extra }, { binary, cwd: dir }),
  };
}

/** The CPU an ELF executable is for, in Node's words, from its header's e_machine field. */
function architectureOf(file: string): string {
  const header = Buffer.alloc(20);
  const fd = openSync(file, 'r');
  readSync(fd, header, 0, 20, 0);
  closeSync(fd);
  const machine = header.readUInt16LE(18);
  return ({ 0x3e: 'x64', 0xb7: 'arm64' } as Record<number, string>)[machine] ?? `ELF machine ${machine}`;
}

/** A name for the target site: kurz refuses loopback targets (they would lead back to it), so curl maps this one. */
const TARGET_HOST = 'target.test';

/** A local page to be redirected to, so the redirect can really be followed; `port` for curl's --resolve. */
async function targetSite(t: ExecutionContext): Promise<{ url: string; port: number }> {
  const server = createServer((req, res) => res.end(`arrived at ${req.url}`));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://${TARGET_HOST}:${port}`, port };
}

function curl(url: string, site: { port: number }): Promise<string> {
  const args = ['-sS', '-L', '--max-redirs', '2', '--resolve', `${TARGET_HOST}:${site.port}:127.0.0.1`];
  return new Promise((resolve, reject) =>
    execFile('curl', [...args, '-w', ' [%{http_code} via %{num_redirects} redirect]', url], (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    ),
  );
}

test('the executable serves, survives a restart, and backs up while serving', async (t) => {
  const kurz = installed(t);
  const site = await targetSite(t);
  const first = await startServe(t, kurz.env, { binary: kurz.binary, cwd: kurz.dir });
  t.true(existsSync(join(kurz.dir, 'data', 'kurz.db')), 'creates ./data/kurz.db on first start');

  // The first start writes the admin's generated password to a file (stderr is no terminal here), never to
  // the log; it logs in once, to choose the admin's own.
  // Hashed on the thread pool while it starts: under qemu, on a busy machine, that takes seconds.
  await waitFor(() => /generated password/.test(first.output().stderr), 60_000);
  const generated = readFileSync(join(kurz.dir, 'data', 'kurz-admin-password'), 'utf8').trim();
  t.false(first.output().stderr.includes(generated));
  const firstLogin = await loginAs(first.url, 'admin', generated);
  const form = await fetch(`${first.url}/account/password`, { headers: { cookie: firstLogin, accept: BROWSER_ACCEPT } });
  const changed = await fetch(`${first.url}/account/password`, {
    method: 'POST',
    headers: { cookie: firstLogin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrfOf(await form.text()), password: 'the smoke test password', repeat: 'the smoke test password' }),
    redirect: 'manual',
  });
  t.is(changed.status, 303);
  const cookie = await loginAs(first.url, 'admin', 'the smoke test password');
  const dashboard = await fetch(`${first.url}/`, { headers: { cookie, accept: BROWSER_ACCEPT } });
  t.is(dashboard.status, 200);
  t.regex(await dashboard.text(), /Shorten a link/);
  t.is((await fetch(`${first.url}/assets/kurz.css`)).status, 200, 'the stylesheet is inside the executable');

  const key = await kurz.run(['keys', 'create', '--name', 'smoke']);
  t.is(key.code, 0, key.stderr);
  const res = await fetch(`${first.url}/api/v1/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key.stdout.trim()}` },
    body: JSON.stringify({ url: `${site.url}/landing` }),
  });
  t.is(res.status, 201);
  const { code } = (await res.json()) as { code: string };
  t.is(await curl(`${first.url}/${code}`, site), 'arrived at /landing [200 via 1 redirect]');

  const backup = await kurz.run(['backup', 'copy.db']);
  t.is(backup.code, 0, backup.stderr);
  const copy = new Sqlite(join(kurz.dir, 'copy.db'), { readonly: true });
  t.teardown(() => copy.close());
  t.is(copy.prepare('SELECT url FROM links WHERE code = ?').pluck().get(code), `${site.url}/landing`);

  t.is(await first.stop(), 0);
  // The visits went through the background writer, a second process of the same executable (which, for an
  // executable of another CPU, the kernel must also hand to the emulator), and nothing failed on the way.
  t.regex(first.output().stderr, /background process started pid=\d+/);
  t.notRegex(first.output().stderr, /^\S+ error /m);
  const second = await startServe(t, kurz.env, { binary: kurz.binary, cwd: kurz.dir });
  t.is(await curl(`${second.url}/${code}`, site), 'arrived at /landing [200 via 1 redirect]');
  t.is(await second.stop(), 0);
});

test('the executable is the CLI: version, create, list, stats', async (t) => {
  const kurz = installed(t);
  const run = await kurz.run(['version', '--json']);
  t.is(run.stderr, '', 'no warning at start, such as a code cache V8 rejects');
  const version = JSON.parse(run.stdout) as { node: string; nodeOptions: string[]; arch: string; commit: string };
  t.regex(version.node, /^24\./);
  t.deepEqual(version.nodeOptions, [...NODE_FLAGS], 'the executable runs with the options it embeds');
  t.is(version.arch, architectureOf(kurz.binary), 'names the architecture it was built for');
  const [, commit] = /^([0-9a-f]{12})(-dirty)?$/.exec(version.commit) ?? [];
  t.notThrows(() => execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { stdio: 'ignore' }), version.commit);
  const created = await kurz.run(['create', 'https://example.com/cli', '--alias', 'cli']);
  t.is(created.stdout, 'http://127.0.0.1:8080/cli\n');
  t.regex((await kurz.run(['list'])).stdout, /^CODE .*\ncli /);
  t.is((await kurz.run(['stats', 'nope'])).code, 1);
  t.is((await kurz.run(['frobnicate'])).code, 2);
});

test('the SQLite addon is unpacked once per content hash; an unusable cache folder is named', async (t) => {
  const kurz = installed(t);
  const cache = join(kurz.dir, 'home', '.cache', 'kurz');
  const [a, b] = await Promise.all([kurz.run(['version']), kurz.run(['version'])]);
  t.is(a.code, 0, a.stderr);
  t.is(b.code, 0, b.stderr);
  t.deepEqual(
    readdirSync(cache).filter((f) => !/^better_sqlite3-[0-9a-f]{16}\.node$/.test(f)),
    [],
    'no temporary files left',
  );
  t.is(readdirSync(cache).length, 1);

  writeFileSync(join(kurz.dir, 'not-a-dir'), '');
  const blocked = await kurz.run(['version'], { KURZ_CACHE_DIR: join(kurz.dir, 'not-a-dir', 'cache') });
  t.is(blocked.code, 1);
  t.regex(blocked.stderr, /cannot unpack the SQLite addon into the cache directory .*not-a-dir\/cache \(ENOTDIR\)/);
});

test('the executable runs as a primary with two workers, and stops them all on SIGTERM', async (t) => {
  const kurz = installed(t);
  const key = (await kurz.run(['keys', 'create', '--name', 'smoke'])).stdout.trim();
  const server = await startServe(t, { ...kurz.env, KURZ_WORKERS: '2' }, { binary: kurz.binary, cwd: kurz.dir });
  const pids = (/workers started workers=2 pids=(\d+),(\d+)/.exec(server.output().stderr) ?? []).slice(1).map(Number);
  t.is(pids.length, 2);
  const created = await fetch(`${server.url}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/from-a-worker' }),
  });
  t.is(created.status, 201);
  const { code } = (await created.json()) as { code: string };
  t.is((await fetch(`${server.url}/${code}`, { redirect: 'manual' })).headers.get('location'), 'https://example.com/from-a-worker');
  t.is(await server.stop(), 0);
  for (const pid of pids) t.throws(() => process.kill(pid, 0), undefined, `worker ${pid} is gone`);
});
