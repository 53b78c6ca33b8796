import { setTimeout } from 'node:timers/promises';
import { isUnavailable } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { VisitReceipt } from '../../visits/visit-handover.ts';
import type { WriterDatabase, WriterHost } from '../writer-ports.ts';
import type { Database } from './database.ts';
import * as q from './queries.ts';

/** Reads of a dead writer's receipt while the database is unreachable, a second apart. */
const RECEIPT_ATTEMPTS = 30;
const RECEIPT_RETRY_MS = 1000;

/**
 * The server's database as the background writer's supervisor (cluster/background-writer.ts) needs it: the
 * URL, which goes to the writer in its environment (a password is never an argument), and the receipts its
 * writers keep in visit_handovers. PostgreSQL checkpoints by itself: there is nothing to turn off.
 */
export function postgresWriterHost(db: Database, url: string, log: Logger): WriterHost {
  return {
    flags: [],
    env: { KURZ_DATABASE_URL: url, KURZ_DATABASE_URL_FILE: undefined },
    async takeReceipt(name) {
      for (let attempt = 1; ; attempt++) {
        try {
          return (await db.query<VisitReceipt>(q.TAKE_HANDOVER, [name])).rows[0];
        } catch (err) {
          // Read as none, the receipt would have the next writer write again what the dead one had written:
          // an unreachable database is waited for, a while.
          if (isUnavailable(err) && attempt < RECEIPT_ATTEMPTS) {
            await setTimeout(RECEIPT_RETRY_MS);
            continue;
          }
          log.error("could not read a background writer's receipt; the visits it was handed may be counted twice", { err });
          return undefined;
        }
      }
    },
    checkpointInline() {},
  };
}

/** The background writer's own pool, named `name` by its server. */
export function postgresWriterDatabase(db: Database, name: string): WriterDatabase {
  return {
    checkpoint() {},
    async close(forgetReceipt) {
      if (forgetReceipt) await db.query(q.TAKE_HANDOVER, [name]).catch(() => undefined);
      await db.close();
    },
  };
}
