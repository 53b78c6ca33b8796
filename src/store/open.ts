import type { Config } from '../config.ts';
import type { Logger } from '../core/log.ts';
import type { Storage, VisitStore } from './ports.ts';
import { openSqliteStorage, openWriterDatabase, type SqliteOptions } from './sqlite/storage.ts';
import type { WriterDatabase } from './writer-ports.ts';
import { readForeignSqlite, type ForeignTable } from './sqlite/foreign-file.ts';
import { loadNativeBinding } from './sqlite/native-addon.ts';

export interface StorageOptions {
  log: Logger;
  /** Starts the background writer (SqliteOptions.backgroundWriter, PostgresOptions.backgroundWriter). */
  backgroundWriter?: SqliteOptions['backgroundWriter'];
  /** SQLite only: refuse to create the file. */
  mustExist?: boolean;
}

/**
 * The backend `config` names: PostgreSQL when `databaseUrl` is set, else the SQLite file `db`. The
 * PostgreSQL client is loaded only then, so a SQLite server does not pay for it at start.
 */
export async function openStorage(config: Config, options: StorageOptions): Promise<Storage> {
  if (config.databaseUrl === '') return openSqliteStorage(config, options);
  const { openPostgresStorage } = await import('./postgres/storage.ts');
  return openPostgresStorage(config, { log: options.log, backgroundWriter: options.backgroundWriter });
}

/**
 * The background writer's own connection to the backend `config` names, named `handover` by its server
 * (`kurz background`): see openWriterDatabase and openPostgresWriterDatabase. `onFault` hears of a fault
 * its SQLite writes fail with (PostgreSQL's unreachable server is the server's own ping to see).
 */
export async function openWriterStorage(
  config: Config,
  handover: string,
  onFault: (fault: string | undefined) => void,
  log: Logger,
): Promise<{ store: VisitStore; database: WriterDatabase }> {
  if (config.databaseUrl === '') return openWriterDatabase(config, handover, onFault, log);
  const { openPostgresWriterDatabase } = await import('./postgres/storage.ts');
  return openPostgresWriterDatabase(config, handover, log);
}

/** Reads another application's SQLite file from its bytes (see readForeignSqlite), whatever kurz's own backend. */
export function foreignSqliteReader(config: Pick<Config, 'cacheDir'>): (bytes: Buffer) => Map<string, ForeignTable> {
  return (bytes) => readForeignSqlite(bytes, loadNativeBinding(config.cacheDir));
}
