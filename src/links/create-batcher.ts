import { AppError } from '../errors.ts';
import type { CreatedLink, CreateLinkInput } from './service.ts';

/** Most creations written in one transaction; more wait for the next turn of the event loop. */
const MAX_BATCH = 1000;

interface Waiting {
  input: CreateLinkInput;
  resolve: (created: CreatedLink) => void;
  reject: (err: unknown) => void;
}

export interface CreateBatcher {
  /** Creates a link together with the other creations of this turn of the event loop. */
  create(input: CreateLinkInput): Promise<CreatedLink>;
  /**
   * Resolves once every creation handed over so far is written and synced (or refused), so the database
   * may be closed. Shutdown waits on it: a client that hung up leaves its creation in the queue.
   */
  idle(): Promise<void>;
}

/**
 * Group commit for concurrent requests, with the disk sync off the event loop. Creations that arrive while
 * nothing is being written go to `createLinks` together on the next turn of the event loop, in one
 * transaction that commits without waiting for the disk; `synced` then waits for the disk on the thread
 * pool, while redirects go on and new creations gather for the next batch, which starts when that sync
 * ends (one sync in flight, so the batches grow with the load, as they would behind an inline fsync).
 * Each creation's promise resolves only after its batch's sync: a 201 still means durably stored.
 */
export function createBatcher(
  createLinks: (inputs: CreateLinkInput[]) => Array<CreatedLink | AppError>,
  synced: () => Promise<void>,
): CreateBatcher {
  const waiting: Waiting[] = [];
  let syncing = false;
  let scheduled = false;
  let whenIdle: Array<() => void> = [];

  function schedule(): void {
    if (syncing || scheduled) return;
    if (waiting.length > 0) {
      scheduled = true;
      setImmediate(flush);
      return;
    }
    const idle = whenIdle;
    whenIdle = [];
    for (const resolve of idle) resolve();
  }

  function flush(): void {
    scheduled = false;
    const batch = waiting.splice(0, MAX_BATCH);
    let results: Array<CreatedLink | AppError>;
    try {
      results = createLinks(batch.map((w) => w.input));
    } catch (err) {
      for (const w of batch) w.reject(err);
      schedule();
      return;
    }
    syncing = true;
    synced()
      .then(
        () =>
          batch.forEach((w, i) => {
            const result = results[i];
            if (result instanceof AppError) w.reject(result);
            else if (result) w.resolve(result);
          }),
        (err: unknown) => {
          // Committed but perhaps not on disk: no creation of the batch may be reported as stored.
          const failed = new Error('could not sync the database to disk', { cause: err });
          batch.forEach((w, i) => w.reject(results[i] instanceof AppError ? results[i] : failed));
        },
      )
      .finally(() => {
        syncing = false;
        schedule();
      });
  }

  return {
    create(input) {
      return new Promise((resolve, reject) => {
        waiting.push({ input, resolve, reject });
        schedule();
      });
    },
    idle() {
      return new Promise((resolve) => {
        whenIdle.push(resolve);
        schedule();
      });
    },
  };
}
