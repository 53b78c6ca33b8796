import type { Logger } from '../log.ts';
import type { VisitCount } from '../store/link-store.ts';

export interface VisitBufferOptions {
  /** Writes one batch in one transaction; may throw (e.g. database busy), the batch is then kept. */
  write: (counts: VisitCount[]) => void;
  flushSize: number;
  flushInterval: number;
  log: Logger;
}

/**
 * Keeps visits in memory so that a redirect never waits for the database. Pending counts are
 * written on a timer, as soon as `flushSize` visits are pending, and by `stop()` at shutdown.
 */
export class VisitBuffer {
  readonly #options: VisitBufferOptions;
  #pending = new Map<number, VisitCount>();
  #size = 0;
  #timer: NodeJS.Timeout | undefined;
  #flushQueued = false;

  constructor(options: VisitBufferOptions) {
    this.#options = options;
  }

  get pending(): number {
    return this.#size;
  }

  start(): void {
    this.#timer ??= setInterval(() => this.flush(), this.#options.flushInterval).unref();
  }

  record(linkId: number, at: number): void {
    this.#add(linkId, 1, at);
  }

  #add(linkId: number, visits: number, at: number): void {
    const count = this.#pending.get(linkId);
    if (count) {
      count.count += visits;
      count.lastVisitAt = Math.max(count.lastVisitAt, at);
    } else {
      this.#pending.set(linkId, { id: linkId, count: visits, lastVisitAt: at });
    }
    this.#size += visits;
    if (this.#size >= this.#options.flushSize && !this.#flushQueued) {
      this.#flushQueued = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes everything pending. On failure the counts stay pending and the next flush retries them. */
  flush(): void {
    this.#flushQueued = false;
    if (this.#size === 0) return;
    const batch = this.#pending;
    const size = this.#size;
    this.#pending = new Map();
    this.#size = 0;
    try {
      this.#options.write([...batch.values()]);
    } catch (err) {
      this.#options.log.error('could not write visits; will retry', { visits: size, err });
      // Put them back without queueing an immediate retry: the timer retries, so a busy database is not hammered.
      this.#flushQueued = true;
      for (const c of batch.values()) this.#add(c.id, c.count, c.lastVisitAt);
      this.#flushQueued = false;
    }
  }

  /** Stops the timer and writes what is pending. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.flush();
  }
}
