import { AppError } from '../errors.ts';
import type { CreatedLink, CreateLinkInput } from './service.ts';

/** Most creations written in one transaction; more wait for the next turn of the event loop. */
const MAX_BATCH = 1000;

interface Waiting {
  input: CreateLinkInput;
  resolve: (created: CreatedLink) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for concurrent requests, with the disk sync off the event loop. Creations that arrive while
 * nothing is being written go to `createLinks` together on the next turn of the event loop, in one
 * transaction that commits without waiting for the disk; `synced` then waits for the disk on the thread
 * pool, while redirects go on and new creations gather for the next batch, which starts when that sync
 * ends (one sync in flight, so the batches grow with the load, as they would behind an inline fsync).
 * Each creation's promise resolves only after its batch's sync: a 201 still means durably stored.
 */
export function createBatcher(createLinks: (inputs: CreateLinkInput[]) => Array<CreatedLink | AppError>, synced: () => Promise<void>) {
  const waiting: Waiting[] = [];
  let syncing = false;
  let scheduled = false;

  function schedule(): void {
    if (syncing || scheduled || waiting.length === 0) return;
    scheduled = true;
    setImmediate(flush);
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

  return function createSoon(input: CreateLinkInput): Promise<CreatedLink> {
    return new Promise((resolve, reject) => {
      waiting.push({ input, resolve, reject });
      schedule();
    });
  };
}
