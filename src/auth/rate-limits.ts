import type { Config } from '../config.ts';
import { rateLimited, type AppError } from '../core/errors.ts';

/** The limits, by the name their refusals are counted under (what /metrics shows). */
export type LimitName = 'creation' | 'anonymous_creation' | 'login' | 'unlock' | 'api_key' | 'not_found';

/**
 * Keys one limit remembers at most: a flood of distinct clients pushes out the least recently counted,
 * never memory (an account's key, counted by every attempt on it, stays).
 */
export const MAX_KEYS = 10_000;

/** Creations, API-key failures and 404s are counted per minute. */
const MINUTE = 60_000;

/** Failed logins and wrong link passwords: the first wait, which doubles with each further failure… */
const FIRST_WAIT = 1000;
/** …up to this. */
const LONGEST_WAIT = 15 * 60_000;

export interface LimitRule {
  name: LimitName;
  /** Events a key may have before it must wait; 0 turns the limit off. */
  limit: number;
  /**
   * A window: a key's events are counted from its first in a window of this many ms, and a key at the
   * limit waits until its window ends. For a growing limit, the first wait.
   */
  window: number;
  /**
   * Failures that must not be guessed through (passwords): once at the limit the key waits `window`, and
   * each further failure doubles the wait, up to `growTo`. The count lasts until a success.
   */
  growTo?: number;
  /** What the 429 says, before "; try again in N s". */
  message: string;
  now: () => number;
}

interface Entry {
  /** The first event of the window (growing limits: of the count). */
  start: number;
  count: number;
  /** The key must wait until then; 0 while it need not. */
  until: number;
}

/**
 * One per-client limit, the mechanism every limit of kurz uses: counts events per key (a client address,
 * an account, a client and a link) and says when a key must wait, as the 429 to answer with. Memory is
 * bounded by MAX_KEYS. Checking a key costs one field test while no key waits, and one map lookup for a key
 * with nothing counted: the redirect checks every request.
 */
export class RateLimit {
  readonly name: LimitName;
  readonly #rule: LimitRule;
  /** In the order they were last counted: the first is the one to forget when full. */
  readonly #entries = new Map<string, Entry>();
  /** The latest time any key waits until; 0 once that has passed. */
  #waitingUntil = 0;
  #refused = 0;

  constructor(rule: LimitRule) {
    this.name = rule.name;
    this.#rule = rule;
  }

  /** Requests refused so far. */
  get refused(): number {
    return this.#refused;
  }

  /** Keys remembered now (at most MAX_KEYS). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * False once no key waits (none ever did, or the last wait is known to have passed): then `check` looks
   * nothing up, which is what the redirect asks before it works out the client.
   */
  get mayWait(): boolean {
    return this.#waitingUntil !== 0;
  }

