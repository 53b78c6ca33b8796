import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import test from 'ava';
import fc from 'fast-check';
import { BASE62_ALPHABET, decodeBase62, encodeBase62, encodeBase62Fixed, isBase62 } from '../../src/codes/base62.ts';
import { createCodeGenerator } from '../../src/codes/code-generator.ts';
import type { CodeGenerator, CodeGeneratorOptions } from '../../src/codes/code-generator.ts';
import { createFf1, createFf1Text } from '../../src/codes/ff1.ts';
import { randomCode } from '../../src/codes/random-code.ts';
import { redirectSegment } from '../../src/edge/redirect.ts';
import { CODE } from '../../src/links/alias-rules.ts';
import { RESERVED_PATHS } from '../../src/links/reserved-paths.ts';

const MAX = Number.MAX_SAFE_INTEGER;
const KEY = createHash('sha256').update('kurz codes test key').digest();

const obfuscated = (length: number, key: Buffer = KEY): CodeGenerator =>
  createCodeGenerator({ mode: 'obfuscated', length, key, offset: 0 });
const sequential = (offset: number): CodeGenerator => createCodeGenerator({ mode: 'sequential', length: 6, key: KEY, offset });

// The first id served by each code length, for a given minimum length.
function bandStarts(minLength: number): { length: number; first: number }[] {
  const bands = [];
  for (let length = minLength, first = 0; first <= MAX; first += 62 ** length, length++) bands.push({ length, first });
  return bands;
}

// --- base62

test('encodeBase62 writes the shortest base62 string', (t) => {
  const table: [number, string][] = [
    [0, '0'],
    [9, '9'],
    [10, 'a'],
    [35, 'z'],
    [36, 'A'],
    [61, 'Z'],
    [62, '10'],
    [1000, 'g8'],
    [3843, 'ZZ'],
    [3844, '100'],
    [238327, 'ZZZ'],
    [MAX, 'FfGNdXsE7'],
  ];
  for (const [value, text] of table) t.is(encodeBase62(value), text, `${value}`);
});

test('encodeBase62Fixed pads with zeros to the width', (t) => {
  const table: [value: number, width: number, text: string][] = [
    [0, 1, '0'],
    [0, 4, '0000'],
    [61, 1, 'Z'],
    [62, 3, '010'],
    [14776335, 4, 'ZZZZ'],
    [MAX, 10, '0FfGNdXsE7'],
  ];
  for (const [value, width, text] of table) t.is(encodeBase62Fixed(value, width), text, `${value} in ${width}`);
});

test('encodeBase62Fixed refuses a value wider than the width', (t) => {
  t.throws(() => encodeBase62Fixed(62, 1), { instanceOf: RangeError, message: /62 does not fit in 1 base62 digits/ });
  t.throws(() => encodeBase62Fixed(14776336, 4), { instanceOf: RangeError, message: /does not fit in 4/ });
});

test('encodeBase62 refuses values that are not non-negative safe integers', (t) => {
  for (const value of [-1, 1.5, Number.NaN, MAX + 1, Number.POSITIVE_INFINITY]) {
    t.throws(() => encodeBase62(value), { instanceOf: RangeError, message: /non-negative safe integers/ }, `${value}`);
  }
});

test('decodeBase62 reads base62 strings and rejects everything else', (t) => {
  const table: [string, number | undefined][] = [
    ['0', 0],
    ['000', 0],
    ['00a', 10],
    ['Z', 61],
    ['10', 62],
    ['ZZZ', 238327],
    ['FfGNdXsE7', MAX],
    ['FfGNdXsE8', undefined],
    ['FfGNdXsEa', undefined],
    ['ZZZZZZZZZZZZZZZZZZZZ', undefined],
    ['', undefined],
    ['-', undefined],
    ['ab_c', undefined],
    ['ab c', undefined],
    ['abé', undefined],
  ];
  for (const [text, value] of table) t.is(decodeBase62(text), value, JSON.stringify(text));
});

