import { reportFault, runWriterProcess } from '../cluster/background-writer.ts';
import type { Config } from '../config.ts';
import type { Services } from '../context.ts';
import { defaultDeps } from '../deps.ts';
import { createServices, createVisitRecording } from '../services.ts';
import { copyDatabase, type TableCount } from '../store/copy.ts';
import { checkInvariants, totalsOf, type CheckReport } from '../store/invariants.ts';
import { openStorage, openWriterStorage } from '../store/open.ts';
import { checkSqliteFile } from '../store/sqlite/check.ts';
import { loadNativeBinding } from '../store/sqlite/native-addon.ts';
import { openSqliteStorage, type SqliteStorage } from '../store/sqlite/storage.ts';

export interface OpenOptions {
  /** The command works on links already stored: a path with no database is an error, not a new file. */
  existing?: boolean;
}

/** Opens the database for a one-shot command, runs `work` on the services, and always closes it. */
export async function withServices<T>(config: Config, work: (services: Services) => T | Promise<T>, options: OpenOptions = {}): Promise<T> {
  const storage = await openStorage(config, { log: defaultDeps(config).log, mustExist: options.existing ?? false });
  try {
    return await work(await createServices(config, defaultDeps(config), storage));
  } finally {
    await storage.close();
  }
}

/** Copies the live database to `target` (online, consistent, integrity-checked); returns the pages copied. */
export function backupDatabase(config: Config, target: string): Promise<number> {
  return withSqlite(config, { existing: true }, (storage) => storage.backup(target));
}

/**
 * Checks the SQLite file `file` (or else the database `config` names) with checkSqliteFile; on PostgreSQL,
 * kurz's invariants in one read-only snapshot (the server's own integrity is PostgreSQL's to check).
 * Rejects when the database cannot be reached or there is no such file.
 */
export async function checkDatabase(config: Config, options: { file?: string | undefined; quick: boolean }): Promise<CheckReport> {
  if (options.file !== undefined || config.databaseUrl === '') {
    return checkSqliteFile(options.file ?? config.db, { quick: options.quick, nativeBinding: loadNativeBinding(config.cacheDir) });
  }
  const { openPostgresStorage } = await import('../store/postgres/storage.ts');
  const storage = await openPostgresStorage(config, { log: defaultDeps(config).log });
  try {
    return await storage.inSnapshot(async (query) => ({ outcomes: await checkInvariants(query), totals: await totalsOf(query) }));
  } finally {
    await storage.close();
  }
}

/**
 * Copies the SQLite database of `config` into the empty PostgreSQL database at `url` (see copyDatabase);
 * resolves with both sides' counts per table. Rejects when either cannot be opened or the target holds data.
 */
export async function migrateToPostgres(config: Config, url: string, progress: (table: string) => void): Promise<TableCount[]> {
  return withSqlite(config, { existing: true }, async (source) => {
    const { openPostgresStorage } = await import('../store/postgres/storage.ts');
    const target = await openPostgresStorage({ ...config, databaseUrl: url }, { log: defaultDeps(config).log });
    try {
      return await copyDatabase(source, target, progress);
    } finally {
      await target.close();
    }
  });
}

/** The version of the SQLite library kurz runs on. */
export function sqliteVersion(config: Config): Promise<string> {
  return withSqlite({ ...config, db: ':memory:' }, {}, (storage) => storage.sqliteVersion());
}

/** The background writer's process, started by `serve`, which names it `handover`. */
export async function runBackgroundWriter(config: Config, handover: string): Promise<void> {
  const deps = defaultDeps(config);
  const { store, database } = await openWriterStorage(config, handover, reportFault, deps.log);
  return runWriterProcess(database, store, (s) => createVisitRecording(config, deps, s), deps.log);
}

async function withSqlite<T>(config: Config, options: OpenOptions, work: (storage: SqliteStorage) => T | Promise<T>): Promise<T> {
  const storage = openSqliteStorage(config, { log: defaultDeps(config).log, mustExist: options.existing ?? false });
  try {
    return await work(storage);
  } finally {
    await storage.close();
  }
}
