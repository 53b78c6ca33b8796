import { closeSync, openSync, renameSync, rmSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import { openDatabase } from './database.ts';

/** More pages than a database can have: sqlite3_backup_step copies what there is. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the live database `db` to `target` with SQLite's online backup (consistent while others write),
 * next to the target under a temporary name (0600, as the database), checks the copy's integrity, then renames it into place.
 * Returns the pages copied. Throws, leaving no partial file, when any step fails.
 */
export async function backupDatabase(db: Database, target: string, nativeBinding: object | undefined): Promise<number> {
  const temp = `${target}.partial-${process.pid}`;
  try {
    // Made 0600 first: SQLite would create it 0644 less the umask, and a backup holds what the database does.
    rmSync(temp, { force: true });
    closeSync(openSync(temp, 'wx', 0o600));
    // All pages in one step, in one read transaction: copied step by step, the backup would start again
    // after every commit of another process, and never end under steady writes.
    const { totalPages } = await db.backup(temp, { progress: () => ALL_PAGES });
    const copy = openDatabase(temp, { nativeBinding });
    try {
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`the copy failed its integrity check: ${String(check)}`);
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    renameSync(temp, target);
    return totalPages;
  } finally {
    rmSync(temp, { force: true });
  }
}