test('isBase62 accepts only alphabet characters', (t) => {
  t.true(isBase62(BASE62_ALPHABET));
  t.true(isBase62(''));
  t.false(isBase62('abc-'));
  t.false(isBase62('ab/c'));
  t.false(isBase62('aé'));
});

test('base62 decode inverts encode', (t) => {
  fc.assert(
    fc.property(fc.maxSafeNat(), fc.nat({ max: 4 }), (value, padding) => {
      t.is(decodeBase62(encodeBase62(value)), value);
      const text = encodeBase62(value);
      t.is(decodeBase62(encodeBase62Fixed(value, text.length + padding)), value);
    }),
  );
});

// --- FF1 at radix 62

test('FF1 radix 62 decrypt inverts encrypt for random keys, lengths and numerals', (t) => {
  const cases = fc.record({
    key: fc.constantFrom(16, 24, 32).chain((size) => fc.uint8Array({ minLength: size, maxLength: size })),
    numerals: fc.array(fc.integer({ min: 0, max: 61 }), { minLength: 4, maxLength: 40 }),
  });
  fc.assert(
    fc.property(cases, ({ key, numerals }) => {
      const ff1 = createFf1(key, 62);
      const ciphertext = ff1.encrypt(numerals);
      t.is(ciphertext.length, numerals.length);
      t.deepEqual(ff1.decrypt(ciphertext), numerals);
    }),
    { numRuns: 300 },
  );
});

// --- obfuscated codes

test('obfuscated codes switch to the next length exactly when a length is used up', (t) => {
  const table: [minLength: number, id: number, length: number][] = [
    [4, 0, 4],
    [4, 1, 4],
    [4, 14776335, 4],
    [4, 14776336, 5],
    [4, 930909167, 5],
    [4, 930909168, 6],
    [4, 221919451335855, 8],
    [4, 221919451335856, 9],
    [4, MAX, 9],
    [6, 56800235583, 6],
    [6, 56800235584, 7],
    [9, MAX, 9],
    [10, MAX, 10],
  ];
  for (const [minLength, id, length] of table) {
    const generator = obfuscated(minLength);
    const code = generator.codeFor(id);
    t.is(code.length, length, `id ${id} at minimum length ${minLength}`);
    t.true(isBase62(code));
    t.is(generator.idFor(code), id);
  }
});

test('obfuscated codes round-trip for random keys, lengths and ids, including every length boundary', (t) => {
  const cases = fc.integer({ min: 4, max: 10 }).chain((minLength) => {
    const boundaries = bandStarts(minLength)
      .flatMap(({ first }) => [first - 1, first, first + 1])
      .concat([MAX - 1, MAX])
      .filter((id) => id >= 0 && id <= MAX);
    return fc.record({
      key: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      minLength: fc.constant(minLength),
      id: fc.oneof(fc.constantFrom(...boundaries), fc.maxSafeNat(), fc.nat({ max: 100_000 })),
    });
  });
  fc.assert(
    fc.property(cases, ({ key, minLength, id }) => {
      const generator = obfuscated(minLength, Buffer.from(key));
      const code = generator.codeFor(id);
      const band = bandStarts(minLength).findLast(({ first }) => first <= id)!;
      t.is(code.length, band.length);
      t.true(isBase62(code));
      t.is(generator.idFor(code), id);
    }),
    { numRuns: 500 },
  );
});

test('codesFor gives what codeFor gives one id at a time, across code-length boundaries, in both modes', (t) => {
  const [, second, third] = bandStarts(4);
  const runs: [first: number, count: number][] = [
    [0, 1],
    [1, 50],
    [second!.first - 3, 7],
    [third!.first - 1, 2],
    [MAX - 4, 5],
  ];
  for (const generator of [obfuscated(4), obfuscated(6), sequential(0), sequential(1000)]) {
    for (const [first, count] of runs) {
      let one: string[];
      try {
        one = Array.from({ length: count }, (_, k) => generator.codeFor(first + k));
      } catch {
        t.throws(() => generator.codesFor(first, count), { instanceOf: RangeError }, `${first} + ${count}`);
        continue;
      }
      t.deepEqual(generator.codesFor(first, count), one, `${first} + ${count}`);
    }
  }
  t.throws(() => obfuscated(6).codesFor(MAX, 2), { instanceOf: RangeError });
});

