import type { Config } from '../../config.ts';
import type { Logger } from '../../core/log.ts';
import type { Query } from '../invariants.ts';
import type { Storage, VisitStore } from '../ports.ts';
import type { BackgroundWriter, StartBackgroundWriter, WriterDatabase } from '../writer-ports.ts';
import { createPostgresAccessStore } from './access-store.ts';
import { createPostgresAuditStore } from './audit-store.ts';
import { postgresWriterDatabase, postgresWriterHost } from './background-writer.ts';
import { createPostgresWebhookStore } from './webhook-store.ts';
import { openDatabase, type Database } from './database.ts';
import { createPostgresDomainStore } from './domain-store.ts';
import { createPostgresLinkStore } from './link-store.ts';
import * as q from './queries.ts';
import { createPostgresSettingsStore } from './settings-store.ts';
import { createPostgresVisitStore } from './visit-store.ts';

/** Parameters in one INSERT of imported rows: PostgreSQL takes at most 65,535. */
const IMPORT_PARAMS = 30_000;

/** The PostgreSQL backend, with what only it can do. */
export interface PostgresStorage extends Storage {
  /** Inserts rows into one of kurz's tables as they are (kurz migrate). */
  importRows(table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void>;
  /** After importRows: moves id reservation (kurz_ids) and every serial/identity (domains' too) past the imported ids. */
  finishImport(): Promise<void>;
  /** Rows in one of kurz's tables (importRows's verification). */
  countRows(table: string): Promise<number>;
  /** True when none of kurz's tables holds a row (settings included). */
  isEmpty(): Promise<boolean>;
  /** PostgreSQL's version string. */
  serverVersion(): Promise<string>;
  /** Runs `work`, whose statements only read, in one transaction that sees one snapshot of the database. */
  inSnapshot<T>(work: (query: Query) => Promise<T>): Promise<T>;
}

export interface PostgresOptions {
  log: Logger;
  /**
   * Starts the background writer process (`serve`: cluster/background-writer.ts, which the composition
   * root passes here) on this database; without it, visits are written in this process.
   */
  backgroundWriter?: StartBackgroundWriter | undefined;
}

/** Connects, migrates, builds the stores. Rejects with a clear message (the URL's password masked) when it cannot connect. */
export async function openPostgresStorage(
  config: Pick<Config, 'databaseUrl' | 'idBlockSize'>,
  options: PostgresOptions,
): Promise<PostgresStorage> {
  const db = await openDatabase(config.databaseUrl, options.log);
  const links = createPostgresLinkStore(db, config.idBlockSize, options.log);
  const visits = createPostgresVisitStore(db);
  const background: BackgroundWriter | undefined = options.backgroundWriter?.(postgresWriterHost(db, config.databaseUrl, options.log));
  let closed: Promise<void> | undefined;
  return {
    links,
    visits: {
      ...visits,
      offload: (events, giveBack) => background?.offload(events, giveBack) ?? false,
    },
    domains: createPostgresDomainStore(db),
    settings: createPostgresSettingsStore(db),
    access: createPostgresAccessStore(db),
    audit: createPostgresAuditStore(db),
    webhooks: createPostgresWebhookStore(db),
    importRows: async (table, columns, rows) => importRows(db, dataTable(table), columns, rows),
    finishImport: async () => void (await db.query(q.FINISH_IMPORT)),
    countRows: async (table) => (await db.query<{ count: number }>(q.countRows(dataTable(table)))).rows[0]?.count ?? 0,
    isEmpty: async () => (await db.query<{ empty: boolean }>(q.IS_EMPTY)).rows[0]?.empty === true,
    visitDetailDropped: () => background?.detailDropped ?? 0,
    databaseBytes: async () => (await db.query<{ bytes: number }>(q.DATABASE_SIZE)).rows[0]?.bytes ?? 0,
    serverVersion: async () => (await db.query<{ version: string }>(q.SERVER_VERSION)).rows[0]?.version ?? '',
    inSnapshot: (work) =>
      db.transaction(async (tx) => {
        await tx.query(q.READ_ONLY_SNAPSHOT);
        return work(async (sql) => (await tx.query(sql)).rows);
      }),
    problem: async () => ((await db.ping()) ? background?.fault : 'database unreachable'),
    close() {
      closed ??= (async () => {
        await links.idle();
        await visits.idle();
        await background?.stop();
        await db.close();
      })();
      return closed;
    },
  };
}

/**
 * The background writer's own pool (`kurz background`), named `handover` by the server that started it: the
 * visit store that keeps its receipts under that name (its row made before it writes anything), and the
 * rest it does with the database.
 */
export async function openPostgresWriterDatabase(
  config: Pick<Config, 'databaseUrl'>,
  handover: string,
  log: Logger,
): Promise<{ store: VisitStore; database: WriterDatabase }> {
  const db = await openDatabase(config.databaseUrl, log);
  await db.query(q.START_HANDOVER, [handover]);
  return { store: { ...createPostgresVisitStore(db, { handover }), offload: () => false }, database: postgresWriterDatabase(db, handover) };
}

/** `table` if it is one of kurz's data tables; table names go into SQL, so no other is accepted. */
function dataTable(table: string): q.DataTable {
  const found = q.DATA_TABLES.find((t) => t === table);
  if (!found) throw new Error(`"${table}" is not one of kurz's tables (${q.DATA_TABLES.join(', ')})`);
  return found;
}

/** Inserts `rows` in one transaction, as many per statement as the parameter limit allows. */
async function importRows(db: Database, table: q.DataTable, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
  const known = new Set((await db.query<{ name: string }>(q.TABLE_COLUMNS, [table])).rows.map((r) => r.name));
  const unknown = columns.filter((c) => !known.has(c));
  if (columns.length === 0 || unknown.length > 0) {
    throw new Error(`cannot import into ${table}: ${columns.length === 0 ? 'no columns given' : `no column ${unknown.join(', ')}`}`);
  }
  const perStatement = Math.max(1, Math.floor(IMPORT_PARAMS / columns.length));
  await db.transaction(async (tx) => {
    for (let i = 0; i < rows.length; i += perStatement) {
      const chunk = rows.slice(i, i + perStatement);
      await tx.query(
        q.importRows(table, columns, chunk.length),
        chunk.flatMap((row) => columns.map((_, c) => row[c] ?? null)),
      );
    }
  });
}
