import { fnv1a } from '../core/fnv.ts';

/**
 * Lets a key into a cache only the second time it is asked for within a window (TinyLFU's doorkeeper). A
 * sweep over many links each visited once then leaves the cache to the links visited again, instead of
 * evicting them for entries that are never read (docs/ARCHITECTURE.md has the measurements).
 *
 * A bit set with two probes per key, emptied after `window` new keys: no allocation per call, 8 bits per
 * key of the window. A false positive (under 5% of keys, about 1% measured over a window) only admits a
 * key on its first ask, as without a doorkeeper.
 */
export class Doorkeeper {
  readonly #bits: Uint32Array;
  readonly #mask: number;
  readonly #window: number;
  #added = 0;

  constructor(window: number) {
    let size = 32;
    while (size < window * 8) size *= 2;
    this.#bits = new Uint32Array(size / 32);
    this.#mask = size - 1;
    this.#window = window;
  }

  /** True when `key` was seen in the current window; otherwise notes it and returns false. */
  admit(key: string): boolean {
    // FNV-1a, then a second probe from the same hash's other half.
    const hash = fnv1a(key);
    const first = hash & this.#mask;
    const second = (Math.imul(hash ^ (hash >>> 15), 0x2c1b3c6d) >>> 0) & this.#mask;
    if (this.#has(first) && this.#has(second)) return true;
    this.#set(first);
    this.#set(second);
    if (++this.#added >= this.#window) {
      this.#bits.fill(0);
      this.#added = 0;
    }
    return false;
  }

  #has(bit: number): boolean {
    return (this.#bits[bit >>> 5]! & (1 << (bit & 31))) !== 0;
  }

  #set(bit: number): void {
    this.#bits[bit >>> 5]! |= 1 << (bit & 31);
  }
}
