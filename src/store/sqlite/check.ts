import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import Sqlite, { type Database } from 'better-sqlite3';
import { checkInvariants, totalsOf, type CheckOutcome, type CheckReport } from '../invariants.ts';
import { APPLICATION_ID } from './database.ts';
import { MIGRATIONS } from './migrations.ts';

/** The first 16 bytes of every SQLite database file. */
const HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Checks the SQLite file at `path` without changing it (read-only, never migrated): that it is a SQLite
 * database and kurz's, its schema version, SQLite's integrity check (`quick`: the quick check, which skips
 * matching indexes against their tables) and foreign-key check, then kurz's invariants in one read
 * transaction. Damage is reported as problems, never thrown; throws only when there is no such file.
 */
export async function checkSqliteFile(path: string, options: { quick: boolean; nativeBinding?: object | undefined }): Promise<CheckReport> {
  if (!existsSync(path)) throw new Error(`there is no file at ${path}`);
  const header = firstBytes(path, HEADER.length);
  if (!header.equals(HEADER)) {
    const what = header.length === 0 ? 'the file is empty' : "its first bytes are not SQLite's header";
    return { outcomes: [{ name: 'a SQLite database', problems: [`not a SQLite database: ${what}`] }] };
  }
  let db: Database;
  try {
    // @types/better-sqlite3 only knows the path form of nativeBinding; the executable passes the loaded addon.
    db = new Sqlite(path, {
      readonly: true,
      fileMustExist: true,
      ...(options.nativeBinding ? { nativeBinding: options.nativeBinding as unknown as string } : {}),
    });
  } catch (err) {
    return { outcomes: [{ name: 'a SQLite database', problems: [`SQLite cannot open it: ${(err as Error).message}`] }] };
  }
  try {
    return await checkOpen(db, options.quick);
  } finally {
    db.close();
  }
}

async function checkOpen(db: Database, quick: boolean): Promise<CheckReport> {
  const outcomes: CheckOutcome[] = [];
  const run = (name: string, check: () => Omit<CheckOutcome, 'name'>): CheckOutcome => {
    let outcome: CheckOutcome;
    try {
      outcome = { name, ...check() };
    } catch (err) {
      outcome = { name, problems: [`SQLite could not run it: ${(err as Error).message}`] };
    }
    outcomes.push(outcome);
    return outcome;
  };

  let current = false;
  const kurz = run("kurz's database, at this kurz's schema version", () => {
    const id = db.pragma('application_id', { simple: true }) as number;
    const version = db.pragma('user_version', { simple: true }) as number;
    if (id !== APPLICATION_ID) {
      return { problems: [`application_id is ${hex(id)}, not kurz's ${hex(APPLICATION_ID)}: this is not a kurz database`] };
    }
    if (version > MIGRATIONS.length) {
      return {
        problems: [`schema version ${version} is newer than this kurz's (${MIGRATIONS.length}): check it with the kurz that wrote it`],
      };
    }
    current = version === MIGRATIONS.length;
    const detail = current
      ? `schema version ${version}`
      : `schema version ${version}: kurz migrates it to ${MIGRATIONS.length} when it next opens it`;
    return { problems: [], detail };
  });

  const pragma = quick ? 'quick_check' : 'integrity_check';
  const integrity = run(`SQLite's ${pragma}`, () => {
    try {
      return { problems: messagesOf(db, pragma) };
    } catch (err) {
      // A page SQLite cannot even parse stops the whole check; table by table, it names where.
      const found = byTable(db, pragma);
      return { problems: found.length > 0 ? found : [`SQLite could not finish it: ${(err as Error).message}`] };
    }
  });
  run("SQLite's foreign_key_check", () => {
    const rows = db.pragma('foreign_key_check') as Array<{ table: string; rowid: number; parent: string }>;
    return { problems: rows.map((r) => `${r.table} row ${r.rowid} names no row of ${r.parent}`) };
  });

  if (kurz.problems.length > 0 || integrity.problems.length > 0 || !current) {
    const why =
      kurz.problems.length > 0
        ? 'not a kurz database of a schema this kurz knows'
        : integrity.problems.length > 0
          ? 'the file is damaged: restore it from a backup'
          : 'they need the current schema';
    outcomes.push({ name: "kurz's tables agree with each other", problems: [], skipped: why });
    return { outcomes };
  }
  // One read transaction: a server writing meanwhile is seen before or after each of its commits.
  db.exec('BEGIN');
  try {
    const query = async (sql: string) => db.prepare(sql).all() as Array<Record<string, unknown>>;
    outcomes.push(...(await checkInvariants(query)));
    const totals = await totalsOf(query).catch(() => undefined);
    return totals ? { outcomes, totals } : { outcomes };
  } finally {
    db.exec('COMMIT');
  }
}

/** What `PRAGMA <pragma>` reports ('ok' is none), for the whole file or one table. */
function messagesOf(db: Database, pragma: string, table?: string): string[] {
  const argument = table === undefined ? '' : `("${table.replaceAll('"', '""')}")`;
  const rows = db.pragma(`${pragma}${argument}`) as Array<Record<string, unknown>>;
  const lines = rows.flatMap((row) => String(Object.values(row)[0]).split('\n'));
  return lines.length === 1 && lines[0] === 'ok' ? [] : lines;
}

/** The check table by table: each table's messages, or that SQLite cannot read it. */
function byTable(db: Database, pragma: string): string[] {
  let tables: string[];
  try {
    tables = db.prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all();
  } catch (err) {
    return [`the schema cannot be read: ${(err as Error).message}`];
  }
  return tables.flatMap((table) => {
    try {
      return messagesOf(db, pragma, table).map((line) => `${table}: ${line}`);
    } catch (err) {
      return [`${table}: the table cannot be read: ${(err as Error).message}`];
    }
  });
}

function firstBytes(path: string, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    return buffer.subarray(0, readSync(fd, buffer, 0, length, 0));
  } finally {
    closeSync(fd);
  }
}

function hex(n: number): string {
  return `0x${(n >>> 0).toString(16).padStart(8, '0')}`;
}
