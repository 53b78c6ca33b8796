import { stat } from 'node:fs/promises';
import type { Config } from '../../config.ts';
import type { Logger } from '../../core/log.ts';
import { COPIED_TABLES, type CopySource } from '../copy.ts';
import type { Storage, VisitStore } from '../ports.ts';
import type { BackgroundWriter, StartBackgroundWriter, WriterDatabase } from '../writer-ports.ts';
import { createSqliteAccessStore } from './access-store.ts';
import { createSqliteAuditStore } from './audit-store.ts';
import { backupDatabase } from './backup.ts';
import { sqliteWriterDatabase, sqliteWriterHost } from './background-writer.ts';
import { openDatabase } from './database.ts';
import { createSqliteDomainStore } from './domain-store.ts';
import { createSqliteLinkStore } from './link-store.ts';
import { createSqliteVisitStore } from './visit-store.ts';
import { createSqliteWebhookStore } from './webhook-store.ts';
import { loadNativeBinding } from './native-addon.ts';
import * as q from './queries.ts';
import { createSqliteSettingsStore } from './settings-store.ts';
import { watchWrites } from './write-health.ts';

export interface SqliteOptions {
  log: Logger;
  /**
   * Starts the background writer process (`serve`: cluster/background-writer.ts, which the composition
   * root passes here) on this database; without it, visits are written in this process.
   */
  backgroundWriter?: StartBackgroundWriter | undefined;
  /** Refuse to create the file (commands that only read or copy it). */
  mustExist?: boolean;
}

/** The SQLite backend, with what only it can do. */
export interface SqliteStorage extends Storage, CopySource {
  /** Copies the live database to `target` (see backupDatabase); returns the pages copied. */
  backup(target: string): Promise<number>;
  sqliteVersion(): string;
}

/**
 * Opens the SQLite file named in `config` (creating and migrating it unless `mustExist`) and builds the
 * stores on one connection. Throws with a message naming the file when it cannot be opened or is not kurz's.
 * Its health is what this connection's writes (write-health.ts) and the background writer's report.
 */
export function openSqliteStorage(config: Pick<Config, 'db' | 'cacheDir' | 'durability'>, options: SqliteOptions): SqliteStorage {
  const nativeBinding = loadNativeBinding(config.cacheDir);
  const { durability } = config;
  const db = openDatabase(config.db, { nativeBinding, mustExist: options.mustExist ?? false, durability });
  const health = watchWrites(db, options.log);
  const links = createSqliteLinkStore(db, health, durability, options.log);
  const visits = createSqliteVisitStore(db, health, { durability });
  const background: BackgroundWriter | undefined = options.backgroundWriter
    ? options.backgroundWriter(sqliteWriterHost(db, health, ['--cache-dir', config.cacheDir, '--durability', durability], options.log))
    : undefined;
  let closed: Promise<void> | undefined;
  return {
    links,
    visits: {
      ...visits,
      offload: (events, giveBack) => background?.offload(events, giveBack) ?? false,
    },
    domains: createSqliteDomainStore(db, health),
    settings: createSqliteSettingsStore(db, health),
    access: createSqliteAccessStore(db, health),
    audit: createSqliteAuditStore(db, health),
    webhooks: createSqliteWebhookStore(db, health),
    backup: (target) => backupDatabase(db, target, nativeBinding),
    sqliteVersion: () => db.prepare<[], string>(q.SQLITE_VERSION).pluck().get() ?? '',
    *chunksOf(table, columns, size) {
      let chunk: unknown[][] = [];
      for (const row of db
        .prepare(q.allRows(copiedTable(table), columns))
        .raw()
        .iterate() as IterableIterator<unknown[]>) {
        chunk.push(row);
        if (chunk.length < size) continue;
        yield chunk;
        chunk = [];
      }
      if (chunk.length > 0) yield chunk;
    },
    async databaseBytes() {
      if (db.memory) return 0;
      const sizes = await Promise.all(
        [db.name, `${db.name}-wal`].map((file) =>
          stat(file).then(
            (s) => s.size,
            () => 0,
          ),
        ),
      );
      return sizes[0]! + sizes[1]!;
    },
    countRows: async (table) =>
      db
        .prepare<[], number>(q.countRows(copiedTable(table)))
        .pluck()
        .get() ?? 0,
    visitDetailDropped: () => background?.detailDropped ?? 0,
    async problem() {
      if (!db.open) return 'database unreachable';
      return health.fault ?? background?.fault;
    },
    close() {
      closed ??= (async () => {
        await links.idle();
        await visits.idle();
        await background?.stop();
        health.close();
        links.close();
        db.close();
      })();
      return closed;
    },
  };
}

/** `table`, if it is one of kurz's copied tables (the name goes into SQL). */
function copiedTable(table: string): string {
  if (!COPIED_TABLES.some((t) => t.name === table)) throw new Error(`${table} is not one of kurz's tables`);
  return table;
}

/**
 * The background writer's own connection (`kurz background`), named `handover` by the server that started
 * it: the visit store that keeps its receipts under that name, and the rest it does with the database.
 * `onFault` hears of a fault its writes fail with, and of their success again (undefined).
 */
export function openWriterDatabase(
  config: Pick<Config, 'db' | 'cacheDir' | 'durability'>,
  handover: string,
  onFault: (fault: string | undefined) => void,
  log: Logger,
): { store: VisitStore; database: WriterDatabase } {
  const { durability } = config;
  const db = openDatabase(config.db, { nativeBinding: loadNativeBinding(config.cacheDir), mustExist: true, durability });
  const health = watchWrites(db, log, { process: 'background writer', onChange: onFault });
  const store = createSqliteVisitStore(db, health, { durability, handover });
  return { store: { ...store, offload: () => false }, database: sqliteWriterDatabase(db, health, handover, log) };
}
