import { createCipheriv } from 'node:crypto';
import type { Cipheriv } from 'node:crypto';

/** FF1 over numeral strings of one radix, each numeral a number in [0, radix). */
export interface Ff1 {
  readonly radix: number;
  /** Shortest numeral string allowed: the smallest n ≥ 2 with radix^n ≥ 1,000,000 (SP 800-38G Rev. 1). */
  readonly minLength: number;
  /** Throws a RangeError for a string shorter than minLength or a numeral outside the radix. */
  encrypt(numerals: readonly number[], tweak?: Uint8Array): number[];
  decrypt(numerals: readonly number[], tweak?: Uint8Array): number[];
  /**
   * Encrypts many numeral strings of one length, as `encrypt` would one by one, for a fraction of the cost:
   * each round is one AES call for all of them (an AES call costs ~1 µs however few blocks it gets).
   * Throws a RangeError when the lengths differ.
   */
  encryptMany(list: ReadonlyArray<readonly number[]>, tweak?: Uint8Array): number[][];
}

/** FF1 over text, each character of `alphabet` standing for its index. */
export interface Ff1Text {
  readonly alphabet: string;
  readonly minLength: number;
  /** Throws a RangeError for text too short or holding a character outside the alphabet. */
  encrypt(text: string, tweak?: Uint8Array): string;
  decrypt(text: string, tweak?: Uint8Array): string;
  /** `encryptMany` of Ff1, for texts of one length. */
  encryptMany(texts: readonly string[], tweak?: Uint8Array): string[];
}

const ROUNDS = 10;
const BLOCK = 16;
const MIN_DOMAIN = 1_000_000;
const MAX_RADIX = 2 ** 16;
// Below this, radix^m * 256 stays under 2^53, so a round can use exact number math instead of BigInt.
const NUMBER_LIMIT = 2 ** 45;
const EMPTY = new Uint8Array(0);

// Everything about one (length, tweak) pair that does not depend on the numerals.
interface Layout {
  readonly u: number;
  readonly v: number;
  readonly b: number;
  readonly d: number;
  readonly exact: boolean;
  readonly modU: number;
  readonly modV: number;
  readonly bigModU: bigint;
  readonly bigModV: bigint;
  // CBC-MAC state after P and the blocks of Q that hold only the tweak and padding.
  readonly prefix: Buffer;
  // The rest of Q: [i]1 at `roundAt`, NUMradix(B) in the last b bytes, rewritten every round.
  readonly tail: Buffer;
  readonly roundAt: number;
}

