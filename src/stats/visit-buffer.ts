import type { Logger } from '../log.ts';
import type { VisitCount } from '../store/link-store.ts';

export interface VisitBufferOptions {
  /** Writes one chunk in one transaction; may throw (e.g. database busy), the chunk is then kept. */
  write: (counts: VisitCount[]) => void;
  /** Distinct links with pending visits that trigger a flush before the timer does. */
  flushSize: number;
  flushInterval: number;
  /** Rows per transaction, one transaction per turn of the event loop; 50 unless given. */
  chunk?: number;
  log: Logger;
}

/**
 * Rows written per transaction by default. A flush of many links is written in chunks, one per turn of the
 * event loop, so that redirects never wait behind one long transaction.
 */
const CHUNK = 50;

/**
 * Keeps visits in memory so that a redirect never waits for the database: one entry per link, however
 * often it is visited, so a flush writes each row once. Pending counts are written on a timer, as soon as
 * `flushSize` links have visits pending (chhoto-url's rule), and all at once by `stop()` at shutdown.
 */
export class VisitBuffer {
  readonly #options: VisitBufferOptions;
  #pending = new Map<number, VisitCount>();
  #size = 0;
  /** Counts taken from #pending and not yet written. */
  #writing: VisitCount[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushQueued = false;
  #offload: ((counts: VisitCount[]) => boolean) | undefined;

  constructor(options: VisitBufferOptions) {
    this.#options = options;
  }

  /** Visits recorded and not yet written. */
  get pending(): number {
    return this.#size + this.#writing.reduce((sum, c) => sum + c.count, 0);
  }

  /**
   * Hands every flush to `offload` (the background process) instead of writing it here; when it returns
   * false (the process is gone), this buffer writes the flush itself, as without it.
   */
  offloadTo(offload: (counts: VisitCount[]) => boolean): void {
    this.#offload = offload;
  }

  start(): void {
    this.#timer ??= setInterval(() => this.#flushSoon(), this.#options.flushInterval).unref();
  }

  record(linkId: number, at: number): void {
    this.#add(linkId, 1, at);
  }

  /** Takes back counts that were handed out but could not be written; the next flush writes them. */
  restore(counts: Iterable<VisitCount>): void {
    for (const c of counts) this.#add(c.id, c.count, c.lastVisitAt);
  }

  #add(linkId: number, visits: number, at: number): void {
    const count = this.#pending.get(linkId);
    if (count) {
      count.count += visits;
      count.lastVisitAt = Math.max(count.lastVisitAt, at);
    } else {
      this.#pending.set(linkId, { id: linkId, count: visits, lastVisitAt: at });
      if (this.#pending.size >= this.#options.flushSize && !this.#flushQueued) {
        this.#flushQueued = true;
        setImmediate(() => this.#flushSoon());
      }
    }
    this.#size += visits;
  }

  /** Takes what is pending and writes it a chunk per turn of the event loop. */
  #flushSoon(): void {
    this.#flushQueued = false;
    if (this.#writing.length > 0) return; // the running flush picks the rest up next time
    this.#take();
    if (this.#handedOver()) return;
    const step = (): void => {
      if (this.#writeChunk() && this.#writing.length > 0) setImmediate(step);
    };
    step();
  }

  /** Writes everything pending now, in one go. */
  flush(): void {
    this.#take();
    if (this.#handedOver()) return;
    while (this.#writing.length > 0 && this.#writeChunk());
  }

  #take(): void {
    if (this.#size === 0) return;
    this.#writing.push(...this.#pending.values());
    this.#pending = new Map();
    this.#size = 0;
  }

  /**
   * Offloads everything taken, if there is somewhere to offload it to. What stays here is put in link order:
   * neighbouring ids share a page of link_visits, so one transaction rewrites fewer pages.
   */
  #handedOver(): boolean {
    if (this.#writing.length === 0) return false;
    if (!this.#offload?.(this.#writing)) {
      this.#writing.sort(byLinkId);
      return false;
    }
    this.#writing = [];
    return true;
  }

  /** Writes the next chunk; on failure keeps every unwritten count pending for the timer to retry. */
  #writeChunk(): boolean {
    // A step scheduled before stop() may run after it drained everything (and the database closed).
    if (this.#writing.length === 0) return false;
    const chunk = this.#writing.splice(0, this.#options.chunk ?? CHUNK);
    try {
      this.#options.write(chunk);
      return true;
    } catch (err) {
      const failed = [...chunk, ...this.#writing];
      this.#writing = [];
      this.#options.log.error('could not write visits; will retry', { links: failed.length, err });
      // Put them back without queueing an immediate retry: the timer retries, so a busy database is not hammered.
      this.#flushQueued = true;
      this.restore(failed);
      this.#flushQueued = false;
      return false;
    }
  }

  /** Stops the timer and writes what is pending. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.flush();
  }
}

const byLinkId = (a: VisitCount, b: VisitCount): number => a.id - b.id;
