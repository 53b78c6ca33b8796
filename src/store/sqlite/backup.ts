import { renameSync, rmSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import { openDatabase } from './database.ts';

/**
 * Copies the live database `db` to `target` with SQLite's online backup (consistent while others write),
 * next to the target under a temporary name, checks the copy's integrity, then renames it into place.
 * Returns the pages copied. Throws, leaving no partial file, when any step fails.
 */
export async function backupDatabase(db: Database, target: string, nativeBinding: object | undefined): Promise<number> {
  const temp = `${target}.partial-${process.pid}`;
  try {
    const { totalPages } = await db.backup(temp);
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
