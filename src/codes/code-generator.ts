import { BASE62_ALPHABET, decodeBase62, encodeBase62, encodeBase62Fixed, isBase62 } from './base62.ts';
import { createFf1Text } from './ff1.ts';

export type CodeMode = 'obfuscated' | 'sequential';

export interface CodeGeneratorOptions {
  mode: CodeMode;
  /** Minimum code length in obfuscated mode (4..10); unused in sequential mode. */
  length: number;
  /** 32-byte AES-256 key for obfuscated mode; unused in sequential mode. */
  key: Buffer;
  /** Added to the id in sequential mode; unused in obfuscated mode. */
  offset: number;
}

/** Maps link ids to codes and back; each id has exactly one code and each code at most one id. */
export interface CodeGenerator {
  /** Throws a RangeError for an id that is not a non-negative safe integer. */
  codeFor(id: number): string;
  /** The codes of `count` consecutive ids from `first`, as `codeFor` gives them, computed together (cheaper). */
  codesFor(first: number, count: number): string[];
  /** The id whose code this is, or undefined when no id has it. */
  idFor(code: string): number | undefined;
}

export const MIN_CODE_LENGTH = 4;
export const MAX_CODE_LENGTH = 10;
export const CODE_KEY_BYTES = 32;

/** Key of the setting that holds the FF1 key (hex), generated at first start. */
export const CODE_KEY_SETTING = 'code_key';

// The ids served by codes of one length: [first, first + 62^length).
interface Band {
  readonly length: number;
  readonly first: number;
}

/** Creates the generator for the configured mode; throws an Error naming the bad option. */
export function createCodeGenerator(options: CodeGeneratorOptions): CodeGenerator {
  switch (options.mode) {
    case 'obfuscated':
      return obfuscatedGenerator(options.length, options.key);
    case 'sequential':
      return sequentialGenerator(options.offset);
    default:
      throw new Error(`code mode must be "obfuscated" or "sequential", got ${JSON.stringify(options.mode)}`);
  }
}

// Each length gets its own FF1 domain (62^length fixed-width strings), and the ids are split into
// consecutive bands, one per length: codes are unique by construction and never reveal order.
function obfuscatedGenerator(length: number, key: Buffer): CodeGenerator {
  if (!Number.isInteger(length) || length < MIN_CODE_LENGTH || length > MAX_CODE_LENGTH) {
    throw new Error(`code length must be an integer in ${MIN_CODE_LENGTH}..${MAX_CODE_LENGTH}, got ${length}`);
  }
  if (!(key instanceof Uint8Array) || key.length !== CODE_KEY_BYTES) {
    throw new Error(`code key must be ${CODE_KEY_BYTES} bytes (AES-256), got ${describeKey(key)}`);
  }
  const ff1 = createFf1Text(key, BASE62_ALPHABET);
  const bands: Band[] = [];
  for (let l = length, first = 0; first <= Number.MAX_SAFE_INTEGER; first += 62 ** l, l++) {
    bands.push({ length: l, first });
  }

  function bandOf(id: number): Band {
    let band = bands[0]!;
    for (const next of bands) {
      if (next.first > id) break;
      band = next;
    }
    return band;
  }

  return {
    codeFor(id) {
      assertId(id);
      const band = bandOf(id);
      return ff1.encrypt(encodeBase62Fixed(id - band.first, band.length));
    },
    codesFor(first, count) {
      assertId(first);
      if (!Number.isSafeInteger(count) || count < 0 || count - 1 > Number.MAX_SAFE_INTEGER - first) {
        throw new RangeError(`${count} ids from ${first} go past Number.MAX_SAFE_INTEGER`);
      }
      const codes: string[] = [];
      // One FF1 call per band (per code length) the ids fall in.
      for (let id = first; id < first + count;) {
        const band = bandOf(id);
        const end = Math.min(first + count, band.first + 62 ** band.length);
        const plain: string[] = [];
        for (; id < end; id++) plain.push(encodeBase62Fixed(id - band.first, band.length));
        codes.push(...ff1.encryptMany(plain));
      }
      return codes;
    },
    idFor(code) {
      const band = bands[code.length - length];
      if (band === undefined || !isBase62(code)) return undefined;
      const value = decodeBase62(ff1.decrypt(code));
      if (value === undefined || value > Number.MAX_SAFE_INTEGER - band.first) return undefined;
      return band.first + value;
    },
  };
}

function sequentialGenerator(offset: number): CodeGenerator {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new Error(`code offset must be a non-negative safe integer, got ${offset}`);
  }
  function codeFor(id: number): string {
    assertId(id);
    if (id > Number.MAX_SAFE_INTEGER - offset) throw new RangeError(`id ${id} plus offset ${offset} is too large`);
    return encodeBase62(id + offset);
  }

  return {
    codeFor,
    codesFor: (first, count) => Array.from({ length: count }, (_, k) => codeFor(first + k)),
    idFor(code) {
      // A leading zero would give an id a second code.
      if (code.length > 1 && code[0] === '0') return undefined;
      const value = decodeBase62(code);
      if (value === undefined || value < offset) return undefined;
      return value - offset;
    },
  };
}

function assertId(id: number): void {
  if (!Number.isSafeInteger(id) || id < 0) throw new RangeError(`id must be a non-negative safe integer, got ${id}`);
}

function describeKey(key: unknown): string {
  return key instanceof Uint8Array ? `${key.length} bytes` : typeof key;
}
