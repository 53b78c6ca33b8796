// Issue 23, files and secrets: what kurz writes to disk is its owner's alone, whatever the umask.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import type { ExecutionContext } from 'ava';
import { kurzScript, runCli, sqliteOnly, startServe, tempDir, waitFor } from '../helpers.ts';

/** A script that runs kurz (the bundle) under `umask 000`, for runCli's and startServe's `binary`. */
function underUmask000(t: ExecutionContext): string {
  const script = join(tempDir(t), 'kurz-umask-000');
  writeFileSync(script, `#!/bin/sh\numask 000\nexec '${process.execPath}' '${kurzScript()}' "$@"\n`);
  chmodSync(script, 0o755);
  return script;
}

function modeOf(path: string): string {
  return (statSync(path).mode & 0o777).toString(8).padStart(4, '0');
}

sqliteOnly(
  'under umask 000, serve creates the data folder 0700 and the database, its WAL and SHM 0600 (as make run does)',
  'the modes of the SQLite file',
  async (t) => {
    const binary = underUmask000(t);
    const cwd = tempDir(t);
    // make run: `node build/kurz.cjs serve` with the default db, ./data/kurz.db
    const kurz = await startServe(t, {}, { binary, cwd });
    const data = join(cwd, 'data');
    await waitFor(() => existsSync(join(data, 'kurz.db-wal')) && existsSync(join(data, 'kurz.db-shm')));
    t.is(modeOf(data), '0700');
    for (const file of ['kurz.db', 'kurz.db-wal', 'kurz.db-shm']) t.is(modeOf(join(data, file)), '0600', file);
    t.is(await kurz.stop(), 0);
  },
);

sqliteOnly('under umask 000, kurz backup writes its copy 0600', 'backups copy the SQLite file', async (t) => {
  const binary = underUmask000(t);
  const dir = tempDir(t);
  const env = { KURZ_DB: join(dir, 'kurz.db') };
  t.is((await runCli(['create', 'https://example.com/backed-up'], env, { binary })).code, 0);
  const copy = join(dir, 'copy.db');
  const backup = await runCli(['backup', copy], env, { binary });
  t.is(backup.code, 0, backup.stderr);
  t.is(modeOf(copy), '0600');
  t.deepEqual(
    readdirSync(dir).filter((f) => f.startsWith('copy')),
    ['copy.db'],
  );
});

sqliteOnly('under umask 000, scheduled backups go into a 0700 folder, each 0600', 'backups copy the SQLite file', async (t) => {
  const binary = underUmask000(t);
  const dir = tempDir(t);
  const backups = join(dir, 'backups');
  const kurz = await startServe(t, { KURZ_DB: join(dir, 'kurz.db'), KURZ_BACKUP_INTERVAL: '1s', KURZ_BACKUP_DIR: backups }, { binary });
  await waitFor(() => /info backup written/.test(kurz.output().stderr), 60_000);
  t.is(await kurz.stop(), 0);
  t.is(modeOf(backups), '0700');
  const files = readdirSync(backups);
  t.true(files.length > 0);
  for (const file of files) t.is(modeOf(join(backups, file)), '0600', file);
});

sqliteOnly(
  "a SQLite file that is not kurz's (rollback journal) is refused by list and serve and left byte for byte as it was",
  'a SQLite file',
  async (t) => {
    const dir = tempDir(t);
    const path = join(dir, 'other.db');
    const other = new Sqlite(path);
    other.pragma('journal_mode = DELETE');
    other.pragma('application_id = 1234');
    other.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
    other.close();
    const hash = () => createHash('sha256').update(readFileSync(path)).digest('hex');
    const before = hash();
    const refusal = `kurz: ${path} is a SQLite database that does not belong to kurz; refusing to use it\n`;

    const list = await runCli(['list', '--db', path], {});
    t.deepEqual(list, { code: 1, stdout: '', stderr: refusal });
    const serve = await runCli(['serve', '--db', path, '--port', '0'], {});
    t.is(serve.code, 1);
    t.true(serve.stderr.includes(`${path} is a SQLite database that does not belong to kurz; refusing to use it`), serve.stderr);

    t.is(hash(), before);
    t.deepEqual(readdirSync(dir), ['other.db'], 'no -wal, -shm or -journal left');
  },
);
