import { Histogram } from '../core/histogram.ts';
import { isHeader } from '../core/raw-headers.ts';
import type { Logger } from '../core/log.ts';
import { VisitLog, type VisitEvents } from './visit-events.ts';

export interface VisitBufferOptions {
  /** Takes a flush of events to be classified and written (the visit recorder); never throws. */
  write: (events: VisitEvents) => void;
  /** Distinct links with pending visits that trigger a flush before the timer does. */
  flushSize: number;
  flushInterval: number;
  /** Each flush is logged at level debug. */
  log?: Logger;
}

/**
 * Events that trigger a hand-over to the background writer whatever else: under load each one stays a
 * small message rather than a second's worth at once, and holds the event loop a fraction of a millisecond
 * (the hand-over's time grows with its events, and a redirect waiting behind it waits that long).
 */
const MAX_EVENTS = 1024;

/** Upper bounds of the flush duration buckets, in seconds. */
export const FLUSH_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Keeps visits in memory so that a redirect never waits for anything: recording one appends an event.
 * Pending events are handed on on a timer, as soon as `flushSize` distinct links have visits pending
 * (chhoto-url's rule), and all at once by `stop()` at shutdown: to `offloadTo`'s taker (the background
 * writer; also every MAX_EVENTS events), or else to `write` in this process.
 */
export class VisitBuffer {
  readonly #options: VisitBufferOptions;
  readonly #events = new VisitLog();
  /** Links with events pending: what `flushSize` counts. */
  readonly #links = new Set<number>();
  #timer: NodeJS.Timeout | undefined;
  #flushQueued = false;
  #offload: ((events: VisitEvents, giveBack: (events: VisitEvents) => void) => boolean) | undefined;
  /** How long each flush held the event loop, in ms: the hand-over, or the start of the write here. */
  readonly flushTimes = new Histogram(FLUSH_BUCKETS);

  constructor(options: VisitBufferOptions) {
    this.#options = options;
  }

  /** Visits recorded and not yet handed on. */
  get pending(): number {
    return this.#events.length;
  }

  /**
   * Hands every flush to `offload` (the background writer) instead of writing it here; when it returns
   * false (the writer is gone), the flush is written here, as without it. A hand-over that fails later
   * comes back through `giveBack` and goes with the next flush.
   */
  offloadTo(offload: (events: VisitEvents, giveBack: (events: VisitEvents) => void) => boolean): void {
    this.#offload = offload;
  }

  start(): void {
    this.#timer ??= setInterval(() => this.flush(), this.#options.flushInterval).unref();
  }

  /**
   * Records a followed redirect from the client at `client`, with the request's headers as Node received
   * them (name, value, name, value…), the URL of the A/B split's variant it went to ('' for none) and the name
   * of the redirect rule that decided ('' for a link without rules): only references are kept, nothing is parsed.
   */
  record(linkId: number, at: number, client: string, rawHeaders: readonly string[], variant = '', rule = ''): void {
    // The first of each, as Node's req.headers would give it (the redirect's bot check reads that).
    let userAgent: string | undefined;
    let referrer: string | undefined;
    let language: string | undefined;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!;
      if (name.length === 10 && userAgent === undefined && isHeader(name, 'user-agent')) userAgent = rawHeaders[i + 1]!;
      else if (name.length === 7 && referrer === undefined && isHeader(name, 'referer')) referrer = rawHeaders[i + 1]!;
      else if (name.length === 15 && language === undefined && isHeader(name, 'accept-language')) language = rawHeaders[i + 1]!;
    }
    this.#events.record(linkId, at, client, userAgent ?? '', referrer ?? '', language ?? '', variant, rule);
    this.#links.add(linkId);
    if (this.#flushQueued) return;
    if (this.#links.size >= this.#options.flushSize || (this.#offload !== undefined && this.#events.length >= MAX_EVENTS)) {
      this.#flushQueued = true;
      setImmediate(() => this.flush());
    }
  }

  /** Adds events recorded elsewhere (the server's, in the background writer; or a hand-over that failed). */
  addEvents(events: VisitEvents): void {
    this.#events.append(events);
  }

  /** Hands on everything pending now. */
  flush(): void {
    this.#flushQueued = false;
    this.#links.clear();
    if (this.#events.length === 0) return;
    const start = performance.now();
    const events = this.#events.take();
    if (!this.#offload?.(events, (back) => this.addEvents(back))) this.#options.write(events);
    const ms = performance.now() - start;
    this.flushTimes.observe(ms);
    this.#options.log?.debug('visits handed on', { visits: events.length, ms: Math.round(ms * 1000) / 1000 });
  }

  /** Stops the timer and hands on what is pending. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.flush();
  }
}