/** Creates an FF1 cipher (NIST SP 800-38G) with an AES-128/192/256 key and a default tweak. */
export function createFf1(key: Uint8Array, radix: number, tweak: Uint8Array = EMPTY): Ff1 {
  if (!Number.isInteger(radix) || radix < 2 || radix > MAX_RADIX) {
    throw new RangeError(`FF1 radix must be an integer in 2..${MAX_RADIX}, got ${radix}`);
  }
  if (key.length !== 16 && key.length !== 24 && key.length !== 32) {
    throw new RangeError(`FF1 key must be 16, 24 or 32 bytes, got ${key.length}`);
  }
  const ecb: Cipheriv = createCipheriv(`aes-${key.length * 8}-ecb`, key, null);
  ecb.setAutoPadding(false);
  const scratch = Buffer.alloc(BLOCK);
  const defaultTweak = Buffer.from(tweak);
  const layouts = new Map<number, Layout>();

  let minLength = 2;
  while (radix ** minLength < MIN_DOMAIN) minLength++;

  // CBC-MAC step: Y = CIPH(Y xor X), the PRF of SP 800-38G Algorithm 6.
  function chain(state: Buffer, data: Buffer, at: number): Buffer {
    for (let k = 0; k < BLOCK; k++) scratch[k] = state[k]! ^ data[at + k]!;
    return ecb.update(scratch);
  }

  function layoutFor(n: number, t: Buffer): Layout {
    const u = Math.floor(n / 2);
    const v = n - u;
    const b = Math.ceil((BigInt(radix) ** BigInt(v) - 1n).toString(2).length / 8);
    const d = 4 * Math.ceil(b / 4) + 4;
    const pad = (((-t.length - b - 1) % BLOCK) + BLOCK) % BLOCK;
    const pq = Buffer.alloc(BLOCK + t.length + pad + 1 + b);
    pq.set([1, 2, 1, (radix >>> 16) & 0xff, (radix >>> 8) & 0xff, radix & 0xff, 10, u & 0xff]);
    pq.writeUInt32BE(n, 8);
    pq.writeUInt32BE(t.length, 12);
    t.copy(pq, BLOCK);
    const fixedBlocks = Math.floor((BLOCK + t.length + pad) / BLOCK);
    let prefix: Buffer = Buffer.alloc(BLOCK);
    for (let j = 0; j < fixedBlocks; j++) prefix = chain(prefix, pq, j * BLOCK);
    const tail = Buffer.from(pq.subarray(fixedBlocks * BLOCK));
    const exact = radix ** v < NUMBER_LIMIT;
    return {
      u,
      v,
      b,
      d,
      exact,
      modU: radix ** u,
      modV: radix ** v,
      bigModU: BigInt(radix) ** BigInt(u),
      bigModV: BigInt(radix) ** BigInt(v),
      prefix,
      tail,
      roundAt: tail.length - b - 1,
    };
  }

  function layout(n: number, tweak: Uint8Array | undefined): Layout {
    if (tweak !== undefined) return layoutFor(n, Buffer.from(tweak));
    let found = layouts.get(n);
    if (found === undefined) {
      found = layoutFor(n, defaultTweak);
      layouts.set(n, found);
    }
    return found;
  }

  // R of step 6ii for each of `count` messages (the tails of step 6i, one after another in `messages`): the
  // CBC-MAC chains of all of them advance together, one ECB call per block position.
  function prfs(l: Layout, messages: Buffer, count: number): Buffer {
    const size = l.tail.length;
    let states = Buffer.alloc(count * BLOCK);
    for (let k = 0; k < count; k++) l.prefix.copy(states, k * BLOCK);
    const x = Buffer.allocUnsafe(count * BLOCK);
    for (let at = 0; at < size; at += BLOCK) {
      for (let k = 0; k < count; k++) {
        for (let j = 0; j < BLOCK; j++) x[k * BLOCK + j] = states[k * BLOCK + j]! ^ messages[k * size + at + j]!;
      }
      states = ecb.update(x);
    }
    return states;
  }

  // R of step 6ii; the caller has written [i] and NUMradix(B) into the tail.
  function prf(l: Layout): Buffer {
    return prfs(l, l.tail, 1);
  }

  // S of step 6iii as an integer (only called when d > 16, i.e. on the BigInt path).
  function bigS(r: Buffer, d: number): bigint {
    const s = Buffer.alloc(Math.ceil(d / BLOCK) * BLOCK);
    r.copy(s, 0);
    const counter = Buffer.alloc(BLOCK);
    for (let j = 1; j * BLOCK < d; j++) {
      counter.writeUInt32BE(j, 12);
      const x = Buffer.alloc(BLOCK);
      for (let k = 0; k < BLOCK; k++) x[k] = r[k]! ^ counter[k]!;
      ecb.update(x).copy(s, j * BLOCK);
    }
    return BigInt('0x' + s.toString('hex', 0, d));
  }

  function check(numerals: readonly number[]): void {
    if (numerals.length < minLength || numerals.length > 0xffffffff) {
      throw new RangeError(`FF1 radix ${radix} needs at least ${minLength} numerals, got ${numerals.length}`);
    }
    for (const x of numerals) {
      if (!Number.isInteger(x) || x < 0 || x >= radix) {
        throw new RangeError(`FF1 numeral ${x} is outside radix ${radix}`);
      }
    }
  }

  // Encrypt and decrypt share one loop: decryption walks the rounds backwards, swaps the roles
  // of A and B and subtracts instead of adding (step 6 of Algorithm 8).
  function run(list: ReadonlyArray<readonly number[]>, tweak: Uint8Array | undefined, decrypt: boolean): number[][] {
    const n = list[0]?.length ?? 0;
    for (const numerals of list) {
      check(numerals);
      if (numerals.length !== n) throw new RangeError(`FF1 strings of one call must have one length, got ${n} and ${numerals.length}`);
    }
    if (list.length === 0) return [];
    const l = layout(n, tweak);
    return l.exact ? runNumbers(list, l, decrypt) : list.map((numerals) => runBig(numerals, l, decrypt));
  }

  function runNumbers(list: ReadonlyArray<readonly number[]>, l: Layout, decrypt: boolean): number[][] {
    const { u, b, d, tail, roundAt } = l;
    const count = list.length;
    const n = list[0]!.length;
    const size = tail.length;
    // `c` is the half that feeds the PRF: B when encrypting, A when decrypting.
    const as = new Float64Array(count);
    const cs = new Float64Array(count);
    for (let k = 0; k < count; k++) {
      const first = numberOf(list[k]!, 0, u);
      const second = numberOf(list[k]!, u, n);
      as[k] = decrypt ? second : first;
      cs[k] = decrypt ? first : second;
    }
    const messages = count === 1 ? tail : Buffer.alloc(count * size);
    for (let r = 0; r < ROUNDS; r++) {
      const i = decrypt ? ROUNDS - 1 - r : r;
      tail[roundAt] = i;
      for (let k = 0; k < count; k++) {
        if (count > 1) tail.copy(messages, k * size);
        // c < 2^45: split it into 32-bit words so the bytes come from shifts, not float division.
        const c = cs[k]!;
        const low = c >>> 0;
        const high = (c - low) / 0x1_0000_0000;
        const end = (k + 1) * size - 1;
        for (let j = 0; j < b; j++) {
          messages[end - j] = j < 4 ? low >>> (8 * j) : high >>> (8 * (j - 4));
        }
      }
      const s = prfs(l, messages, count);
      const m = i % 2 === 0 ? l.modU : l.modV;
      for (let k = 0; k < count; k++) {
        let y = 0;
        for (let j = 0; j < d; j++) {
          y = y * 256 + s[k * BLOCK + j]!;
          if (y >= NUMBER_LIMIT) y %= m;
        }
        y %= m;
        const a = as[k]!;
        let next = decrypt ? a - y : a + y;
        if (next < 0) next += m;
        else if (next >= m) next -= m;
        as[k] = cs[k]!;
        cs[k] = next;
      }
    }
    return list.map((_, k) => {
      const out = new Array<number>(n);
      writeNumerals(out, 0, u, decrypt ? cs[k]! : as[k]!, radix);
      writeNumerals(out, u, n, decrypt ? as[k]! : cs[k]!, radix);
      return out;
    });
  }

  function runBig(numerals: readonly number[], l: Layout, decrypt: boolean): number[] {
    const { u, b, d, tail, roundAt } = l;
    const big = BigInt(radix);
    const first = bigOf(numerals, 0, u, big);
    const second = bigOf(numerals, u, numerals.length, big);
    let a = decrypt ? second : first;
    let c = decrypt ? first : second;
    for (let r = 0; r < ROUNDS; r++) {
      const i = decrypt ? ROUNDS - 1 - r : r;
      tail[roundAt] = i;
      tail.write(c.toString(16).padStart(2 * b, '0'), tail.length - b, 'hex');
      const s = prf(l);
      const m = i % 2 === 0 ? l.bigModU : l.bigModV;
      const y = d <= BLOCK ? BigInt('0x' + s.toString('hex', 0, d)) : bigS(s, d);
      const next = decrypt ? (((a - y) % m) + m) % m : (a + y) % m;
      a = c;
      c = next;
    }
    const out = new Array<number>(numerals.length);
    writeBigNumerals(out, 0, u, decrypt ? c : a, big);
    writeBigNumerals(out, u, numerals.length, decrypt ? a : c, big);
    return out;
  }

  function numberOf(numerals: readonly number[], from: number, to: number): number {
    let x = 0;
    for (let k = from; k < to; k++) x = x * radix + numerals[k]!;
    return x;
  }

  return {
    radix,
    minLength,
    encrypt: (numerals, tweak) => run([numerals], tweak, false)[0]!,
    decrypt: (numerals, tweak) => run([numerals], tweak, true)[0]!,
    encryptMany: (list, tweak) => run(list, tweak, false),
  };
}

