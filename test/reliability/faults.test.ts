import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ExecutionContext } from 'ava';
import Sqlite from 'better-sqlite3';
import { withServices } from '../../src/cli/wiring.ts';
import { loadConfig } from '../../src/config.ts';
import { BROWSER_ACCEPT, BROWSER_UA, cookiesOf, csrfOf, sqliteOnly, startServe, tempDir, waitFor } from '../helpers.ts';

// A full disk, a read-only file and another program's lock, on a real `kurz serve` (with its background
// writer) over a database on a file system the test makes: 503s saying why, redirects served meanwhile,
// /healthz unhealthy, recovery without a restart, and nothing stored that was refused or lost that was
// acknowledged.

const run = promisify(execFile);
const ADMIN_PASSWORD = 'correct horse battery staple';

/** Runs a command the test needs (mount, chattr…); rejects with its stderr. */
async function sh(file: string, ...args: string[]): Promise<string> {
  return (await run(file, args)).stdout;
}

/** What a test did to the database through the API: acknowledged links must be there, refused ones not. */
interface Ledger {
  acknowledged: Map<string, string>;
  refused: string[];
  redirects: number;
}

let servers = 0;

/** A `kurz serve` on the database `db`, with an API key and an admin password, and what the test asks of it. */
async function serveOn(t: ExecutionContext, db: string) {
  const config = loadConfig({ file: { db } });
  const server = ++servers;
  const key = await withServices(config, async (services) => {
    await services.access.setPassword(ADMIN_PASSWORD);
    return (await services.access.createKey(1, `faults ${server}`)).secret;
  });
  const serve = await startServe(t, { KURZ_DB: db });
  const ledger: Ledger = { acknowledged: new Map(), refused: [], redirects: 0 };
  const api = (method: string, path: string, body?: unknown) =>
    fetch(serve.url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  let made = 0;
  return {
    serve,
    ledger,
    api,
    /** Shortens a new URL (long, so that the disk fills sooner); records a 201 or a 503. */
    async create(): Promise<{ status: number; body: Record<string, unknown> }> {
      const url = `https://example.com/${server}/${++made}/${'x'.repeat(400)}`;
      const res = await api('POST', '/api/v1/links', { url });
      const body = (await res.json()) as Record<string, unknown>;
      if (res.status === 201) ledger.acknowledged.set(String(body['code']), url);
      if (res.status === 503) ledger.refused.push(url);
      return { status: res.status, body };
    },
    /** Follows a short link as a browser; counts the visit it makes. */
    async follow(code: string): Promise<Response> {
      const res = await fetch(`${serve.url}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
      if (res.status === 302) ledger.redirects++;
      return res;
    },
    health: async () => {
      const res = await fetch(`${serve.url}/healthz`);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    /** The status of a login through the form, as a browser makes it. */
    async login(): Promise<number> {
      const page = await fetch(`${serve.url}/login`, { headers: { accept: BROWSER_ACCEPT } });
      const form = new URLSearchParams({ _csrf: csrfOf(await page.text()), user: 'admin', password: ADMIN_PASSWORD, next: '/' });
      const res = await fetch(`${serve.url}/login`, {
        method: 'POST',
        headers: { cookie: cookiesOf(page), 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER_ACCEPT },
        body: form,
        redirect: 'manual',
      });
      return res.status;
    },
    /** Lines of the server's log (its stderr and its background writer's) that contain `text`. */
    logged: (text: string) =>
      serve
        .output()
        .stderr.split('\n')
        .filter((line) => line.includes(text)),
  };
}

type Kurz = Awaited<ReturnType<typeof serveOn>>;

interface Codes {
  cached: string;
  uncached: string;
  /** A link with a visit limit: following it writes (the visit is claimed first). */
  limited: string;
}

/** Links made before the fault, one of them followed twice so that the redirect cache holds it. */
async function before(t: ExecutionContext, kurz: Kurz): Promise<Codes> {
  for (let i = 0; i < 5; i++) t.is((await kurz.create()).status, 201);
  const [cached = '', uncached = ''] = kurz.ledger.acknowledged.keys();
  for (let i = 0; i < 2; i++) t.is((await kurz.follow(cached)).status, 302);
  const url = 'https://example.com/limited';
  const limited = (await (await kurz.api('POST', '/api/v1/links', { url, maxVisits: 100 })).json()) as { code: string };
  kurz.ledger.acknowledged.set(limited.code, url);
  t.deepEqual(await kurz.health(), { status: 200, body: { status: 'ok', database: 'sqlite' } });
  return { cached, uncached, limited: limited.code };
}

/** What must hold while the fault lasts: writes refused with `detail`, reads and redirects served, /healthz 503. */
async function duringFault(t: ExecutionContext, kurz: Kurz, codes: Codes, problem: string, detail: string) {
  const refused = await kurz.create();
  t.is(refused.status, 503);
  t.like(refused.body, { code: 'unavailable', detail });
  const [code = ''] = kurz.ledger.acknowledged.keys();
  const edit = await kurz.api('PATCH', `/api/v1/links/${code}`, { url: 'https://example.com/edited' });
  t.is(edit.status, 503, 'an edit is refused');
  t.like(await edit.json(), { code: 'unavailable', detail });
  t.is(await kurz.login(), 503, 'a login cannot store its session');
  for (const c of [codes.cached, codes.uncached, codes.cached]) {
    const res = await kurz.follow(c);
    t.is(res.status, 302, `/${c} is served`);
    t.is(res.headers.get('location'), kurz.ledger.acknowledged.get(c) ?? null);
  }
  t.is((await kurz.follow(codes.limited)).status, 503, 'a link with a visit limit cannot count its visit');
  t.is((await kurz.api('GET', '/api/v1/links?limit=3')).status, 200, 'reads are served');
  t.deepEqual(await kurz.health(), { status: 503, body: { status: 'unhealthy', database: 'sqlite', problem } });
}

/** Once the cause is gone: healthy again by itself, and writes succeed, without a restart. */
async function afterFault(t: ExecutionContext, kurz: Kurz, started: number): Promise<void> {
  await waitFor(async () => (await kurz.health()).status === 200, 20_000);
  t.log(`healthy again ${((Date.now() - started) / 1000).toFixed(1)} s after the cause was removed`);
  t.is((await kurz.create()).status, 201);
  const [code = ''] = kurz.ledger.acknowledged.keys();
  t.is((await kurz.follow(code)).status, 302);
  t.is(kurz.logged('the database recovered').filter((l) => l.includes('process=server')).length, 1, 'the recovery is logged once');
}

/**
 * After a clean stop: the file is intact, every acknowledged link is there with its URL, no refused one is,
 * and every visit of the redirects answered was written, the ones made during the fault too.
 */
async function checkDatabase(t: ExecutionContext, kurz: Kurz, db: string): Promise<void> {
  t.is(await kurz.serve.stop(), 0);
  const stderr = kurz.serve.output().stderr;
  t.notRegex(stderr, /request failed/, 'no 500');
  t.notRegex(stderr, /background process stopped/, 'the background writer lived through it');
  checkFile(t, kurz.ledger, db, true);
}

/** The file is intact, every acknowledged link is there, no refused one is; and every visit, if `visits`. */
function checkFile(t: ExecutionContext, ledger: Ledger, db: string, visits: boolean): void {
  const kurz = { ledger };
  const file = new Sqlite(db, { readonly: true });
  try {
    t.is(file.pragma('integrity_check', { simple: true }), 'ok');
    const urlOf = file.prepare<[string], string>('SELECT url FROM links WHERE code = ?').pluck();
    const missing = [...kurz.ledger.acknowledged].filter(([code, url]) => urlOf.get(code) !== url);
    t.deepEqual(missing, [], 'every acknowledged link is stored as acknowledged');
    const byUrl = file.prepare<[string], number>('SELECT count(*) FROM links WHERE url = ?').pluck();
    t.deepEqual(
      kurz.ledger.refused.filter((url) => byUrl.get(url) !== 0),
      [],
      'no refused link is stored',
    );
    const written = file.prepare<[], number>('SELECT count(*) FROM visits').pluck().get() ?? 0;
    if (visits) t.is(written, kurz.ledger.redirects, 'every visit is written, late');
    else t.true(written <= kurz.ledger.redirects, 'no visit is written twice');
    t.log(
      `acknowledged ${kurz.ledger.acknowledged.size} links, refused ${kurz.ledger.refused.length}, ` +
        `visits ${written} of ${kurz.ledger.redirects} redirects`,
    );
  } finally {
    file.close();
  }
}

/** The lines the server logged when writes began to fail: once, with the problem. */
function checkLoggedOnce(t: ExecutionContext, kurz: Kurz, problem: string): void {
  const lines = kurz.logged('the database cannot be written').filter((l) => l.includes('process=server'));
  t.is(lines.length, 1, `logged once:\n${lines.join('\n')}`);
  t.regex(lines[0] ?? '', new RegExp(`problem="?${problem}"? `));
}

/** Mounts a file system of `size` at a new folder under `dir`; unmounted when the test ends. */
async function mounted(t: ExecutionContext, dir: string, args: string[]): Promise<string> {
  const at = join(dir, 'fs');
  mkdirSync(at);
  await sh('mount', ...args, at);
  // Registered before the server starts, so it runs after the server has stopped and let go of the files.
  t.teardown(async () => {
    await sh('umount', at).catch(() => sh('umount', '-l', at));
  });
  return at;
}

/**
 * A 32 MiB ext4 file system in a file (`fs.img`), mounted with `options` on `fs` beside it; undefined (the
 * test failed, naming why) where it cannot be made: the test needs root.
 */
async function ext4(t: ExecutionContext, options: string): Promise<string | undefined> {
  const dir = tempDir(t);
  const image = join(dir, 'fs.img');
  try {
    await sh('truncate', '-s', '32M', image);
    await sh('mkfs.ext4', '-q', '-F', image);
    return await mounted(t, dir, ['-o', options, image]);
  } catch (err) {
    t.fail(`cannot make and mount an ext4 file system (${(err as Error).message.trim()}); this test needs root`);
    return undefined;
  }
}

/** Writes a file until the file system is full; returns its size. */
function fill(path: string): number {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  let size = 0;
  try {
    for (;;) size += writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  // The last blocks of a file system, smaller than a chunk.
  const tail = openSync(`${path}-tail`, 'w');
  try {
    for (;;) size += writeSync(tail, Buffer.alloc(512, 1));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(tail);
  }
  return size;
}

sqliteOnly('a full disk: writes answer 503, redirects go on, and kurz recovers when space is freed', 'a SQLite file', async (t) => {
  const dir = tempDir(t);
  // A tmpfs of 8 MiB, filled; where mounting is not allowed, a file size limit on the server's processes.
  let at: string | undefined;
  try {
    at = await mounted(t, dir, ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs']);
    t.log('file system: an 8 MiB tmpfs, filled by a file');
  } catch (err) {
    t.log(`cannot mount a tmpfs (${(err as Error).message.split('\n')[0]}): a file size limit instead (prlimit --fsize=64KiB)`);
  }
  const db = join(at ?? dir, 'kurz.db');
  const kurz = await serveOn(t, db);
  const codes = await before(t, kurz);

  // SQLite reports a write beyond the size limit (EFBIG) as an I/O error, and nothing else tells.
  const { problem, detail } = at
    ? { problem: 'disk full', detail: 'the database cannot be written: the disk is full; try again later' }
    : { problem: 'I/O error', detail: 'the database cannot be written: the disk reported an I/O error; try again later' };
  const filler = join(at ?? dir, 'filler');
  const processes = [String(kurz.serve.child.pid), ...(await sh('ps', '-o', 'pid=', '--ppid', String(kurz.serve.child.pid))).split(/\s+/)];
  const limit = (size: string) =>
    Promise.all(processes.filter(Boolean).map((pid) => sh('prlimit', '--pid', pid, `--fsize=${size}:unlimited`)));
  if (at) t.log(`filled with ${(fill(filler) / 2 ** 20).toFixed(1)} MiB`);
  else await limit('65536');
  // Writes go on while the WAL has room left from before: the first one that needs more fails.
  let attempts = 0;
  let first = await kurz.create();
  while (first.status === 201 && ++attempts < 500) first = await kurz.create();
  t.is(first.status, 503, 'a creation is refused within 500');
  t.log(`the first refusal came after ${attempts} creations on the full disk`);
  t.like(first.body, { code: 'unavailable', detail });
  await duringFault(t, kurz, codes, problem, detail);
  checkLoggedOnce(t, kurz, problem);

  const freed = Date.now();
  if (at) {
    rmSync(filler);
    rmSync(`${filler}-tail`);
  } else await limit('unlimited');
  await afterFault(t, kurz, freed);
  await checkDatabase(t, kurz, db);
});

sqliteOnly(
  'a read-only database file: writes answer 503 "read-only", redirects go on, and kurz recovers when it is writable',
  'a SQLite file',
  async (t) => {
    // Neither chmod (root writes anyway, and an open file stays writable) nor `mount -o remount,ro` (refused
    // while a file is open for writing) makes an open database read-only; the immutable attribute does, at
    // once, for root too. It needs a file system that has it: ext4, in a file.
    const at = await ext4(t, 'loop');
    if (at === undefined) return;
    t.log('file system: a 32 MiB ext4 in a file; the database and its WAL made immutable (chattr +i)');
    const db = join(at, 'kurz.db');
    const kurz = await serveOn(t, db);
    const codes = await before(t, kurz);
    const files = [db, `${db}-wal`];
    t.teardown(() => sh('chattr', '-i', ...files).catch(() => ''));

    await sh('chattr', '+i', ...files);
    const detail = 'the database cannot be written: its file is read-only; try again later';
    await duringFault(t, kurz, codes, 'read-only', detail);
    checkLoggedOnce(t, kurz, 'read-only');

    await sh('chattr', '-i', ...files);
    await afterFault(t, kurz, Date.now());
    await checkDatabase(t, kurz, db);
  },
);

/**
 * What an administrator does after ext4 made its file system read-only: e2fsck on the unmounted image, then
 * mount it again, read-write. Should the kernel mount it read-only all the same, the repair is done again
 * (at most three times), with what the kernel said logged.
 */
async function repair(t: ExecutionContext, image: string, at: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    // The loop device lets go of the image a moment after the unmount; mount reuses a loop device already
    // bound to the file, so a mount before that would take back the device that is being detached.
    await waitFor(async () => (await sh('losetup', '-j', image)).trim() === '');
    await run('e2fsck', ['-f', '-y', image]).catch((err: { code?: number }) => {
      // 1: errors corrected.
      if (err.code !== 1) throw err;
    });
    await sh('mount', '-o', 'loop,rw', image, at);
    const options = (await sh('findmnt', '-n', '-o', 'OPTIONS', at)).trim();
    if (options.startsWith('rw,')) return;
    const kernel = (await sh('dmesg').catch(() => '')).trim().split('\n').slice(-8).join('\n');
    if (attempt === 3) throw new Error(`the repaired file system is mounted ${options}; the kernel said:\n${kernel}`);
    t.log(`the repaired file system came up ${options}; repairing again. The kernel said:\n${kernel}`);
    await sh('umount', at);
  }
}

sqliteOnly(
  'a file system the kernel made read-only after a disk error: 503 "read-only" until a restart, and nothing acknowledged lost',
  'a SQLite file',
  async (t) => {
    // What ext4 does with errors=remount-ro when the disk fails: no program can make it writable again while
    // it holds files open on it, so kurz stops, the file system is repaired and mounted again, and kurz starts.
    const at = await ext4(t, 'loop,errors=remount-ro');
    if (at === undefined) return;
    const image = join(at, '..', 'fs.img');
    const device = (await sh('findmnt', '-n', '-o', 'SOURCE', at)).trim().replace('/dev/', '');
    t.log(`file system: a 32 MiB ext4 in a file (${device}), errors=remount-ro; an error triggered through /sys/fs/ext4`);
    const db = join(at, 'kurz.db');
    const first = await serveOn(t, db);
    const codes = await before(t, first);

    writeFileSync(`/sys/fs/ext4/${device}/trigger_fs_error`, '1');
    const detail = 'the database cannot be written: its file is read-only; try again later';
    await duringFault(t, first, codes, 'read-only', detail);
    checkLoggedOnce(t, first, 'read-only');
    t.is(await first.serve.stop(), 0, 'kurz stops cleanly on the read-only file system');
    t.notRegex(first.serve.output().stderr, /request failed/, 'no 500');
    const lost = first.logged('they are lost');
    t.is(lost.length, 1, 'the visits that could not be written are said to be lost');
    t.log(lost[0]?.replace(/^\S+ /, ''));

    await sh('umount', at);
    await repair(t, image, at);
    checkFile(t, first.ledger, db, false);

    const second = await serveOn(t, db);
    t.deepEqual(await second.health(), { status: 200, body: { status: 'ok', database: 'sqlite' } });
    t.is((await second.create()).status, 201);
    for (const [code, url] of first.ledger.acknowledged) t.is((await second.follow(code)).headers.get('location'), url);
    await checkDatabase(t, second, db);
  },
);

/** Another program holding the database's write lock (BEGIN IMMEDIATE) until `release`. */
async function lockHolder(t: ExecutionContext, db: string): Promise<{ release(): Promise<void> }> {
  const script =
    "const db = new (require('better-sqlite3'))(process.argv[1]); db.exec('BEGIN IMMEDIATE'); console.log('locked'); " +
    "process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });";
  const child: ChildProcess = spawn(process.execPath, ['-e', script, db], { cwd: join(import.meta.dirname, '..', '..'), stdio: 'pipe' });
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  if (line.toString().trim() !== 'locked') throw new Error(`the lock holder said ${line.toString()}`);
  return {
    async release() {
      child.stdin!.write('release\n');
      await once(child, 'exit');
    },
  };
}

sqliteOnly(
  'another program holding the lock: a short hold delays a write, a long one answers 503 "locked by another program"; then kurz recovers',
  'the lock is SQLite’s',
  async (t) => {
    const db = join(tempDir(t), 'kurz.db');
    const kurz = await serveOn(t, db);
    const codes = await before(t, kurz);
    t.log('the lock: BEGIN IMMEDIATE in another process (node with better-sqlite3)');

    const brief = await lockHolder(t, db);
    const delayed = kurz.create();
    t.is((await kurz.follow(codes.cached)).status, 302, 'redirects go on while a creation waits');
    await brief.release();
    t.is((await delayed).status, 201, 'a short hold only delays the creation');
    t.is((await kurz.health()).status, 200);
    t.deepEqual(kurz.logged('the database cannot be written'), []);

    const long = await lockHolder(t, db);
    const written = new Sqlite(db, { readonly: true });
    t.teardown(() => written.close());
    const visits = written.prepare<[], number>('SELECT count(*) FROM visits').pluck();
    let settled = false;
    const waiting = kurz.create().finally(() => (settled = true));
    let served = 0;
    while (!settled) {
      t.is((await kurz.follow(codes.cached)).status, 302);
      served++;
    }
    t.log(`${served} redirects answered while a creation waited for the lock`);
    t.like((await waiting).body, { code: 'unavailable', detail: 'the database is locked by another program; try again in a moment' });
    await duringFault(t, kurz, codes, 'locked by another program', 'the database is locked by another program; try again in a moment');
    checkLoggedOnce(t, kurz, 'locked by another program');
    const writer = kurz.logged('process="background writer"');
    t.is(writer.filter((l) => l.includes('the database cannot be written')).length, 1, 'the background writer logs its own fault once');
    t.is(kurz.logged('could not write visits').length, 1);
    t.true((visits.get() ?? 0) < kurz.ledger.redirects, 'the visits of the redirects made meanwhile wait in memory');

    const released = Date.now();
    await long.release();
    await afterFault(t, kurz, released);
    await checkDatabase(t, kurz, db);
  },
);
