import type { Database } from 'better-sqlite3';

/**
 * Runs a write of its own on the connection once no group commit holds its transaction (a group commit
 * spans turns of the event loop while its jobs run), so the write is neither swept into that transaction
 * nor undone with it.
 */
export async function outsideTransaction<T>(db: Database, work: () => T): Promise<T> {
  while (db.inTransaction) await new Promise((resolve) => setImmediate(resolve));
  return work();
}