  /**
   * The 429 for `key` (or `other`, whichever waits longer) while it must wait, counted as a refusal; else
   * undefined. A key with nothing counted costs one map lookup and no clock reading.
   */
  check(key: string, other?: string): AppError | undefined {
    if (this.#waitingUntil === 0) return undefined;
    const until = Math.max(this.#entries.get(key)?.until ?? 0, other === undefined ? 0 : (this.#entries.get(other)?.until ?? 0));
    return until === 0 ? undefined : this.#refusal(until);
  }

  /** The 429 for a key that waits until `until`, counted, or undefined once that has passed. */
  #refusal(until: number): AppError | undefined {
    const at = this.#rule.now();
    if (at >= this.#waitingUntil) this.#waitingUntil = 0;
    if (at >= until) return undefined;
    this.#refused++;
    return rateLimited(this.#rule.message, until - at);
  }

  /**
   * For guesses checked by a slow hash (logins, link passwords): the 429 while any of `keys` must wait
   * (counted as a refusal), else counts a failure of every key at once, before the check runs, so that
   * attempts arriving meanwhile already see it. A right guess then calls `succeeded` to forget it; a wrong
   * one leaves it counted.
   */
  attempt(...keys: string[]): AppError | undefined {
    if (this.#waitingUntil !== 0) {
      let until = 0;
      for (const key of keys) until = Math.max(until, this.#entries.get(key)?.until ?? 0);
      const refused = until === 0 ? undefined : this.#refusal(until);
      if (refused) return refused;
    }
    for (const key of keys) this.#count(key, 1);
    return undefined;
  }

  /** For events that are limited themselves (creations): the 429 while `key` must wait, else counts `n` events. */
  take(key: string, n = 1): AppError | undefined {
    const refused = this.check(key);
    if (!refused) this.#count(key, n);
    return refused;
  }

  /** Counts one failure (a wrong password, an unknown code) of `key`. */
  failed(key: string): void {
    this.#count(key, 1);
  }

  /** Forgets the failures of `keys`. */
  succeeded(...keys: string[]): void {
    for (const key of keys) this.#entries.delete(key);
  }

  #count(key: string, n: number): void {
    const { limit, window, growTo, now } = this.#rule;
    if (limit === 0) return;
    const at = now();
    if (at >= this.#waitingUntil) this.#waitingUntil = 0;
    let entry = this.#entries.get(key);
    // Taken out and put back last: the map stays in the order of last counting.
    if (entry) this.#entries.delete(key);
    if (!entry || (growTo === undefined && at - entry.start >= window)) entry = { start: at, count: 0, until: 0 };
    entry.count += n;
    if (entry.count >= limit) {
      entry.until = growTo === undefined ? entry.start + window : at + Math.min(growTo, window * 2 ** (entry.count - limit));
      this.#waitingUntil = Math.max(this.#waitingUntil, entry.until);
    }
    this.#entries.set(key, entry);
    if (this.#entries.size > MAX_KEYS) this.#entries.delete(this.#entries.keys().next().value!);
  }
}

/** Every per-client limit of a server, each with its setting (see config.ts). */
export interface RateLimits {
  /** Links created per client per minute with an API key or a session (a batch counts its links). */
  readonly creation: RateLimit;
  /** Links shortened per client per minute through the public form. */
  readonly anonymousCreation: RateLimit;
  /**
   * Failed logins: per client address and per account, or per device for a browser that logged in before
   * (its device cookie); then a growing wait.
   */
  readonly login: RateLimit;
  /** Wrong passwords of a password link, per client and link and per link from all clients: then a growing wait. */
  readonly unlock: RateLimit;
  /** Requests with a wrong API key per client per minute. */
  readonly apiKey: RateLimit;
  /** Unknown codes and paths per client per minute: then every request of the client waits (code scanning). */
  readonly notFound: RateLimit;
}

export type LimitSettings = Pick<
  Config,
  'creationRateLimit' | 'anonymousRateLimit' | 'loginRateLimit' | 'unlockRateLimit' | 'apiKeyRateLimit' | 'notFoundRateLimit'
>;

/** The limits of `config`, on the clock `now`. */
export function createRateLimits(config: LimitSettings, now: () => number): RateLimits {
  const perMinute = (name: LimitName, limit: number, message: string) => new RateLimit({ name, limit, window: MINUTE, message, now });
  const growing = (name: LimitName, limit: number, message: string) =>
    new RateLimit({ name, limit, window: FIRST_WAIT, growTo: LONGEST_WAIT, message, now });
  return {
    creation: perMinute('creation', config.creationRateLimit, 'too many links created from this address in the last minute'),
    anonymousCreation: perMinute('anonymous_creation', config.anonymousRateLimit, 'you have shortened many links in the last minute'),
    login: growing('login', config.loginRateLimit, 'too many failed logins'),
    unlock: growing('unlock', config.unlockRateLimit, 'too many wrong passwords'),
    apiKey: perMinute('api_key', config.apiKeyRateLimit, 'too many requests with a wrong API key from this address'),
    notFound: perMinute('not_found', config.notFoundRateLimit, 'too many requests for unknown links from this address'),
  };
}

/** Refusals so far, by limit: what /metrics shows as a counter with a `limit` label. */
export function refusalCounts(limits: RateLimits): Array<{ limit: LimitName; refused: number }> {
  return Object.values(limits).map((l: RateLimit) => ({ limit: l.name, refused: l.refused }));
}
