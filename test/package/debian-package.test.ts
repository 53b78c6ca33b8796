import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import test, { type ExecutionContext } from 'ava';
import { VERSION } from '../../src/core/version.ts';
import { runProgram, waitFor, watchServe } from '../helpers.ts';

// `make deb-test` builds the package and a Debian root (debootstrap, cached as a tar); these tests install the
// package into a fresh copy of that root, as root, and look at what dpkg, the maintainer scripts and kurz did there.
const DEB = join(import.meta.dirname, '..', '..', 'dist', `kurz_${VERSION}_amd64.deb`);
const ROOT_TAR = process.env['KURZ_DEBIAN_ROOT'] ?? '';

/** Runs a program here with a plain PATH and the C locale (dpkg's messages in English). */
const run = (file: string, args: string[]) => runProgram(file, args, { env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LC_ALL: 'C' } });

let root = '';
/** Runs a program inside the Debian root. */
const inRoot = (...args: string[]) => run('chroot', [root, ...args]);
/** A path inside the root, as seen from here. */
const at = (path: string) => join(root, path);
/** The command line that runs `args` (in the root) as the kurz user, with only `env`. */
const asKurz = (env: string[], args: string[]) => [
  'env',
  '-i',
  ...env,
  'setpriv',
  '--reuid=kurz',
  '--regid=kurz',
  '--init-groups',
  ...args,
];

