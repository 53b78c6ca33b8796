import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import test, { type ExecutionContext } from 'ava';
import { APPLICATION_ID } from '../../src/store/sqlite/database.ts';
import { backend, freshDatabase, runCli, sqliteOnly, startServe, tempDir, waitFor } from '../helpers.ts';
import { createThrough, freshRequest } from '../support/fresh-connection.ts';

const NAME = /^kurz-(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d\.\d{3}Z)\.db$/;

/** When the backup named `name` began (its name says, in UTC). */
function startOf(name: string): number {
  const m = NAME.exec(name);
  if (!m) throw new Error(`${name} is not a scheduled backup's name`);
  return Date.parse(`${m[1]}:${m[2]}:${m[3]}`);
}

/** The files the log says were written, in order. */
function written(stderr: string): string[] {
  return [...stderr.matchAll(/info backup written file=(\S+) pages=\d+ ms=\d+/g)].map((m) => m[1] ?? '');
}

/** `kurz serve` on a fresh SQLite file, backing up every second into a folder of its own, and an API key. */
async function backingUp(t: ExecutionContext, extra: Record<string, string> = {}) {
  const database = await freshDatabase(t);
  const dir = join(tempDir(t), 'backups');
  const env = { ...database.env, KURZ_BACKUP_INTERVAL: '1s', KURZ_BACKUP_DIR: dir, ...extra };
  const made = await runCli(['keys', 'create', '--name', 'backups', '--json'], env);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  return { env, dir, key, kurz: await startServe(t, env) };
}

sqliteOnly(
  'the server backs up every interval and keeps the newest backupKeep, each a whole kurz database of the links before it',
  'backups copy the SQLite file',
  async (t) => {
    const { dir, key, kurz } = await backingUp(t, { KURZ_BACKUP_KEEP: '2' });
    // Links created without pause while the backups run, each with the time its 201 arrived.
    const acknowledged: Array<{ code: string; url: string; at: number }> = [];
    let creating = true;
    const creation = (async () => {
      for (let i = 0; creating; i++) {
        const url = `https://example.com/scheduled/${i}`;
        acknowledged.push({ code: await createThrough(kurz.url, key, url), url, at: Date.now() });
      }
    })();
    try {
      await waitFor(() => written(kurz.output().stderr).length >= 4, 120_000);
    } finally {
      creating = false;
      await creation;
    }
    t.is(await kurz.stop(), 0);

    const log = written(kurz.output().stderr);
    t.log(`${log.length} backups written, ${acknowledged.length} links created meanwhile`);
    const files = readdirSync(dir).sort();
    t.deepEqual(
      files,
      log.slice(-2).map((file) => file.slice(dir.length + 1)),
      'the newest two are kept, nothing else',
    );
    for (const [made, removed] of [
      [2, 0],
      [3, 1],
    ] as const) {
      t.regex(kurz.output().stderr, new RegExp(`backup written file=${log[made]} .*removed=${log[removed]!.slice(dir.length + 1)}\n`));
    }
    for (const name of files) {
      const copy = new Sqlite(join(dir, name), { readonly: true });
      t.teardown(() => copy.close());
      t.is(copy.pragma('integrity_check', { simple: true }), 'ok', name);
      t.is(copy.pragma('application_id', { simple: true }), APPLICATION_ID, name);
      const links = new Map(
        copy
          .prepare<[], { code: string; url: string }>('SELECT code, url FROM links')
          .all()
          .map((r) => [r.code, r.url]),
      );
      const before = acknowledged.filter((l) => l.at < startOf(name));
      t.deepEqual(
        before.filter((l) => links.get(l.code) !== l.url),
        [],
        `${name} holds the ${before.length} links acknowledged before it began`,
      );
    }
    const checked = await runCli(['check', join(dir, files[0]!)], {});
    t.is(checked.code, 0, checked.stdout);
  },
);

sqliteOnly('with --workers 2 only the primary backs up', 'backups copy the SQLite file', async (t) => {
  const { kurz } = await backingUp(t, { KURZ_WORKERS: '2' });
  await waitFor(() => written(kurz.output().stderr).length >= 3, 120_000);
  t.is(await kurz.stop(), 0);
  const starts = written(kurz.output().stderr).map((file) => startOf(file.slice(file.lastIndexOf('/') + 1)));
  const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
  t.log(`gaps between backups: ${gaps.join(', ')} ms`);
  t.true(
    gaps.every((gap) => gap >= 1000),
    'one backup a second, not one per process',
  );
});

sqliteOnly(
  'a backup that fails is logged, kurz goes on serving, and the next one succeeds once the cause is gone',
  'backups copy the SQLite file',
  async (t) => {
    const root = tempDir(t);
    // The folder's parent is a file: the folder cannot be made.
    writeFileSync(join(root, 'in-the-way'), '');
    const dir = join(root, 'in-the-way', 'backups');
    const { key, kurz } = await backingUp(t, { KURZ_BACKUP_DIR: dir });
    await waitFor(() => /error scheduled backup failed; kurz goes on serving/.test(kurz.output().stderr), 120_000);
    t.regex(
      kurz.output().stderr,
      /error scheduled backup failed; kurz goes on serving file=\S+ error="ENOTDIR: not a directory, mkdir '[^']+in-the-way\/backups'"/,
    );
    const code = await createThrough(kurz.url, key, 'https://example.com/still-serving');
    t.is((await freshRequest(`${kurz.url}/${code}`)).status, 302);

    rmSync(join(root, 'in-the-way'));
    mkdirSync(join(root, 'in-the-way'));
    await waitFor(() => written(kurz.output().stderr).length >= 1, 120_000);
    t.is(await kurz.stop(), 0);
    t.is(readdirSync(dir).length, 1);
  },
);

(backend === 'postgres' ? test : test.skip)('on PostgreSQL, scheduled backups stop the start and name pg_dump', async (t) => {
  const database = await freshDatabase(t);
  const result = await runCli(['serve'], { ...database.env, KURZ_PORT: '0', KURZ_BACKUP_INTERVAL: '6h' });
  t.deepEqual(result, {
    code: 2,
    stdout: '',
    stderr:
      'kurz: invalid configuration: backupInterval: scheduled backups copy the SQLite file; on PostgreSQL, back up with pg_dump (see the README)\n',
  });
});