test('obfuscated idFor answers only for codes that codeFor gives', (t) => {
  const cases = fc.integer({ min: 4, max: 10 }).chain((minLength) =>
    fc.record({
      key: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      minLength: fc.constant(minLength),
      code: fc.string({ unit: fc.constantFrom(...BASE62_ALPHABET), minLength: minLength - 2, maxLength: 12 }),
    }),
  );
  fc.assert(
    fc.property(cases, ({ key, minLength, code }) => {
      const generator = obfuscated(minLength, Buffer.from(key));
      const id = generator.idFor(code);
      if (code.length < minLength || code.length > 10) t.is(id, undefined);
      if (id !== undefined) t.is(generator.codeFor(id), code);
    }),
    { numRuns: 500 },
  );
});

test('obfuscated idFor is undefined for strings outside the code space', (t) => {
  const generator = obfuscated(4);
  const table = ['', 'abc', 'ab-d', 'ab_d', 'ab d', 'abcé', 'abc/', 'abcdefghij', 'abcdefghijk'];
  for (const code of table) t.is(generator.idFor(code), undefined, JSON.stringify(code));
});

test('obfuscated idFor is undefined past Number.MAX_SAFE_INTEGER', (t) => {
  const generator = obfuscated(4);
  const ff1 = createFf1Text(KEY, BASE62_ALPHABET);
  const firstOfNine = 221919451335856;
  t.is(generator.idFor(ff1.encrypt(encodeBase62Fixed(MAX - firstOfNine, 9))), MAX);
  t.is(generator.idFor(ff1.encrypt(encodeBase62Fixed(MAX - firstOfNine + 1, 9))), undefined);
  t.is(generator.idFor(ff1.encrypt('ZZZZZZZZZ')), undefined);
});

test('obfuscated codes depend on the key', (t) => {
  const other = createHash('sha256').update('another key').digest();
  t.not(obfuscated(6).codeFor(1), obfuscated(6, other).codeFor(1));
});

test('1,000,000 consecutive ids across a length change give 1,000,000 distinct codes of the expected length', (t) => {
  const generator = obfuscated(4);
  const boundary = 62 ** 4;
  // Each code as a distinct number (5-character codes after all 4-character ones), sorted, so
  // duplicates sit side by side: a Set of a million strings would cost more than making the codes.
  const keys = new Float64Array(1_000_000);
  let wrongLength = 0;
  for (let n = 0; n < keys.length; n++) {
    const id = boundary - 500_000 + n;
    const code = generator.codeFor(id);
    if (code.length !== (id < boundary ? 4 : 5)) wrongLength++;
    keys[n] = (code.length === 4 ? 0 : boundary) + decodeBase62(code)!;
  }
  keys.sort();
  let duplicates = 0;
  for (let n = 1; n < keys.length; n++) if (keys[n] === keys[n - 1]) duplicates++;
  t.is(wrongLength, 0);
  t.is(duplicates, 0);
});

// Pearson's chi-square per code position against a uniform alphabet (df = 61). 153 is the
// critical value at p ≈ 7e-10, so a fair generator passes in practice always; the key is fixed anyway.
const CHI_SQUARE_LIMIT = 153;

function chiSquareByPosition(codeFor: (id: number) => string, count: number, length: number): number[] {
  const counts = Array.from({ length }, () => new Array<number>(62).fill(0));
  for (let id = 1; id <= count; id++) {
    const code = codeFor(id);
    for (let position = 0; position < length; position++) {
      counts[position]![BASE62_ALPHABET.indexOf(code[position]!)]!++;
    }
  }
  const expected = count / 62;
  return counts.map((row) => row.reduce((sum, observed) => sum + (observed - expected) ** 2 / expected, 0));
}

