import { AppError } from '../core/errors.ts';

/** Most jobs committed in one transaction; more wait for the next one. */
const MAX_BATCH = 1000;

interface Waiting<I, R> {
  input: I;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommit<I, R> {
  /** Runs `input` together with the other jobs of this turn of the event loop; resolves once it is on disk. */
  run(input: I): Promise<R>;
  /** Resolves once every job handed over so far is written and synced (or refused): the database may close. */
  idle(): Promise<void>;
}

/**
 * Group commit with the disk sync off the event loop. Jobs that arrive while nothing is being written go to
 * `commit` together on the next turn of the event loop, in one transaction that commits without waiting
 * for the disk; `synced` then waits for the disk on the thread pool, while redirects go on and new jobs
 * gather for the next batch, which starts when that sync ends (one sync in flight, so the batches grow
 * with the load, as they would behind an inline fsync). Each job's promise settles only after its batch's
 * sync: a 201 means durably stored. `commit` gives each job its result or its own Error (a job that
 * failed alone, its writes undone); a `commit` that throws fails the whole batch. `inFlight` batches may
 * be written at once (default 1): a server whose commits are durable by themselves and that takes
 * concurrent transactions (PostgreSQL) overlaps their round trips.
 */
export function createGroupCommit<I, R>(
  commit: (inputs: I[]) => Array<R | Error> | Promise<Array<R | Error>>,
  synced: () => Promise<void>,
  inFlight = 1,
): GroupCommit<I, R> {
  const waiting: Array<Waiting<I, R>> = [];
  /** Batches being written. */
  let busy = 0;
  let scheduled = false;
  let whenIdle: Array<() => void> = [];

  function schedule(): void {
    if (busy >= inFlight || scheduled) return;
    if (waiting.length > 0) {
      scheduled = true;
      setImmediate(flush);
      return;
    }
    if (busy > 0) return;
    const idle = whenIdle;
    whenIdle = [];
    for (const resolve of idle) resolve();
  }

  async function flush(): Promise<void> {
    scheduled = false;
    busy++;
    const batch = waiting.splice(0, MAX_BATCH);
    try {
      let results: Array<R | Error>;
      try {
        results = await commit(batch.map((w) => w.input));
      } catch (err) {
        for (const w of batch) w.reject(err);
        return;
      }
      try {
        await synced();
      } catch (err) {
        // Committed but perhaps not on disk: no job of the batch may be reported as stored. A sync the store
        // already turned into a client's error (a full disk: AppError 'unavailable') is passed on as it is.
        const failed = err instanceof AppError ? err : new Error('could not sync the database to disk', { cause: err });
        batch.forEach((w, i) => w.reject(results[i] instanceof Error ? results[i] : failed));
        return;
      }
      batch.forEach((w, i) => {
        const result = results[i] as R | Error;
        if (result instanceof Error) w.reject(result);
        else w.resolve(result);
      });
    } finally {
      busy--;
      schedule();
    }
  }

  return {
    run(input) {
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
