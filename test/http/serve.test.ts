import { existsSync, statSync } from 'node:fs';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import {
  backend,
  BROWSER_UA,
  createKeyIn,
  freshDatabase,
  runCli,
  sqliteOnly,
  startServe,
  waitFor,
  type ServeProcess,
  type TestDatabase,
} from '../helpers.ts';

/** API keys made for each served database, by the server's URL. */
const keys = new Map<string, string>();

async function createLink(base: string, body: object): Promise<string> {
  const key = keys.get(base);
  if (!key) throw new Error(`no API key for ${base}: call serveWithKey`);
  const res = await fetch(`${base}/api/v1/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  return ((await res.json()) as { code: string }).code;
}

/** `kurz serve` on `database`, with an API key made in it first for `createLink`; `env` adds settings. */
async function serveWithKey(
  t: ExecutionContext,
  database: TestDatabase,
  env: Record<string, string> = {},
  options: Parameters<typeof startServe>[2] = {},
): Promise<ServeProcess> {
  const key = await createKeyIn(database);
  const kurz = await startServe(t, { ...database.env, ...env }, options);
  keys.set(kurz.url, key);
  return kurz;
}

const backgroundPid = (stderr: string): number => Number(/background process started pid=(\d+)/.exec(stderr)?.[1]);

/** Every background process the server started, in order. */
const backgroundPids = (stderr: string): number[] => [...stderr.matchAll(/background process started pid=(\d+)/g)].map((m) => Number(m[1]));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function visitsOf(db: TestDatabase, code: string): Promise<number | undefined> {
  const rows = await db.sql<{ n: number }>(
    'SELECT coalesce(v.count, 0) AS n FROM links LEFT JOIN link_visits AS v ON v.link_id = links.id WHERE code = ?',
    code,
  );
  return rows[0]?.n;
}

test('kurz serve listens, and on SIGTERM stops accepting, flushes buffered visits and exits 0', async (t) => {
  const db = await freshDatabase(t, { file: 'data/kurz.db' });
  const kurz = await serveWithKey(t, db, { KURZ_VISIT_FLUSH_INTERVAL: '60s', KURZ_PUBLIC_URL: 'https://s.example' });
  const code = await createLink(kurz.url, { url: 'https://example.com/shutdown' });
  for (let i = 0; i < 4; i++)
    t.is((await fetch(`${kurz.url}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } })).status, 302);

  t.is(await kurz.stop(), 0);
  t.regex(kurz.output().stderr, /stopped; visits flushed and database closed/);
  t.is(await visitsOf(db, code), 4);
});

test('kurz serve refuses an invalid setting, naming the key, with exit code 2', async (t) => {
  const result = await runCli(['serve'], { ...(await freshDatabase(t)).env, KURZ_CODE_LENGTH: '12' });
  t.is(result.code, 2);
  t.is(
    result.stderr,
    'kurz: invalid configuration: codeLength (environment variable KURZ_CODE_LENGTH): must be between 4 and 10, got 12\n',
  );
});

test('kurz serve names the address it cannot listen on', async (t) => {
  const first = await startServe(t, (await freshDatabase(t)).env);
  const port = new URL(first.url).port;
  const second = await freshDatabase(t);
  const result = await runCli(['serve', '--port', port], second.env);
  t.is(result.code, 1);
  t.regex(result.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE`));
  // A PostgreSQL database is made by its administrator, not by kurz: there is no new one to leave behind.
  if (backend === 'sqlite') t.false(existsSync(second.file), 'the failed start left no new database behind');
});

test('flags override the environment', async (t) => {
  const kurz = await serveWithKey(
    t,
    await freshDatabase(t),
    { KURZ_PUBLIC_URL: 'https://env.example' },
    { args: ['--public-url', 'https://flag.example'] },
  );
  const code = await createLink(kurz.url, { url: 'https://example.com/' });
  const res = await fetch(`${kurz.url}/api/v1/links/${code}`, { headers: { authorization: `Bearer ${keys.get(kurz.url)}` } });
  t.regex(((await res.json()) as { shortUrl: string }).shortUrl, /^https:\/\/flag\.example\//);
  kurz.child.kill('SIGINT');
  t.is((await kurz.exited)[0], 0);
});

test('a link deleted from the CLI while kurz serves stops redirecting: 410 once the server polls the change log', async (t) => {
  const db = await freshDatabase(t);
  const kurz = await serveWithKey(t, db);
  const code = await createLink(kurz.url, { url: 'https://example.com/doomed' });
  t.is((await fetch(`${kurz.url}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } })).status, 302, 'now cached');
  const deleted = await runCli(['delete', code], db.env);
  t.is(deleted.code, 0);
  t.is(deleted.stdout, `deleted ${code}\n`);
  let status = 0;
  await waitFor(
    async () =>
      (status = (await fetch(`${kurz.url}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } })).status) === 410,
  );
  t.is(status, 410);
});

sqliteOnly(
  'kurz serve checkpoints the WAL in a child process, which ends with the server',
  'the WAL and its background writer',
  async (t) => {
    const database = await freshDatabase(t);
    const db = database.file;
    const kurz = await serveWithKey(t, database);
    const pid = backgroundPid(kurz.output().stderr);
    t.true(pid > 0);
    const before = statSync(db).size;
    // Long targets, so that the links need pages the file does not have yet.
    for (let i = 0; i < 20; i++) await createLink(kurz.url, { url: `https://example.com/wal/${i}/${'x'.repeat(4000)}` });
    // New pages reach the database file only through a checkpoint; the server itself no longer runs them.
    await waitFor(() => statSync(db).size > before);
    t.true(statSync(db).size > before);
    t.is(await kurz.stop(), 0);
    await waitFor(() => !alive(pid));
    t.false(alive(pid));
  },
);

test('while kurz serves, the visit counts are written (by its background process on SQLite)', async (t) => {
  const db = await freshDatabase(t);
  const kurz = await serveWithKey(t, db, { KURZ_VISIT_FLUSH_INTERVAL: '100ms' });
  const code = await createLink(kurz.url, { url: 'https://example.com/counted' });
  for (let i = 0; i < 3; i++)
    t.is((await fetch(`${kurz.url}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } })).status, 302);
  await waitFor(async () => (await visitsOf(db, code)) === 3);
  t.is(await visitsOf(db, code), 3);
  t.is(await kurz.stop(), 0);
});

sqliteOnly(
  'if the background process dies, kurz starts another and hands it the visits the dead one had not written',
  'its background writer',
  async (t) => {
    const db = await freshDatabase(t);
    const kurz = await serveWithKey(t, db, { KURZ_VISIT_FLUSH_INTERVAL: '100ms' });
    const code = await createLink(kurz.url, { url: 'https://example.com/orphan' });
    const first = backgroundPid(kurz.output().stderr);
    // Stopped, it takes no visit further than its pipe or its memory: whatever it was handed, it had not written.
    process.kill(first, 'SIGSTOP');
    for (let i = 0; i < 5; i++)
      t.is((await fetch(`${kurz.url}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } })).status, 302);
    process.kill(first, 'SIGKILL');
    await waitFor(() => backgroundPids(kurz.output().stderr).length === 2, 60_000);
    t.regex(kurz.output().stderr, /error the background process stopped; starting another code=null signal=SIGKILL unwritten=\d+ inMs=0/);
    await waitFor(async () => (await visitsOf(db, code)) === 5, 60_000);
    t.is(await kurz.stop(), 0);
    t.is(await visitsOf(db, code), 5, 'each visit once');
    t.deepEqual(await db.sql('SELECT * FROM visit_handovers'), [], 'the receipts are gone with their writers');
  },
);