test('obfuscated codes use every character with near-uniform frequency in each position', (t) => {
  const statistics = chiSquareByPosition(obfuscated(6).codeFor, 200_000, 6);
  for (const [position, statistic] of statistics.entries()) {
    t.true(statistic < CHI_SQUARE_LIMIT, `position ${position}: chi-square ${statistic.toFixed(1)}`);
  }
});

test('the uniformity check rejects a generator that masks hash bytes with 0x3D', (t) => {
  // The classic bug: byte & 0x3D can never set bit 1, so half the alphabet never appears.
  const stream = createHash('shake256', { outputLength: 200_000 * 6 })
    .update(KEY)
    .digest();
  const masked = (id: number): string => {
    let code = '';
    for (let k = (id - 1) * 6; k < id * 6; k++) code += BASE62_ALPHABET[stream[k]! & 0x3d];
    return code;
  };
  const statistics = chiSquareByPosition(masked, 200_000, 6);
  for (const [position, statistic] of statistics.entries()) {
    t.true(statistic > CHI_SQUARE_LIMIT, `position ${position}: chi-square ${statistic.toFixed(1)}`);
  }
});

// --- sequential codes

test('sequential codes are base62 of id + offset', (t) => {
  const table: [offset: number, id: number, code: string][] = [
    [0, 0, '0'],
    [0, 1, '1'],
    [0, 61, 'Z'],
    [0, 62, '10'],
    [0, 3844, '100'],
    [0, MAX, 'FfGNdXsE7'],
    [1000, 0, 'g8'],
    [1000, 1, 'g9'],
    [3844, 1, '101'],
  ];
  for (const [offset, id, code] of table) {
    t.is(sequential(offset).codeFor(id), code, `id ${id} offset ${offset}`);
    t.is(sequential(offset).idFor(code), id, `code ${code} offset ${offset}`);
  }
});

test('sequential idFor is undefined below the offset and for non-canonical or foreign strings', (t) => {
  const table: [offset: number, code: string][] = [
    [1000, 'g7'],
    [1000, '0'],
    [0, ''],
    [0, '01'],
    [0, '00'],
    [0, 'a-b'],
    [0, 'abé'],
    [0, 'FfGNdXsE8'],
  ];
  for (const [offset, code] of table) t.is(sequential(offset).idFor(code), undefined, `${JSON.stringify(code)}`);
});

test('sequential codeFor refuses an id that overflows with the offset', (t) => {
  t.throws(() => sequential(1).codeFor(MAX), { instanceOf: RangeError, message: /too large/ });
});

// --- options and ids

test('codeFor refuses ids that are not non-negative safe integers', (t) => {
  for (const generator of [obfuscated(6), sequential(0)]) {
    for (const id of [-1, 1.5, Number.NaN, MAX + 1]) {
      t.throws(() => generator.codeFor(id), { instanceOf: RangeError, message: /id must be a non-negative safe integer/ });
    }
  }
});

const badOptions: [name: string, options: CodeGeneratorOptions, message: RegExp][] = [
  ['length 3', { mode: 'obfuscated', length: 3, key: KEY, offset: 0 }, /code length must be an integer in 4\.\.10, got 3/],
  ['length 11', { mode: 'obfuscated', length: 11, key: KEY, offset: 0 }, /code length .* got 11/],
  ['length 6.5', { mode: 'obfuscated', length: 6.5, key: KEY, offset: 0 }, /code length .* got 6\.5/],
  ['length NaN', { mode: 'obfuscated', length: Number.NaN, key: KEY, offset: 0 }, /code length .* got NaN/],
  [
    'a 16-byte key',
    { mode: 'obfuscated', length: 6, key: Buffer.alloc(16), offset: 0 },
    /code key must be 32 bytes \(AES-256\), got 16 bytes/,
  ],
  ['an empty key', { mode: 'obfuscated', length: 6, key: Buffer.alloc(0), offset: 0 }, /got 0 bytes/],
  [
    'a string key',
    { mode: 'obfuscated', length: 6, key: 'k'.repeat(32) as unknown as Buffer, offset: 0 },
    /code key must be 32 bytes .* got string/,
  ],
  ['offset -1', { mode: 'sequential', length: 6, key: KEY, offset: -1 }, /code offset must be a non-negative safe integer, got -1/],
  ['offset 1.5', { mode: 'sequential', length: 6, key: KEY, offset: 1.5 }, /code offset .* got 1\.5/],
  [
    'an unknown mode',
    { mode: 'random' as CodeGeneratorOptions['mode'], length: 6, key: KEY, offset: 0 },
    /code mode must be "obfuscated" or "sequential", got "random"/,
  ],
];

