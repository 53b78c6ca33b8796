import type { Socket } from 'node:net';
import pg from 'pg';
import { AppError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { redactUrl, withoutUrlSecrets } from '../../core/redact.ts';
import { MIGRATIONS } from './migrations.ts';
import * as q from './queries.ts';

/**
 * How long a query waits for a connection (a new one, or a free one of the pool) before it is answered as
 * unreachable: nothing waits long on a server that is gone, and a busy server, whose new backends take a
 * moment to start, is not mistaken for one (as long as SQLite's wait for its write lock).
 */
const CONNECT_TIMEOUT = 5000;

/** How long `ping` waits for an answer. */
const PING_TIMEOUT = 1000;

/** Retries after a lost connection wait this long first, twice as long each time, up to BACKOFF_MAX. */
const BACKOFF_FIRST = 250;

const BACKOFF_MAX = 10_000;

/** Attempts of a transaction that lost a deadlock or a serialization conflict to another node. */
const TRANSACTION_ATTEMPTS = 5;

/** What the stores query through: the pool (each statement its own transaction) or a transaction's client. */
export interface Querier {
  /** Rejects with AppError('unavailable') when the database cannot be reached. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

export interface Database extends Querier {
  /**
   * Runs `work` in one transaction on one connection and commits; rolls back if it rejects. A deadlock or
   * serialization failure runs it again from the start, so `work` must not depend on a previous attempt.
   */
  transaction<T>(work: (tx: Querier) => Promise<T>): Promise<T>;
  /** True when the database answers within a second; never rejects. */
  ping(): Promise<boolean>;
  /**
   * Calls `onMessage` with each notification's payload after running `listenSql` on a connection of its
   * own, which is reconnected (and listens again) with backoff when it drops. It keeps no process alive.
   */
  listen(listenSql: string, onMessage: (payload: string) => void): void;
  /** Ends the listening connection, the reconnection monitor and the pool. */
  close(): Promise<void>;
}

/**
 * Connects to `url`, applies pending migrations and returns the database. Rejects with a message naming
 * the server (the password masked) when it cannot connect, or when the database is not kurz's or newer.
 */
export async function openDatabase(url: string, log: Logger): Promise<Database> {
  const types = new pg.TypeOverrides();
  // bigint and numeric (what sum() gives) as numbers: kurz's ids, times and counts stay below 2^53.
  types.setTypeParser(20, Number);
  types.setTypeParser(1700, Number);
  const connection = {
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT,
    // TCP keep-alive probes find a server that vanished without closing the connection.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: 'kurz',
  };
  const pool = new pg.Pool({ ...connection, types });
  // A driver's message may quote the connection string or the password: never logged or thrown as it is.
  const reasonOf = (err: unknown): string => withoutUrlSecrets(describe(err), url);
  let lost = false;
  let closed = false;
  const timers = new Set<NodeJS.Timeout>();

  function later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    timers.add(timer);
  }

  /** Logs the loss once and pings with backoff until the database answers again. */
  function noteLost(err: unknown): void {
    if (lost || closed) return;
    lost = true;
    log.error('the database is unreachable; retrying', { database: redactUrl(url), reason: reasonOf(err) });
    const retry = (delay: number): void =>
      later(delay, () => {
        void ping().then((ok) => {
          if (closed) return;
          if (!ok) return retry(Math.min(2 * delay, BACKOFF_MAX));
          lost = false;
          log.info('the database is reachable again', { database: redactUrl(url) });
        });
      });
    retry(BACKOFF_FIRST);
  }

  /** An unreachable database as the 503 the domain knows; any other error as it is. */
  function translated(err: unknown): unknown {
    if (!isUnreachable(err)) return err;
    noteLost(err);
    return new AppError('unavailable', 'the database is unreachable; try again in a moment');
  }

  // An idle connection the server dropped reports here; the pool replaces it on the next query.
  pool.on('error', (err) => {
    if (isUnreachable(err)) noteLost(err);
    else log.error('a database connection failed', { reason: reasonOf(err) });
  });

  async function ping(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), PING_TIMEOUT);
    });
    const answer = pool.query<{ ok: number }>(q.PING).then(
      (result) => result.rows[0]?.ok === 1,
      () => false,
    );
    try {
      return await Promise.race([answer, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await pool.query<R>(sql, params);
    } catch (err) {
      throw translated(err);
    }
  }

  async function transaction<T>(work: (tx: Querier) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw translated(err);
      }
      // A checked-out connection that drops between statements reports here, not to the pool.
      let broken: Error | undefined;
      const onError = (err: Error): void => {
        broken = err;
        if (isUnreachable(err)) noteLost(err);
      };
      client.on('error', onError);
      const tx: Querier = {
        async query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]) {
          try {
            return await client.query<R>(sql, params);
          } catch (err) {
            throw translated(err);
          }
        },
      };
      try {
        await tx.query(q.BEGIN);
        const result = await work(tx);
        await tx.query(q.COMMIT);
        return result;
      } catch (err) {
        await client.query(q.ROLLBACK).catch((rollbackError: unknown) => {
          broken ??= rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        if (isConflict(err) && attempt < TRANSACTION_ATTEMPTS) continue;
        throw err;
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    }
  }

  let listening: { end(): Promise<void> } | undefined;

  function listen(listenSql: string, onMessage: (payload: string) => void): void {
    if (listening) throw new Error('the database already has a listening connection');
    let client: pg.Client | undefined;
    let delay = BACKOFF_FIRST;

    const connect = async (): Promise<void> => {
      if (closed) return;
      const c = new pg.Client(connection);
      client = c;
      let dropped = false;
      const drop = (): void => {
        if (dropped) return;
        dropped = true;
        void c.end().catch(() => undefined);
        if (closed || client !== c) return;
        client = undefined;
        later(delay, () => void connect());
        delay = Math.min(2 * delay, BACKOFF_MAX);
      };
      c.on('error', drop);
      c.on('end', drop);
      c.on('notification', (message) => {
        if (message.payload !== undefined) onMessage(message.payload);
      });
      try {
        await c.connect();
        (c.connection.stream as Socket).unref();
        await c.query(listenSql);
        delay = BACKOFF_FIRST;
      } catch {
        drop();
      }
    };

    listening = {
      async end() {
        const c = client;
        client = undefined;
        await c?.end().catch(() => undefined);
      },
    };
    void connect();
  }

  const db: Database = {
    query,
    transaction,
    ping,
    listen,
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await listening?.end();
      await pool.end();
    },
  };

  try {
    await pool.query(q.PING);
  } catch (err) {
    await db.close();
    // Without its cause, which may quote the password (a URL error's `input`, shown by util.inspect).
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`cannot connect to PostgreSQL at ${redactUrl(url)}: ${reasonOf(err)}`);
  }
  try {
    await migrate(pool);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/**
 * Applies the pending migrations, all in one transaction (an upgrade is all or nothing, as on SQLite), under
 * an advisory lock so that nodes starting together never apply a step twice. Throws if the database is not
 * kurz's or newer than this build.
 */
async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  let failed: Error | undefined;
  const onError = (err: Error): void => {
    failed = err;
  };
  client.on('error', onError);
  try {
    await client.query(q.LOCK_MIGRATIONS);
    const one = async <R extends pg.QueryResultRow>(sql: string): Promise<R> => (await client.query<R>(sql)).rows[0]!;
    const fresh = !(await one<{ present: boolean }>(q.HAS_SCHEMA_TABLE)).present;
    if (fresh && (await one<{ count: number }>(q.OBJECTS_IN_SCHEMA)).count > 0) {
      throw new Error(
        'the PostgreSQL database has tables but none of kurz (no kurz_schema): it does not belong to kurz; refusing to use it',
      );
    }
    const version = fresh ? 0 : (await one<{ version: number }>(q.SCHEMA_VERSION)).version;
    if (version > MIGRATIONS.length) {
      throw new Error(
        `the database has schema version ${version}, newer than this kurz knows (${MIGRATIONS.length}); run a newer kurz or restore a backup`,
      );
    }
    if (!fresh && version === MIGRATIONS.length) return;
    await client.query(q.BEGIN);
    try {
      for (const step of [...(fresh ? [q.CREATE_SCHEMA_TABLE] : []), ...MIGRATIONS.slice(version)]) await client.query(step);
      await client.query(q.SET_SCHEMA_VERSION, [MIGRATIONS.length]);
      await client.query(q.COMMIT);
    } catch (err) {
      await client.query(q.ROLLBACK);
      throw err;
    }
  } finally {
    await client.query(q.UNLOCK_MIGRATIONS).catch((err: unknown) => {
      failed ??= err instanceof Error ? err : new Error(String(err));
    });
    client.off('error', onError);
    client.release(failed);
  }
}

/** SQLSTATEs of a server shutting down or refusing connections; class 08 is every connection exception. */
const UNREACHABLE_STATES = new Set(['57P01', '57P02', '57P03']);

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** True when `err` says the database cannot be reached, rather than that it refused a statement. */
function isUnreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNREACHABLE_STATES.has(code) || code.startsWith('08'))) return true;
  if (
    /Connection terminated|timeout exceeded when trying to connect|Connection ended unexpectedly|encountered a connection error/i.test(
      err.message,
    )
  )
    return true;
  return err instanceof AggregateError && err.errors.some(isUnreachable);
}

/** 40P01 deadlock, 40001 serialization failure: another transaction won; this one may simply run again. */
function isConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === '40P01' || code === '40001';
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  const message = err.message || (err instanceof AggregateError ? err.errors.map(describe).join('; ') : err.name);
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}