test.before(async () => {
  if (process.getuid?.() !== 0) throw new Error('the Debian package test installs into a chroot: run it as root (make deb-test)');
  if (!existsSync(ROOT_TAR)) throw new Error('KURZ_DEBIAN_ROOT must name the Debian root tar (make deb-test builds it)');
  if (!existsSync(DEB)) throw new Error(`${DEB} is missing (make deb)`);
  root = mkdtempSync(join(tmpdir(), 'kurz-debian-root-'));
  const started = Date.now();
  const untar = await run('tar', ['-C', root, '-xf', ROOT_TAR]);
  if (untar.code !== 0) throw new Error(untar.stderr);
  console.log(`  a fresh Debian root from ${ROOT_TAR} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // Node reads /proc (its own executable, the CPUs); the root's /proc is the machine's, mounted for these tests.
  const mount = await run('mount', ['-t', 'proc', 'proc', at('proc')]);
  if (mount.code !== 0) throw new Error(`mount /proc in the root: ${mount.stderr}`);
  writeFileSync(at('tmp/kurz.deb'), readFileSync(DEB));
});

test.after.always(async () => {
  if (root === '') return;
  const umount = await run('umount', [at('proc')]);
  // Only once /proc is unmounted: rm would otherwise walk into the machine's /proc.
  if (umount.code !== 0 || existsSync(at('proc/self'))) throw new Error(`umount ${at('proc')}: ${umount.stderr}; remove ${root} by hand`);
  rmSync(root, { recursive: true, force: true });
});

test('scripts/deb.ts refuses an executable of another architecture than the package names, and builds nothing', async (t) => {
  const repo = join(import.meta.dirname, '..', '..');
  const arm64 = join(repo, 'dist', `kurz_${VERSION}_arm64.deb`);
  const before = existsSync(arm64) ? statSync(arm64).mtimeMs : undefined;
  const refused = await run(process.execPath, [join(repo, 'scripts', 'deb.ts'), 'arm64', join(repo, 'dist', 'kurz')]);
  t.is(refused.code, 2);
  t.regex(refused.stderr, /dist\/kurz is not an arm64 executable \(it is amd64\)/);
  t.is(existsSync(arm64) ? statSync(arm64).mtimeMs : undefined, before, 'no arm64 package written or replaced');
});

/** The unit's `Key=` values in order, from the installed file. */
function unitValues(unit: string, key: string): string[] {
  return [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1] ?? '');
}

test.serial(
  'dpkg -i installs the executable, the unit, the conffile, the man page and the completions, makes the kurz user and enables the service',
  async (t) => {
    const install = await inRoot('dpkg', '-i', '/tmp/kurz.deb');
    t.is(install.code, 0, install.stdout + install.stderr);
    t.is((await inRoot('dpkg-query', '-W', '-f', '${Status} ${Version}', 'kurz')).stdout, `install ok installed ${VERSION}`);

    const mode = (path: string) => (statSync(at(path)).mode & 0o7777).toString(8);
    const owner = async (path: string) => (await inRoot('stat', '-c', '%U:%G', path)).stdout.trim();
    t.is(mode('usr/bin/kurz'), '755');
    t.is(await owner('/usr/bin/kurz'), 'root:root');
    t.is(mode('etc/kurz/kurz.env'), '600', 'the settings may hold secrets');
    t.is(await owner('/etc/kurz/kurz.env'), 'root:root');
    t.is(readFileSync(at('etc/kurz/kurz.env'), 'utf8'), readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'kurz.env'), 'utf8'));
    t.regex((await inRoot('dpkg-query', '-W', '-f', '${Conffiles}', 'kurz')).stdout, /^ \/etc\/kurz\/kurz\.env [0-9a-f]{32}$/m);
    for (const dir of ['/var/lib/kurz', '/var/cache/kurz']) {
      t.is(mode(dir.slice(1)), '700', dir);
      t.is(await owner(dir), 'kurz:kurz', dir);
    }

    const [user, , uid, gid, , home, shell] = (await inRoot('getent', 'passwd', 'kurz')).stdout.trim().split(':');
    t.is(user, 'kurz');
    t.true(Number(uid) > 0 && Number(uid) < 1000, `a system user: uid ${uid}`);
    t.is((await inRoot('getent', 'group', 'kurz')).stdout.split(':')[2], gid);
    t.is(home, '/var/lib/kurz');
    t.is(shell, '/usr/sbin/nologin');

    const unit = readFileSync(at('usr/lib/systemd/system/kurz.service'), 'utf8');
    t.deepEqual(unitValues(unit, 'ExecStart'), ['/usr/bin/kurz serve']);
    t.deepEqual(unitValues(unit, 'User'), ['kurz']);
    t.deepEqual(unitValues(unit, 'EnvironmentFile'), ['-/etc/kurz/kurz.env']);
    const shipped = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'kurz.service'), 'utf8');
    t.is(
      unit,
      shipped.slice(shipped.indexOf('[Unit]')).replace('/usr/local/bin/kurz', '/usr/bin/kurz'),
      "the README's unit, but for the path",
    );
    // Enabled as deb-systemd-helper does it (systemctl enable would): the service starts at boot. Not started here:
    // systemd is not running in the root (postinst starts it only where /run/systemd/system exists).
    const wants = at('etc/systemd/system/multi-user.target.wants/kurz.service');
    t.true(lstatSync(wants).isSymbolicLink());
    t.regex(readlinkSync(wants), /^(\/usr)?\/lib\/systemd\/system\/kurz\.service$/);

    t.is((await inRoot('man', '-w', '8', 'kurz')).stdout, '/usr/share/man/man8/kurz.8.gz\n', 'man finds it');
    const man = gunzipSync(readFileSync(at('usr/share/man/man8/kurz.8.gz'))).toString('utf8');
    t.regex(man, /^\.TH KURZ 8 /);
    t.true(man.includes('kurz create https://example.com/a/long/path \\-\\-alias docs'), 'the examples of the command table');
    t.true(man.includes('\\fBKURZ_PUBLIC_URL\\fR'), 'the settings of the option table');
    // The completions are what the installed executable prints: the same command table.
    for (const [shellName, path] of [
      ['bash', 'usr/share/bash-completion/completions/kurz'],
      ['zsh', 'usr/share/zsh/vendor-completions/_kurz'],
      ['fish', 'usr/share/fish/vendor_completions.d/kurz.fish'],
    ] as const) {
      const printed = await inRoot('/usr/bin/kurz', 'completion', shellName);
      t.is(printed.code, 0, printed.stderr);
      t.is(readFileSync(at(path), 'utf8'), printed.stdout, shellName);
    }
  },
);

test.serial("each shell of the root finds kurz's completion where the package put it", async (t) => {
  // bash-completion loads a command's file from its folder on first use.
  const bash = await inRoot('bash', '-c', 'source /usr/share/bash-completion/bash_completion && _completion_loader kurz; complete -p kurz');
  t.is(bash.stdout, 'complete -o filenames -F _kurz kurz\n', bash.stderr);
  // compinit reads the #compdef line of every file in $fpath, Debian's vendor-completions included.
  const zsh = await inRoot('zsh', '-f', '-c', 'autoload -Uz compinit && compinit -u -D && print -r -- $_comps[kurz]');
  t.is(zsh.stdout, '_kurz\n', zsh.stderr);
  // fish loads a command's completions from vendor_completions.d when it first completes it.
  const fish = await inRoot('env', 'HOME=/root', 'fish', '-c', "complete -C 'kurz keys '");
  t.regex(fish.stdout, /^create\t.*\nlist\t.*\nrevoke\t/, fish.stderr);
});

test.serial(
  'systemd-analyze verify accepts the installed unit (its Documentation=man:kurz(8) included), and refuses it with a missing executable',
  async (t) => {
    const verify = await inRoot('systemd-analyze', 'verify', '/usr/lib/systemd/system/kurz.service');
    t.is(verify.code, 0, verify.stderr);
    t.is(verify.stderr, '');
    // The check is not a formality: the same unit naming an executable that is not there fails it.
    const broken = readFileSync(at('usr/lib/systemd/system/kurz.service'), 'utf8').replace(
      'ExecStart=/usr/bin/kurz',
      'ExecStart=/usr/bin/kurz-gone',
    );
    writeFileSync(at('tmp/kurz-broken.service'), broken);
    const refused = await inRoot('systemd-analyze', 'verify', '/tmp/kurz-broken.service');
    t.not(refused.code, 0);
    t.regex(refused.stderr, /kurz-gone/);
  },
);

/**
 * Starts the installed kurz as its unit says (systemd cannot run as PID 1 here): as its User=, in its
 * WorkingDirectory=, with its Environment= lines and then its EnvironmentFile=, running its ExecStart=.
 */
async function startAsUnit(t: ExecutionContext) {
  const unit = readFileSync(at('usr/lib/systemd/system/kurz.service'), 'utf8');
  const env = unitValues(unit, 'Environment');
  for (const file of unitValues(unit, 'EnvironmentFile'))
    for (const line of readFileSync(at(file.replace(/^-/, '')), 'utf8').split('\n')) if (/^[A-Z_]+=/.test(line)) env.push(line);
  const [workdir] = unitValues(unit, 'WorkingDirectory');
  const [execStart] = unitValues(unit, 'ExecStart');
  t.deepEqual(unitValues(unit, 'User'), ['kurz']);
  const kurz = await watchServe(
    t,
    spawn('chroot', [root, ...asKurz(env, ['/bin/sh', '-c', `cd ${workdir} && exec ${execStart}`])], { stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  return { url: kurz.url, output: () => kurz.output().stdout + kurz.output().stderr, stop: kurz.stop };
}

test.serial(
  'the installed kurz runs as the kurz user with /etc/kurz/kurz.env, answers /healthz and redirects; its files are its own',
  async (t) => {
    // What an admin does: a setting in the conffile (any free port, so that the test never collides).
    appendFileSync(at('etc/kurz/kurz.env'), 'KURZ_PORT=0\n');
    const kurz = await startAsUnit(t);
    const health = await fetch(`${kurz.url}/healthz`);
    t.is(health.status, 200);
    t.like(await health.json(), { status: 'ok', database: 'sqlite' });

    // The CLI as the same user on the same database, while the server runs.
    const created = await inRoot(
      ...asKurz([], ['/usr/bin/kurz', '--db', '/var/lib/kurz/kurz.db', 'create', 'https://example.com/packaged', '--alias', 'deb']),
    );
    t.is(created.code, 0, created.stderr);
    t.regex(created.stdout, /\/deb\n$/);
    await waitFor(async () => (await fetch(`${kurz.url}/deb`, { redirect: 'manual' })).status === 302);
    t.is((await fetch(`${kurz.url}/deb`, { redirect: 'manual' })).headers.get('location'), 'https://example.com/packaged');
    t.is(await kurz.stop(), 0, kurz.output());

    const files = (await inRoot('stat', '-c', '%n %U %a', '/var/lib/kurz/kurz.db', '/var/lib/kurz/kurz-admin-password')).stdout;
    t.is(files, '/var/lib/kurz/kurz.db kurz 600\n/var/lib/kurz/kurz-admin-password kurz 600\n');
    t.true(existsSync(at('var/cache/kurz')), 'the SQLite addon is unpacked into KURZ_CACHE_DIR');
    t.regex((await inRoot('find', '/var/cache/kurz', '-name', 'better_sqlite3-*.node')).stdout, /better_sqlite3-[0-9a-f]+\.node/);
  },
);

test.serial(
  "the README's upgrade line: a backup as the kurz user, then the package over itself; the link and the enabled unit stay",
  async (t) => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const line = /\n(sudo -u kurz kurz [^\n]* backup [^\n]*) && sudo apt install \.\/kurz_NEW_amd64\.deb\n/.exec(readme)?.[1];
    t.truthy(line, 'the upgrade line is in the README');
    const backupArgs = (line ?? '').replace(/^sudo -u kurz kurz /, '').split(' ');
    const backup = await inRoot(...asKurz([], ['/usr/bin/kurz', ...backupArgs]));
    t.is(backup.code, 0, backup.stderr);
    const copy = backupArgs[backupArgs.indexOf('backup') + 1] ?? '';
    t.is((await inRoot('stat', '-c', '%U %a', copy)).stdout, 'kurz 600\n');
    const upgrade = await inRoot('dpkg', '-i', '/tmp/kurz.deb');
    t.is(upgrade.code, 0, upgrade.stderr);
    t.true(lstatSync(at('etc/systemd/system/multi-user.target.wants/kurz.service')).isSymbolicLink());
    const listed = await inRoot(...asKurz([], ['/usr/bin/kurz', '--db', copy, 'list']));
    t.regex(listed.stdout, /^deb .* https:\/\/example\.com\/packaged$/m, 'the copy holds the link');
  },
);

test.serial('dpkg -r keeps the database, the settings and the user; installing again finds them as they were', async (t) => {
  const remove = await inRoot('dpkg', '-r', 'kurz');
  t.is(remove.code, 0, remove.stderr);
  t.false(existsSync(at('usr/bin/kurz')));
  t.false(existsSync(at('usr/lib/systemd/system/kurz.service')));
  t.true(existsSync(at('var/lib/kurz/kurz.db')));
  t.regex(readFileSync(at('etc/kurz/kurz.env'), 'utf8'), /\nKURZ_PORT=0\n$/, "the admin's edit is kept");
  t.is((await inRoot('getent', 'passwd', 'kurz')).code, 0);
  t.regex((await inRoot('dpkg-query', '-W', '-f', '${Status}', 'kurz')).stdout, /deinstall ok config-files/);

  // An upgrade or a reinstall: the edited conffile stays (dpkg asks only when the package's copy changed too).
  const again = await inRoot('dpkg', '-i', '/tmp/kurz.deb');
  t.is(again.code, 0, again.stderr);
  t.regex(readFileSync(at('etc/kurz/kurz.env'), 'utf8'), /\nKURZ_PORT=0\n$/);
  const listed = await inRoot(...asKurz([], ['/usr/bin/kurz', '--db', '/var/lib/kurz/kurz.db', 'list']));
  t.is(listed.code, 0, listed.stderr);
  t.regex(listed.stdout, /^deb .* https:\/\/example\.com\/packaged$/m);
});

test.serial('dpkg -P removes the database, the settings, the service and the user', async (t) => {
  const purge = await inRoot('dpkg', '-P', 'kurz');
  t.is(purge.code, 0, purge.stderr);
  for (const path of [
    'usr/bin/kurz',
    'var/lib/kurz',
    'var/cache/kurz',
    'etc/kurz',
    'etc/systemd/system/multi-user.target.wants/kurz.service',
  ])
    t.false(existsSync(at(path)), path);
  t.is((await inRoot('getent', 'passwd', 'kurz')).code, 2, 'no kurz user');
  t.is((await inRoot('getent', 'group', 'kurz')).code, 2, 'no kurz group');
  t.is((await inRoot('dpkg-query', '-W', 'kurz')).code, 1, 'dpkg knows the package no more');
});

// The arm64 package (`make deb` builds it beside amd64's) in the same root, once amd64's is purged. The root is
// amd64, so the package's libraries (libc6:arm64, libstdc++6:arm64) are not in it: dpkg takes the foreign
// architecture and is told to install without them (--force-depends), and the installed executable is run by
// qemu-user with the machine's arm64 libraries (KURZ_ARM64_EMULATOR, empty on an arm64 machine). What this
// checks is the package: the same files, scripts, user and unit as amd64's, and an arm64 kurz in /usr/bin.
const ARM64_DEB = join(import.meta.dirname, '..', '..', 'dist', `kurz_${VERSION}_arm64.deb`);
const EMULATOR = (process.env['KURZ_ARM64_EMULATOR'] ?? '').split(' ').filter(Boolean);

test.serial("the arm64 package holds what amd64's does, installs its user and unit, and its kurz is an arm64 build", async (t) => {
  t.true(existsSync(ARM64_DEB), `${ARM64_DEB} is missing (make deb with dist/kurz-linux-arm64)`);
  /** Each entry's mode, owner and path (not its size or date). */
  const contents = async (deb: string) =>
    (await run('dpkg-deb', ['-c', deb])).stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [mode, owner, , , , ...path] = line.split(/\s+/);
        return `${mode} ${owner} ${path.join(' ')}`;
      });
  t.deepEqual(await contents(ARM64_DEB), await contents(DEB), 'the same paths, modes and owners');
  for (const script of ['postinst', 'prerm', 'postrm']) {
    const of = async (deb: string) => (await run('dpkg-deb', ['-I', deb, script])).stdout;
    t.is(await of(ARM64_DEB), await of(DEB), script);
  }
  const field = async (deb: string, name: string) => (await run('dpkg-deb', ['-f', deb, name])).stdout.trim();
  t.is(await field(ARM64_DEB, 'Architecture'), 'arm64');
  t.is(await field(ARM64_DEB, 'Depends'), await field(DEB, 'Depends'));

  writeFileSync(at('tmp/kurz-arm64.deb'), readFileSync(ARM64_DEB));
  t.is((await inRoot('dpkg', '--add-architecture', 'arm64')).code, 0);
  const install = await inRoot('dpkg', '-i', '--force-depends', '/tmp/kurz-arm64.deb');
  t.is(install.code, 0, install.stdout + install.stderr);
  t.is((await inRoot('dpkg-query', '-W', '-f', '${Architecture} ${Version}', 'kurz')).stdout, `arm64 ${VERSION}`);
  t.is((await inRoot('getent', 'passwd', 'kurz')).code, 0, 'the kurz user');
  t.true(lstatSync(at('etc/systemd/system/multi-user.target.wants/kurz.service')).isSymbolicLink(), 'the service enabled');
  const verify = await inRoot('systemd-analyze', 'verify', '/usr/lib/systemd/system/kurz.service');
  t.is(verify.code, 0, verify.stderr);

  const [command = '', ...args] = [...EMULATOR, at('usr/bin/kurz'), 'version', '--json'];
  const version = await run(command, args);
  t.is(version.code, 0, version.stderr);
  t.like(JSON.parse(version.stdout), { kurz: VERSION, arch: 'arm64' });

  const purge = await inRoot('dpkg', '-P', 'kurz');
  t.is(purge.code, 0, purge.stderr);
  t.false(existsSync(at('usr/bin/kurz')));
  t.is((await inRoot('getent', 'passwd', 'kurz')).code, 2, 'no kurz user');
});