for (const [name, options, message] of badOptions) {
  test(`createCodeGenerator refuses ${name}`, (t) => {
    t.throws(() => createCodeGenerator(options), { message });
  });
}

test('createCodeGenerator checks only the options the mode uses', (t) => {
  t.notThrows(() => createCodeGenerator({ mode: 'sequential', length: 0, key: Buffer.alloc(0), offset: 0 }));
  t.notThrows(() => createCodeGenerator({ mode: 'obfuscated', length: 6, key: KEY, offset: -1 }));
});

test('property: every generated code, in both modes, is a code spelling that the redirect reads back from its path', (t) => {
  const cases = fc.record({
    key: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    length: fc.integer({ min: 4, max: 10 }),
    offset: fc.nat({ max: 1_000_000 }),
    id: fc.oneof(fc.maxSafeNat(), fc.nat({ max: 100_000 })),
  });
  fc.assert(
    fc.property(cases, ({ key, length, offset, id }) => {
      for (const mode of ['obfuscated', 'sequential'] as const) {
        if (mode === 'sequential' && id + offset > MAX) continue;
        const code = createCodeGenerator({ mode, length, key: Buffer.from(key), offset }).codeFor(id);
        if (!CODE.test(code)) return false;
        // A code that spells one of kurz's paths is never handed out (create.ts skips its id); any other reads back.
        const read = redirectSegment({ method: 'GET', url: `/${code}?x=1` } as IncomingMessage);
        if (read !== (RESERVED_PATHS.has(code) ? undefined : code)) return false;
      }
      return true;
    }),
    { numRuns: 500 },
  );
  t.pass();
});

// --- random codes (a length asked for)

/** A random source that hands out these bytes in order, as many as each call asks for. */
function bytes(...values: number[]): (size: number) => Buffer {
  let at = 0;
  return (size) => {
    if (at + size > values.length) throw new Error('the test ran out of bytes');
    return Buffer.from(values.slice(at, (at += size)));
  };
}

test('randomCode maps each byte below 248 to one base62 character and draws again for the rest', (t) => {
  const table: [number, number[], string][] = [
    [4, [0, 1, 2, 3], '0123'],
    [4, [10, 35, 36, 61], 'azAZ'],
    [4, [62, 123, 124, 247], '0Z0Z'],
    // 248 to 255 would favour the first eight characters: they are dropped, and what is missing drawn again.
    [4, [248, 0, 255, 1, 250, 2, 7], '0127'],
    [1, [255, 255, 9], '9'],
  ];
  for (const [length, values, code] of table) t.is(randomCode(length, bytes(...values)), code, JSON.stringify(values));
});

test('randomCode gives every character from four of the 248 bytes it keeps, and codes of the length asked for', (t) => {
  const all = randomCode(248, bytes(...Array.from({ length: 256 }, (_, byte) => byte)));
  const counts = new Map<string, number>();
  for (const c of all) counts.set(c, (counts.get(c) ?? 0) + 1);
  t.is(counts.size, 62);
  t.true([...counts.values()].every((n) => n === 4));
  fc.assert(
    fc.property(fc.integer({ min: 4, max: 64 }), (length) => new RegExp(`^[0-9a-zA-Z]{${length}}$`).test(randomCode(length, randomBytes))),
  );
});
