import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import test from 'ava';
import { backupDatabase } from '../../src/store/sqlite/backup.ts';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { tempDir } from '../helpers.ts';

/** Rows of 1 KiB written before the backup: far more pages than the 100 a step of better-sqlite3's backup copies by default. */
const ROWS = 3000;

test('a backup ends, consistent, while another connection commits on every turn of the event loop', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'kurz.db');
  const db = openDatabase(path);
  t.teardown(() => db.close());
  const other = new Sqlite(path);
  t.teardown(() => other.close());
  const put = other.prepare('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)');
  other.transaction(() => {
    for (let i = 0; i < ROWS; i++) put.run(`row-${i}`, 'x'.repeat(1024));
  })();

  // A commit from another connection between two steps of a backup makes it start again from the first page.
  let writing = true;
  let commits = 0;
  const write = (): void => {
    if (!writing) return;
    put.run(`commit-${commits++}`, 'y');
    setImmediate(write);
  };
  setImmediate(write);
  const target = join(dir, 'copy.db');
  const pages = await Promise.race([
    backupDatabase(db, target, undefined),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the backup did not end within 20 s')), 20_000).unref()),
  ]).finally(() => (writing = false));
  t.log(`${pages} pages copied while the other connection committed ${commits} times`);

  const copy = new Sqlite(target, { readonly: true });
  t.teardown(() => copy.close());
  t.is(copy.pragma('integrity_check', { simple: true }), 'ok');
  t.is(copy.prepare("SELECT count(*) FROM settings WHERE key LIKE 'row-%'").pluck().get(), ROWS);
  const copied = copy.prepare<[], number>("SELECT count(*) FROM settings WHERE key LIKE 'commit-%'").pluck().get() ?? -1;
  t.true(copied <= commits, 'the copy holds only commits that happened');
});
