import { LRUCache } from 'lru-cache';
import { Doorkeeper } from './doorkeeper.ts';
import type { Target } from '../links/link.ts';
import type { Robots } from '../links/robots.ts';

export interface RedirectCacheOptions {
  /** Most links kept; 0 turns the cache off. */
  size: number;
  /** How long an unknown code is remembered as unknown, in ms; 0 turns that off. */
  negativeTtl: number;
  now: () => number;
}

const NEGATIVE_ENTRIES = 10_000;

/** Where each kind of lookup is counted in `#lookups`. */
const HIT = 0;
const UNKNOWN_HIT = 1;
const MISS = 2;

/** What the cache has answered so far, for /metrics. */
export interface CacheStats {
  /** Lookups answered with a target. */
  hits: number;
  /** Lookups answered "known not to exist" (the negative cache). */
  unknownHits: number;
  /** Lookups the cache could not answer: the store was asked. */
  misses: number;
  /** Links held now. */
  size: number;
}

/** The doorkeeper's window: the cache size, at most 1M keys (1 MiB of bits). */
const MAX_WINDOW = 1 << 20;

/**
 * The key of an address: the default domain's (id 0) is its code, so that a single-domain redirect builds no
 * string; another domain's is `domain/code` (a `/` is in no code).
 */
function keyOf(domain: number, code: string): string {
  return domain === 0 ? code : `${domain}/${code}`;
}

/**
 * The redirect cache: (domain, code) -> target, plus a short-lived memory of unknown codes so that a scan of
 * random codes does not become a scan of the database. A link is kept from its first lookup while the cache has
 * room, and once it is full from its second (see Doorkeeper), so that a sweep of links visited once evicts
 * nothing; an unknown code always from its second, so that a link just created by another process is not
 * answered 404 after a single earlier ask. Writers must call `forget` on any change.
 */
export class RedirectCache {
  readonly #known: LRUCache<string, Target> | undefined;
  readonly #unknown: LRUCache<string, true> | undefined;
  readonly #door: Doorkeeper;
  /** Counted in a typed array: a lookup allocates nothing. */
  readonly #lookups = new Float64Array(3);
  /** Each domain's robots.txt (links/robots.ts), made off the redirect's path when asked for. */
  readonly #robots = new Map<number, Robots>();

  constructor(options: RedirectCacheOptions) {
    const perf = { now: options.now };
    this.#known = options.size > 0 ? new LRUCache({ max: options.size }) : undefined;
    this.#unknown =
      options.negativeTtl > 0 ? new LRUCache({ max: NEGATIVE_ENTRIES, ttl: options.negativeTtl, ttlAutopurge: false, perf }) : undefined;
    this.#door = new Doorkeeper(Math.min(Math.max(options.size, NEGATIVE_ENTRIES), MAX_WINDOW));
  }

  /** The cached target, `null` if the address is known to have no link, `undefined` if the cache cannot tell. */
  get(domain: number, code: string): Target | null | undefined {
    const key = keyOf(domain, code);
    const target = this.#known?.get(key);
    if (target !== undefined) {
      this.#lookups[HIT]! += 1;
      return target;
    }
    if (this.#unknown?.get(key)) {
      this.#lookups[UNKNOWN_HIT]! += 1;
      return null;
    }
    this.#lookups[MISS]! += 1;
    return undefined;
  }

  stats(): CacheStats {
    const lookups = this.#lookups;
    return { hits: lookups[HIT]!, unknownHits: lookups[UNKNOWN_HIT]!, misses: lookups[MISS]!, size: this.#known?.size ?? 0 };
  }

  /** Keeps what a lookup found: a link at once while the cache has room, otherwise if looked up before in the doorkeeper's window. */
  remember(domain: number, code: string, target: Target | undefined): void {
    const key = keyOf(domain, code);
    // Asked every time, so that the doorkeeper also knows the lookups made while there was room.
    const again = this.#door.admit(key);
    if (target) {
      const known = this.#known;
      if (known && (again || known.size < known.max)) known.set(key, target);
    } else if (again) this.#unknown?.set(key, true);
  }

  forget(domain: number, code: string): void {
    const key = keyOf(domain, code);
    this.#known?.delete(key);
    this.#unknown?.delete(key);
    this.#robots.delete(domain);
  }

  /** The domain's robots.txt as last made, while it is right at `at` (every change of one of its links drops it). */
  robots(domain: number, at: number): Robots | undefined {
    const robots = this.#robots.get(domain);
    return robots && (robots.until === null || at < robots.until) ? robots : undefined;
  }

  rememberRobots(domain: number, robots: Robots): void {
    this.#robots.set(domain, robots);
  }
}
