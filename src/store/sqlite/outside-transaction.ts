import { setTimeout as sleep } from 'node:timers/promises';
import type { Database, Statement } from 'better-sqlite3';
import { AppError } from '../../core/errors.ts';
import { BUSY_TIMEOUT_MS } from './database.ts';
import type { WriteHealth } from './write-health.ts';

/** The two busy_timeout settings of a connection, prepared once: `db.pragma` compiles its statement at every call. */
const busyTimeouts = new WeakMap<Database, { off: Statement; on: Statement }>();

function busyTimeoutsOf(db: Database): { off: Statement; on: Statement } {
  let found = busyTimeouts.get(db);
  if (found === undefined) {
    found = { off: db.prepare('PRAGMA busy_timeout = 0'), on: db.prepare(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`) };
    busyTimeouts.set(db, found);
  }
  return found;
}

/** How long a write waits for another process to release the write lock before it fails. */
export const WRITE_LOCK_WAIT_MS = 5000;

/**
 * Runs `attempt`, a write that takes the write lock before it changes anything (BEGIN IMMEDIATE, or one
 * statement), with SQLite's busy wait off, and again on timers while another process (a worker, the
 * background writer, a CLI command, another program) holds the lock: SQLite's own wait would stop this
 * process's event loop, and its redirects, for as long. Before each attempt it waits until no group commit
 * holds its transaction on the connection (one spans turns of the event loop while its jobs run).
 * Throws SQLITE_BUSY once the lock has been held for WRITE_LOCK_WAIT_MS, and AppError('unavailable') once
 * the connection is closed.
 */
export async function waitingForLock<T>(db: Database, attempt: () => T): Promise<T> {
  const deadline = Date.now() + WRITE_LOCK_WAIT_MS;
  for (let wait = 1; ; wait = Math.min(2 * wait, 20)) {
    while (db.inTransaction) await new Promise((resolve) => setImmediate(resolve));
    // Closed while this write waited (kurz stopping, e.g. during the first prune): nothing to write any more.
    if (!db.open) throw new AppError('unavailable', 'the database is closed: kurz is stopping');
    const busy = busyTimeoutsOf(db);
    busy.off.run();
    try {
      return attempt();
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw err;
    } finally {
      busy.on.run();
    }
    await sleep(wait);
  }
}

/**
 * Runs a write of its own on the connection, outside any group commit's transaction (so it is neither swept
 * into that transaction nor undone with it), waiting for the lock as `waitingForLock` does, and reports
 * a failure to `health`: a fault of the file rejects with the 503 it becomes.
 */
export async function outsideTransaction<T>(db: Database, health: WriteHealth, write: () => T): Promise<T> {
  try {
    return await waitingForLock(db, write);
  } catch (err) {
    throw health.failed(err);
  }
}
