import type { Config } from '../config.ts';
import type { Logger } from '../core/log.ts';
import type { Storage } from './ports.ts';
import { openSqliteStorage, type SqliteOptions } from './sqlite/storage.ts';
import { readForeignSqlite, type ForeignTable } from './sqlite/foreign-file.ts';
import { loadNativeBinding } from './sqlite/native-addon.ts';

export interface StorageOptions {
  log: Logger;
  /** SQLite only: starts the background writer (SqliteOptions.backgroundWriter). */
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
  return openPostgresStorage(config, { log: options.log });
}

/** Reads another application's SQLite file from its bytes (see readForeignSqlite), whatever kurz's own backend. */
export function foreignSqliteReader(config: Pick<Config, 'cacheDir'>): (bytes: Buffer) => Map<string, ForeignTable> {
  return (bytes) => readForeignSqlite(bytes, loadNativeBinding(config.cacheDir));
}
