import { fnv1a } from '../core/fnv.ts';

/**
 * A set of one-byte strings (a blocklist's host names, domains and URLs, which are ASCII as targets spell
 * them) kept in typed arrays: their characters one entry after another, and an open-addressing table of
 * where each starts. A list of 100,000 entries is then a few dozen objects for the garbage collector instead
 * of 100,000 strings and a Set: with those, every reload left a generation of strings for a full collection
 * to mark and move, and its pauses held a saturated server (README, _Blocklists_).
 *
 * Only adds and lookups, no deletes: a reload builds a new set. A lookup allocates nothing.
 */
export class PackedSet implements Iterable<string> {
  /**
   * The entries, each as its length (LEB128: one byte below 128) then its characters, in the order added, in
   * chunks that are never copied to grow (a copy would leave the old one to the allocator).
   */
  readonly #chunks: Uint8Array[] = [new Uint8Array(FIRST_CHUNK)];
  /** Bytes used of each chunk. */
  readonly #used: number[] = [0];
  /** Per slot, two numbers: where the entry is (its chunk × CHUNK_SPAN + its offset) plus one (0: empty), and its hash. */
  #table = new Uint32Array(2 * 256);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Whether the set holds `text.slice(from)` (a host's parent domain, without making it). */
  has(text: string, from = 0): boolean {
    return this.#slotOf(text, from, hashOf(text, from)) >= 0;
  }

  /** Adds `text`; a character beyond one byte (none in a normalised host or URL) throws. */
  add(text: string): this {
    const hash = hashOf(text, 0);
    const slot = this.#slotOf(text, 0, hash);
    if (slot >= 0) return this;
    this.#table[2 * ~slot] = this.#append(text) + 1;
    this.#table[2 * ~slot + 1] = hash;
    if (++this.#size * 4 > this.#table.length) this.#grow();
    return this;
  }

  /** Gives back the room the last chunk kept for more entries: for a set that is complete. */
  trim(): this {
    const last = this.#chunks.length - 1;
    if (this.#used[last]! < this.#chunks[last]!.length) this.#chunks[last] = this.#chunks[last]!.slice(0, this.#used[last]);
    return this;
  }

  *[Symbol.iterator](): Iterator<string> {
    for (const [i, chunk] of this.#chunks.entries()) {
      const text = Buffer.from(chunk.buffer, chunk.byteOffset, this.#used[i]);
      for (let at = 0; at < text.length;) {
        const length = lengthAt(chunk, at);
        const start = at + lengthBytes(length);
        yield text.toString('latin1', start, start + length);
        at = start + length;
      }
    }
  }

  /** The slot holding the text, or the one's complement of the empty slot where it would go. */
  #slotOf(text: string, from: number, hash: number): number {
    const table = this.#table;
    const mask = table.length / 2 - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = table[2 * slot]!;
      if (held === 0) return ~slot;
      if (table[2 * slot + 1] === hash && this.#equals(held - 1, text, from)) return slot;
    }
  }

  #equals(at: number, text: string, from: number): boolean {
    const chunk = this.#chunks[Math.floor(at / CHUNK_SPAN)]!;
    let offset = at % CHUNK_SPAN;
    const length = lengthAt(chunk, offset);
    if (length !== text.length - from) return false;
    offset += lengthBytes(length);
    for (let i = 0; i < length; i++) if (chunk[offset + i] !== text.charCodeAt(from + i)) return false;
    return true;
  }

  /** Writes the entry after the others; returns where it is. */
  #append(text: string): number {
    const needed = lengthBytes(text.length) + text.length;
    let last = this.#chunks.length - 1;
    if (this.#used[last]! + needed > this.#chunks[last]!.length) {
      // Twice the last one's size up to CHUNK_SPAN; an entry longer than that has a chunk of its own.
      this.#chunks.push(new Uint8Array(Math.max(needed, Math.min(2 * this.#chunks[last]!.length, CHUNK_SPAN))));
      this.#used.push(0);
      last++;
      if (last >= 2 ** 32 / CHUNK_SPAN - 1) throw new RangeError('PackedSet is full');
    }
    const chunk = this.#chunks[last]!;
    const start = this.#used[last]!;
    let at = start;
    let rest = text.length;
    for (; rest >= 0x80; rest = Math.floor(rest / 0x80)) chunk[at++] = (rest & 0x7f) | 0x80;
    chunk[at++] = rest;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0xff) throw new RangeError(`PackedSet holds one-byte strings; "${text}" has a wider character`);
      chunk[at++] = code;
    }
    this.#used[last] = at;
    return last * CHUNK_SPAN + start;
  }

  /** Doubles the table, so that at most half of its slots are taken. */
  #grow(): void {
    const old = this.#table;
    const table = new Uint32Array(old.length * 2);
    const mask = table.length / 2 - 1;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] === 0) continue;
      let slot = old[i + 1]! & mask;
      while (table[2 * slot] !== 0) slot = (slot + 1) & mask;
      table[2 * slot] = old[i]!;
      table[2 * slot + 1] = old[i + 1]!;
    }
    this.#table = table;
  }
}

/** The first chunk's size; each next one is twice the one before, up to CHUNK_SPAN. */
const FIRST_CHUNK = 1 << 10;
/** The largest chunk, and the stride of chunk numbers in a stored position. */
const CHUNK_SPAN = 1 << 20;

/** The length written at `at` (LEB128). */
function lengthAt(chunk: Uint8Array, at: number): number {
  let length = 0;
  for (let scale = 1; ; scale *= 0x80) {
    const byte = chunk[at++]!;
    length += (byte & 0x7f) * scale;
    if (byte < 0x80) return length;
  }
}

/** How many bytes LEB128 spells `length` in. */
function lengthBytes(length: number): number {
  let bytes = 1;
  while (length >= 0x80) {
    length = Math.floor(length / 0x80);
    bytes++;
  }
  return bytes;
}

/** FNV-1a of `text` from `from` on, its high bits folded into the low ones a table's mask keeps. */
function hashOf(text: string, from: number): number {
  const hash = fnv1a(text, from);
  return (hash ^ (hash >>> 16)) >>> 0;
}