test('a background process that wrote every visit but hangs at its close is stopped after 10 s, and the stop says nothing was lost', async (t) => {
  const db = await freshDatabase(t);
  const kurz = await serveWithKey(t, db, { KURZ_VISIT_FLUSH_INTERVAL: '100ms' });
  const code = await createLink(kurz.url, { url: 'https://example.com/written' });
  t.is((await fetch(`${kurz.url}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } })).status, 302);
  await waitFor(async () => (await visitsOf(db, code)) === 1);
  // Stopped after it wrote the visit: it can neither report nor finish.
  process.kill(backgroundPid(kurz.output().stderr), 'SIGSTOP');
  t.is(await kurz.stop(), 0);
  const stderr = kurz.output().stderr;
  t.regex(stderr, /warn the background process wrote every visit but did not exit within 10 s; stopped it pid=\d+\n/);
  t.notRegex(stderr, /^\S+ error /m);
  t.is(await visitsOf(db, code), 1);
});

test('a background process that hangs holding visits is stopped after 10 s, and the stop names the visits lost', async (t) => {
  const db = await freshDatabase(t);
  const kurz = await serveWithKey(t, db, { KURZ_VISIT_FLUSH_INTERVAL: '100ms' });
  const code = await createLink(kurz.url, { url: 'https://example.com/held' });
  process.kill(backgroundPid(kurz.output().stderr), 'SIGSTOP');
  t.is((await fetch(`${kurz.url}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } })).status, 302);
  t.is(await kurz.stop(), 0);
  t.regex(kurz.output().stderr, /error the background process stopped making progress; its last visits are lost pid=\d+ visits=1\n/);
  t.is(await visitsOf(db, code), 0);
});

sqliteOnly(
  'if background processes keep dying before writing anything, kurz counts visits itself again',
  'its background writer',
  async (t) => {
    const db = await freshDatabase(t);
    const kurz = await serveWithKey(t, db, { KURZ_VISIT_FLUSH_INTERVAL: '100ms' });
    const code = await createLink(kurz.url, { url: 'https://example.com/orphan' });
    // Started again at once, after 1 s and after 5 s; the fourth death is one too many.
    for (let killed = 0; killed < 4; killed++) {
      await waitFor(() => backgroundPids(kurz.output().stderr).length === killed + 1, 60_000);
      process.kill(backgroundPids(kurz.output().stderr)[killed]!, 'SIGKILL');
    }
    await waitFor(() => /the background process keeps stopping/.test(kurz.output().stderr), 60_000);
    t.regex(kurz.output().stderr, /error the background process keeps stopping; writing visits and checkpointing inline again/);
    for (let i = 0; i < 5; i++)
      t.is((await fetch(`${kurz.url}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } })).status, 302);
    // Written while the server runs, by the server.
    await waitFor(async () => (await visitsOf(db, code)) === 5);
    t.is(await kurz.stop(), 0);
    t.is(await visitsOf(db, code), 5);
    t.is(backgroundPids(kurz.output().stderr).length, 4, 'no fifth process');
  },
);
