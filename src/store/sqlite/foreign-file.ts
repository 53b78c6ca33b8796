import Sqlite from 'better-sqlite3';
import { AppError } from '../../core/errors.ts';

/** A table of another application's SQLite file: its column names and rows, every value as text (NULL as null). */
export interface ForeignTable {
  columns: string[];
  rows: Array<{ line: number; values: Array<string | null> }>;
}

/**
 * Reads every table of a SQLite database given as bytes (another application's file, e.g. Kutt's), from an
 * in-memory copy: the file itself is never opened, so nothing can write to it. A row's `line` is its place
 * in its table, from 1. Throws AppError('invalid') when the bytes are no database SQLite can read.
 */
export function readForeignSqlite(bytes: Buffer, nativeBinding: object | undefined): Map<string, ForeignTable> {
  const copy = Buffer.from(bytes);
  // A file in WAL mode says so in bytes 18 and 19; an in-memory copy can only be read in rollback mode.
  if (copy.length > 19 && copy[18] === 2 && copy[19] === 2) copy[18] = copy[19] = 1;
  let db: Sqlite.Database;
  try {
    // @types/better-sqlite3 only knows the path form of nativeBinding; the executable passes the loaded addon.
    db = new Sqlite(copy, nativeBinding ? { nativeBinding: nativeBinding as unknown as string } : {});
  } catch (err) {
    throw new AppError('invalid', `SQLite cannot read the file: ${(err as Error).message}`);
  }
  try {
    const tables = new Map<string, ForeignTable>();
    const names = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
    for (const name of names) {
      const statement = db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`).raw(true);
      const columns = statement.columns().map((c) => c.name.toLowerCase());
      const rows = (statement.all() as unknown[][]).map((values, i) => ({
        line: i + 1,
        values: values.map((v) => (v === null ? null : Buffer.isBuffer(v) ? v.toString('hex') : String(v))),
      }));
      tables.set(name.toLowerCase(), { columns, rows });
    }
    return tables;
  } catch (err) {
    throw new AppError('invalid', `SQLite cannot read the file: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}
