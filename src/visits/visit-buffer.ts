import type { Logger } from '../log.ts';
import { addCount, inLinkOrder, type VisitCount } from './visit.ts';
import { countVisits, VisitLog, type VisitEvents } from './visit-events.ts';

export interface VisitBufferOptions {
  /** Writes one chunk in one transaction; may throw or reject (e.g. database busy), the chunk is then kept. */
  write: (counts: VisitCount[]) => unknown;
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
 * Events that trigger a hand-over to the background writer whatever else: under load each one stays a
 * small message (64 KiB) whose buffers are reused, rather than a second's worth at once.
 */
const MAX_EVENTS = 4096;

/**
 * Keeps visits in memory so that a redirect never waits for the database: recording one appends an event.
 * Pending events are handed on on a timer, as soon as `flushSize` distinct links have visits pending
 * (chhoto-url's rule), and all at once by `stop()` at shutdown: whole, as events, to `offloadTo`'s taker
 * (the background writer; also every MAX_EVENTS events), or else merged into one count per link and
 * written here in chunks.
 */
export class VisitBuffer {
  readonly #options: VisitBufferOptions;
  readonly #events = new VisitLog();
  /** Links with events pending: what `flushSize` counts. */
  readonly #links = new Set<number>();
  /** Counts given back by `restore`, written with the next flush. */
  #restored = new Map<number, VisitCount>();
  /** Counts taken and not yet written. */
  #writing: VisitCount[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushQueued = false;
  #offload: ((events: VisitEvents, giveBack: (events: VisitEvents) => void) => boolean) | undefined;

  constructor(options: VisitBufferOptions) {
    this.#options = options;
  }

  /** Visits recorded and not yet written (or handed over). */
  get pending(): number {
    let sum = this.#events.length;
    for (const c of this.#restored.values()) sum += c.count;
    for (const c of this.#writing) sum += c.count;
    return sum;
  }

  /**
   * Hands every flush of events to `offload` (the background writer) instead of writing it here; when it
   * returns false (the writer is gone), this buffer writes the flush itself, as without it. A hand-over
   * that fails later comes back through `giveBack` and is written with the next flush.
   */
  offloadTo(offload: (events: VisitEvents, giveBack: (events: VisitEvents) => void) => boolean): void {
    this.#offload = offload;
  }

  start(): void {
    this.#timer ??= setInterval(() => this.#flushSoon(), this.#options.flushInterval).unref();
  }

  record(linkId: number, at: number): void {
    this.#events.record(linkId, at);
    this.#links.add(linkId);
    if (this.#flushQueued) return;
    if (this.#links.size >= this.#options.flushSize || (this.#offload !== undefined && this.#events.length >= MAX_EVENTS)) {
      this.#flushQueued = true;
      setImmediate(() => this.#flushSoon());
    }
  }

  /**
   * Adds events recorded elsewhere (the server's, in the background writer; or a hand-over that failed),
   * merged per link at once; they are written by the next flush, which they never trigger.
   */
  addEvents(events: VisitEvents): void {
    this.restore(countVisits(events));
  }

  /** Takes back counts that could not be written; the next flush writes them. */
  restore(counts: Iterable<VisitCount>): void {
    for (const c of counts) addCount(this.#restored, c.id, c.count, c.lastVisitAt);
  }

  /** Takes what is pending and writes it a chunk per turn of the event loop. */
  #flushSoon(): void {
    this.#flushQueued = false;
    if (this.#writing.length > 0) return; // the running flush picks the rest up next time
    this.#take();
    const step = (): void => {
      if (this.#writeChunk() && this.#writing.length > 0) setImmediate(step);
    };
    step();
  }

  /** Hands on everything pending now, in one go. */
  flush(): void {
    this.#take();
    while (this.#writing.length > 0 && this.#writeChunk());
  }

  /**
   * Offloads the events, if there is somewhere to offload them to; what stays here is merged per link and
   * put in link order: neighbouring ids share a page, so one transaction rewrites fewer pages.
   */
  #take(): void {
    this.#links.clear();
    let events = this.#events.length > 0 ? this.#events.take() : undefined;
    if (events && this.#offload?.(events, (back) => this.addEvents(back))) events = undefined;
    if (!events && this.#restored.size === 0) return;
    const counts = this.#restored;
    this.#restored = new Map();
    for (const c of this.#writing) addCount(counts, c.id, c.count, c.lastVisitAt);
    for (let i = 0; i < (events?.length ?? 0); i++) addCount(counts, events!.linkIds[i]!, 1, events!.times[i]!);
    this.#writing = inLinkOrder(counts);
  }

  /** Writes the next chunk; on failure keeps every unwritten count for the timer to retry. */
  #writeChunk(): boolean {
    // A step scheduled before stop() may run after it drained everything (and the database closed).
    if (this.#writing.length === 0) return false;
    const chunk = this.#writing.splice(0, this.#options.chunk ?? CHUNK);
    try {
      const written = this.#options.write(chunk);
      if (written instanceof Promise) written.catch((err: unknown) => this.#failed(chunk, err));
      return true;
    } catch (err) {
      const failed = [...chunk, ...this.#writing];
      this.#writing = [];
      this.#failed(failed, err);
      return false;
    }
  }

  /** Keeps counts that could not be written; the timer retries, so a busy database is not hammered. */
  #failed(counts: VisitCount[], err: unknown): void {
    this.#options.log.error('could not write visits; will retry', { links: counts.length, err });
    this.restore(counts);
  }

  /** Stops the timer and hands on what is pending. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.flush();
  }
}
