import { LRUCache } from 'lru-cache';

/**
 * Keys remembered at most: a flood of distinct clients pushes out the least recent, never memory (an account's
 * key, touched by every attempt on it, stays). lru-cache allocates its index for `max` up front.
 */
const MAX_KEYS = 10_000;

export interface FailureThrottleOptions {
  /** Failures allowed before the first wait. */
  free: number;
  /** The first wait, in ms; each further failure doubles it. */
  base: number;
  /** The longest wait, in ms. */
  max: number;
  now: () => number;
}

/**
 * A growing delay after repeated failures, per key (a client, an account, a link): after `free` failures
 * each attempt must wait base, 2·base, 4·base… up to max. A success clears the key.
 */
export class FailureThrottle {
  readonly #options: FailureThrottleOptions;
  readonly #failures: LRUCache<string, { count: number; until: number }>;

  constructor(options: FailureThrottleOptions) {
    this.#options = options;
    this.#failures = new LRUCache({ max: MAX_KEYS });
  }

  /** Milliseconds until `key` may try again; 0 when it may now. */
  wait(key: string): number {
    const entry = this.#failures.get(key);
    return entry ? Math.max(0, entry.until - this.#options.now()) : 0;
  }

  failed(key: string): void {
    const { free, base, max, now } = this.#options;
    const count = (this.#failures.get(key)?.count ?? 0) + 1;
    const delay = count <= free ? 0 : Math.min(max, base * 2 ** (count - free - 1));
    this.#failures.set(key, { count, until: now() + delay });
  }

  succeeded(key: string): void {
    this.#failures.delete(key);
  }
}

/** At most `limit` events per key in each window of `window` ms. */
export class RateLimit {
  readonly #limit: number;
  readonly #window: number;
  readonly #now: () => number;
  readonly #counts = new LRUCache<string, { start: number; count: number }>({ max: MAX_KEYS });

  constructor(limit: number, window: number, now: () => number) {
    this.#limit = limit;
    this.#window = window;
    this.#now = now;
  }

  /** Counts one event for `key`; returns 0 when allowed, else the ms until the window ends. */
  take(key: string): number {
    const now = this.#now();
    let entry = this.#counts.get(key);
    if (!entry || now - entry.start >= this.#window) {
      entry = { start: now, count: 0 };
      this.#counts.set(key, entry);
    }
    if (entry.count >= this.#limit) return entry.start + this.#window - now;
    entry.count++;
    return 0;
  }
}
