import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Sqlite, { type Database } from 'better-sqlite3';
import type { Durability } from '../../config.ts';
import { ensureDir } from '../../core/ensure-dir.ts';
import { migrate } from './migrations.ts';
import { SYNC_DURABLE, SYNC_WITHOUT_WAITING } from './queries.ts';

/** How long a statement waits for a lock another process holds (link writes wait on timers instead). */
export const BUSY_TIMEOUT_MS = 5000;

/** "kurz" in ASCII: marks a SQLite file as ours, so kurz refuses to write into someone else's database. */
export const APPLICATION_ID = 0x6b75727a;

/**
 * SQLite's page cache per connection, in KiB: enough for the interior pages of the links table and the code
 * index up to about 10M links; more only fills with leaf pages read once (docs/ARCHITECTURE.md).
 */
export const PAGE_CACHE_KIB = 8192;

export interface OpenOptions {
  /** The loaded better-sqlite3 addon, when it cannot be found on disk (inside the single executable). */
  nativeBinding?: object | undefined;
  /** Refuse to create the file: for commands that only read, so a mistyped path is not a new database. */
  mustExist?: boolean;
  /** The `durability` setting: the connection's synchronous mode (see connectionSync). Default full. */
  durability?: Durability;
}

/**
 * The connection's synchronous mode for `durability`, which writes that wait for the disk return to: FULL
 * syncs the WAL at every commit, so a commit survives a power cut; NORMAL leaves it in the OS's page cache,
 * which outlives a crash of kurz but not of the machine (the WAL is synced at checkpoints either way).
 */
export function connectionSync(durability: Durability): string {
  return durability === 'full' ? SYNC_DURABLE : SYNC_WITHOUT_WAITING;
}

/**
 * Opens (creating if needed) the database at `path`, sets the pragmas kurz relies on and applies
 * pending migrations. Throws with a message naming the file when it cannot be opened or is not kurz's.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Database {
  let db: Database;
  if (options.mustExist && path !== ':memory:' && !existsSync(path)) {
    throw new Error(`there is no database at ${path}; check --db (or KURZ_DB)`);
  }
  try {
    if (path !== ':memory:') createPrivately(path);
    // @types/better-sqlite3 only knows the path form of nativeBinding; the executable passes the loaded addon.
    db = new Sqlite(path, {
      fileMustExist: options.mustExist ?? false,
      ...(options.nativeBinding ? { nativeBinding: options.nativeBinding as unknown as string } : {}),
    });
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(`cannot open the database ${path}: ${reason}`, { cause: err });
  }
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    // Before anything that writes (journal_mode = WAL does): a refused file must be left as it was.
    const unclaimed = refuseForeign(db, path);
    db.pragma('journal_mode = WAL');
    db.exec(connectionSync(options.durability ?? 'full'));
    db.pragma('foreign_keys = ON');
    if (unclaimed) db.pragma(`application_id = ${APPLICATION_ID}`);
    migrate(db);
    return db;
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_NOTADB') {
      throw new Error(`${path} is not a SQLite database; check --db (or KURZ_DB)`, { cause: err });
    }
    throw err;
  }
}

/**
 * Throws when the file is another program's: marked with another application_id, or unmarked with tables.
 * Only reads. True for an empty file, which kurz then marks as its own.
 */
function refuseForeign(db: Database, path: string): boolean {
  const id = db.pragma('application_id', { simple: true }) as number;
  if (id === APPLICATION_ID) return false;
  const tables = db.prepare(`SELECT count(*) AS n FROM sqlite_schema`).get() as { n: number };
  if (id !== 0 || tables.n > 0) throw new Error(`${path} is a SQLite database that does not belong to kurz; refusing to use it`);
  return true;
}

/**
 * Creates the folders (0700) and the file (0600) when missing, whatever the umask: the file holds the session
 * secret, the code key and every hash, and SQLite gives its -wal and -shm the database file's mode. An
 * existing file keeps its mode (`kurz check` warns when others may read it).
 */
function createPrivately(path: string): void {
  if (existsSync(path)) return;
  ensureDir(dirname(path));
  try {
    closeSync(openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