/** Creates an FF1 cipher over text whose radix is the number of characters in `alphabet`. */
export function createFf1Text(key: Uint8Array, alphabet: string, tweak: Uint8Array = EMPTY): Ff1Text {
  const characters = Array.from(alphabet);
  const index = new Map<string, number>();
  characters.forEach((ch, i) => index.set(ch, i));
  if (index.size !== characters.length) throw new RangeError('FF1 alphabet has a repeated character');
  const ff1 = createFf1(key, characters.length, tweak);

  function toNumerals(text: string): number[] {
    const numerals: number[] = [];
    for (const ch of text) {
      const x = index.get(ch);
      if (x === undefined) throw new RangeError(`FF1 text has a character outside the alphabet: ${JSON.stringify(ch)}`);
      numerals.push(x);
    }
    return numerals;
  }

  function toText(numerals: readonly number[]): string {
    let text = '';
    for (const x of numerals) text += characters[x];
    return text;
  }

  return {
    alphabet,
    minLength: ff1.minLength,
    encrypt: (text, t) => toText(ff1.encrypt(toNumerals(text), t)),
    decrypt: (text, t) => toText(ff1.decrypt(toNumerals(text), t)),
    encryptMany: (texts, t) => ff1.encryptMany(texts.map(toNumerals), t).map(toText),
  };
}

function bigOf(numerals: readonly number[], from: number, to: number, radix: bigint): bigint {
  let x = 0n;
  for (let k = from; k < to; k++) x = x * radix + BigInt(numerals[k]!);
  return x;
}

function writeNumerals(out: number[], from: number, to: number, x: number, radix: number): void {
  for (let k = to - 1; k >= from; k--) {
    const digit = x % radix;
    out[k] = digit;
    x = (x - digit) / radix;
  }
}

function writeBigNumerals(out: number[], from: number, to: number, x: bigint, radix: bigint): void {
  for (let k = to - 1; k >= from; k--) {
    out[k] = Number(x % radix);
    x /= radix;
  }
}
