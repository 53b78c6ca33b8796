import type { Database } from 'better-sqlite3';
import { isUnavailable } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { VisitReceipt } from '../../visits/visit-handover.ts';
import type { WriterDatabase, WriterHost } from '../writer-ports.ts';
import { outsideTransaction } from './outside-transaction.ts';
import * as q from './queries.ts';
import type { WriteHealth } from './write-health.ts';

/** SQLite's default: pages of WAL after which a commit checkpoints by itself. */
const AUTO_CHECKPOINT_PAGES = 1000;

/**
 * The server's database as the background writer's supervisor (cluster/background-writer.ts) needs it:
 * the file and `flags` to open it with, the receipts its writers keep in it, and the server's own checkpoints, off while a writer
 * makes them (a checkpoint ends with an fsync of the database file, which inline stalled redirects).
 */
export function sqliteWriterHost(db: Database, health: WriteHealth, flags: readonly string[], log: Logger): WriterHost {
  const receiptOf = db.prepare<[string], VisitReceipt>(q.HANDOVER);
  const forget = db.prepare<[string]>(q.DELETE_HANDOVER);
  return {
    flags: ['--db', db.name, ...flags],
    async takeReceipt(name) {
      const receipt = receiptOf.get(name);
      // A receipt left behind (the disk full, say) is one small row under a name no writer uses again.
      await outsideTransaction(db, health, () => forget.run(name)).catch(
        (err: unknown) => isUnavailable(err) || log.error("could not remove a background writer's receipt", { err }),
      );
      return receipt;
    },
    checkpointInline(on) {
      db.pragma(`wal_autocheckpoint = ${on ? AUTO_CHECKPOINT_PAGES : 0}`);
    },
  };
}

/**
 * The background writer's own connection, named `name` by its server: it checkpoints the WAL, and a
 * checkpoint that fails for a fault of the file tells `health` (a checkpoint with nothing to copy proves
 * nothing, so one that succeeds does not end a fault).
 */
export function sqliteWriterDatabase(db: Database, health: WriteHealth, name: string, log: Logger): WriterDatabase {
  return {
    checkpoint() {
      try {
        db.pragma('wal_checkpoint(PASSIVE)');
      } catch (err) {
        if (health.failed(err) === err) log.error('could not checkpoint the database', { err });
      }
    },
    close(forgetReceipt) {
      if (forgetReceipt) db.prepare(q.DELETE_HANDOVER).run(name);
      health.close();
      db.close();
    },
  };
}
