import { createCipheriv } from 'node:crypto';
import test from 'ava';
import fc from 'fast-check';
import { createFf1, createFf1Text } from '../../src/codes/ff1.ts';

const KEY_128 = '2B7E151628AED2A6ABF7158809CF4F3C';
const KEY_192 = KEY_128 + 'EF4359D8D580AA4F';
const KEY_256 = KEY_192 + '7F036D6F04FC6A94';
const DIGITS = '0123456789';
const RADIX_36 = '0123456789abcdefghijklmnopqrstuvwxyz';
const TWEAK_10 = '39383736353433323130';
const TWEAK_11 = '3737373770717273373737';

// NIST "FF1 samples" (Examples with intermediate values for SP 800-38G), Samples 1–9.
const samples = [
  { sample: 1, key: KEY_128, tweak: '', alphabet: DIGITS, plaintext: '0123456789', ciphertext: '2433477484' },
  { sample: 2, key: KEY_128, tweak: TWEAK_10, alphabet: DIGITS, plaintext: '0123456789', ciphertext: '6124200773' },
  {
    sample: 3,
    key: KEY_128,
    tweak: TWEAK_11,
    alphabet: RADIX_36,
    plaintext: '0123456789abcdefghi',
    ciphertext: 'a9tv40mll9kdu509eum',
  },
  { sample: 4, key: KEY_192, tweak: '', alphabet: DIGITS, plaintext: '0123456789', ciphertext: '2830668132' },
  { sample: 5, key: KEY_192, tweak: TWEAK_10, alphabet: DIGITS, plaintext: '0123456789', ciphertext: '2496655549' },
  {
    sample: 6,
    key: KEY_192,
    tweak: TWEAK_11,
    alphabet: RADIX_36,
    plaintext: '0123456789abcdefghi',
    ciphertext: 'xbj3kv35jrawxv32ysr',
  },
  { sample: 7, key: KEY_256, tweak: '', alphabet: DIGITS, plaintext: '0123456789', ciphertext: '6657667009' },
  { sample: 8, key: KEY_256, tweak: TWEAK_10, alphabet: DIGITS, plaintext: '0123456789', ciphertext: '1001623463' },
  {
    sample: 9,
    key: KEY_256,
    tweak: TWEAK_11,
    alphabet: RADIX_36,
    plaintext: '0123456789abcdefghi',
    ciphertext: 'xs8a0azh2avyalyzuwd',
  },
];

const hex = (text: string): Buffer => Buffer.from(text, 'hex');
const numeralsOf = (text: string, alphabet: string): number[] => Array.from(text, (ch) => alphabet.indexOf(ch));

for (const s of samples) {
  const name = `NIST FF1 sample ${s.sample} (AES-${s.key.length * 4}, radix ${s.alphabet.length})`;

  test(`${name}: encrypt`, (t) => {
    t.is(createFf1Text(hex(s.key), s.alphabet, hex(s.tweak)).encrypt(s.plaintext), s.ciphertext);
  });

  test(`${name}: decrypt`, (t) => {
    t.is(createFf1Text(hex(s.key), s.alphabet, hex(s.tweak)).decrypt(s.ciphertext), s.plaintext);
  });

  test(`${name}: numerals with a per-call tweak`, (t) => {
    const ff1 = createFf1(hex(s.key), s.alphabet.length);
    const plaintext = numeralsOf(s.plaintext, s.alphabet);
    const ciphertext = numeralsOf(s.ciphertext, s.alphabet);
    t.deepEqual(ff1.encrypt(plaintext, hex(s.tweak)), ciphertext);
    t.deepEqual(ff1.decrypt(ciphertext, hex(s.tweak)), plaintext);
  });

  test(`${name}: the reference transcription agrees`, (t) => {
    const plaintext = numeralsOf(s.plaintext, s.alphabet);
    const ciphertext = numeralsOf(s.ciphertext, s.alphabet);
    t.deepEqual(referenceFf1(hex(s.key), s.alphabet.length, hex(s.tweak), plaintext, false), ciphertext);
    t.deepEqual(referenceFf1(hex(s.key), s.alphabet.length, hex(s.tweak), ciphertext, true), plaintext);
  });
}

// Algorithms 7 and 8 of SP 800-38G written out step by step with BigInt and a CBC-MAC PRF, slow
// but independent of the optimised code (which precomputes the PRF prefix and uses number math).
function referenceFf1(key: Buffer, radix: number, tweak: Buffer, x: number[], decrypt: boolean): number[] {
  const aes = `aes-${key.length * 8}`;
  const n = x.length;
  const t = tweak.length;
  const u = Math.floor(n / 2);
  const v = n - u;
  const big = BigInt(radix);
  const num = (digits: number[]): bigint => digits.reduce((acc, digit) => acc * big + BigInt(digit), 0n);
  const str = (m: number, value: bigint): number[] => {
    const digits = new Array<number>(m);
    for (let k = m - 1; k >= 0; k--, value /= big) digits[k] = Number(value % big);
    return digits;
  };
  const bytes = (length: number, value: bigint): Buffer => Buffer.from(value.toString(16).padStart(length * 2, '0'), 'hex');
  const ciph = (block: Buffer): Buffer => {
    const cipher = createCipheriv(`${aes}-ecb`, key, null).setAutoPadding(false);
    return cipher.update(block);
  };
  const prf = (data: Buffer): Buffer => {
    const cipher = createCipheriv(`${aes}-cbc`, key, Buffer.alloc(16)).setAutoPadding(false);
    return cipher.update(data).subarray(-16);
  };

  let A = x.slice(0, u);
  let B = x.slice(u);
  const b = Math.ceil(Math.ceil(v * Math.log2(radix)) / 8);
  const d = 4 * Math.ceil(b / 4) + 4;
  const P = Buffer.concat([Buffer.from([1, 2, 1]), bytes(3, big), Buffer.from([10, u % 256]), bytes(4, BigInt(n)), bytes(4, BigInt(t))]);
  const rounds = decrypt ? [9, 8, 7, 6, 5, 4, 3, 2, 1, 0] : [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  for (const i of rounds) {
    const half = decrypt ? A : B;
    const Q = Buffer.concat([tweak, Buffer.alloc((((-t - b - 1) % 16) + 16) % 16), Buffer.from([i]), bytes(b, num(half))]);
    const R = prf(Buffer.concat([P, Q]));
    const blocks = [R];
    for (let j = 1; j < Math.ceil(d / 16); j++) {
      const counter = bytes(16, BigInt(j));
      blocks.push(ciph(Buffer.from(R.map((byte, k) => byte ^ counter[k]!))));
    }
    const y = BigInt('0x' + Buffer.concat(blocks).subarray(0, d).toString('hex'));
    const m = i % 2 === 0 ? u : v;
    const modulus = big ** BigInt(m);
    if (decrypt) {
      const c = (((num(B) - y) % modulus) + modulus) % modulus;
      B = A;
      A = str(m, c);
    } else {
      const c = (num(A) + y) % modulus;
      A = B;
      B = str(m, c);
    }
  }
  return [...A, ...B];
}

const minLengthOf = (radix: number): number => {
  let n = 2;
  while (radix ** n < 1_000_000) n++;
  return n;
};

// Covers radix 65536 ([radix]3 needs its third byte), d > 16 (extra PRF blocks), tweaks that push Q
// past one block, and both the number and BigInt round paths.
const cases = fc
  .record({
    key: fc.constantFrom(16, 24, 32).chain((size) => fc.uint8Array({ minLength: size, maxLength: size })),
    radix: fc.oneof(fc.constantFrom(2, 10, 36, 62, 255, 256, 65535, 65536), fc.integer({ min: 2, max: 65536 })),
    tweak: fc.uint8Array({ maxLength: 40 }),
    extra: fc.nat({ max: 40 }),
    seed: fc.array(fc.nat(), { minLength: 80, maxLength: 80 }),
  })
  .map(({ key, radix, tweak, extra, seed }) => {
    const length = minLengthOf(radix) + extra;
    const numerals = Array.from({ length }, (_, k) => seed[k % seed.length]! % radix);
    return { key: Buffer.from(key), radix, tweak: Buffer.from(tweak), numerals };
  });

test('FF1 matches the reference transcription for random keys, radixes, tweaks and lengths', (t) => {
  fc.assert(
    fc.property(cases, ({ key, radix, tweak, numerals }) => {
      const ff1 = createFf1(key, radix, tweak);
      const ciphertext = ff1.encrypt(numerals);
      t.deepEqual(ciphertext, referenceFf1(key, radix, tweak, numerals, false));
      t.deepEqual(ff1.decrypt(ciphertext), numerals);
    }),
    { numRuns: 150 },
  );
});

test('FF1 encryptMany gives what the reference gives for each string, multi-block tweaks included', (t) => {
  const many = fc.record({ first: cases, count: fc.integer({ min: 1, max: 30 }), salt: fc.nat() });
  fc.assert(
    fc.property(many, ({ first: { key, radix, tweak, numerals }, count, salt }) => {
      const list = Array.from({ length: count }, (_, k) => numerals.map((x, j) => (x + k * (j + 1) + salt) % radix));
      const ff1 = createFf1(key, radix, tweak);
      t.deepEqual(
        ff1.encryptMany(list),
        list.map((x) => referenceFf1(key, radix, tweak, x, false)),
      );
    }),
    { numRuns: 60 },
  );
});

test('FF1 encryptMany refuses strings of different lengths and takes an empty list', (t) => {
  const ff1 = createFf1(hex(KEY_128), 10);
  t.throws(
    () =>
      ff1.encryptMany([
        [1, 2, 3, 4, 5, 6],
        [1, 2, 3, 4, 5, 6, 7],
      ]),
    { instanceOf: RangeError, message: /one length, got 6 and 7/ },
  );
  t.deepEqual(ff1.encryptMany([]), []);
  t.deepEqual(createFf1Text(hex(KEY_128), DIGITS).encryptMany(['0123456789', '9876543210']), [
    createFf1Text(hex(KEY_128), DIGITS).encrypt('0123456789'),
    createFf1Text(hex(KEY_128), DIGITS).encrypt('9876543210'),
  ]);
});

test('FF1 decrypt inverts encrypt for random inputs', (t) => {
  fc.assert(
    fc.property(cases, ({ key, radix, tweak, numerals }) => {
      const ff1 = createFf1(key, radix);
      const ciphertext = ff1.encrypt(numerals, tweak);
      t.is(ciphertext.length, numerals.length);
      t.true(ciphertext.every((x) => Number.isInteger(x) && x >= 0 && x < radix));
      t.deepEqual(ff1.decrypt(ciphertext, tweak), numerals);
    }),
    { numRuns: 300 },
  );
});

test('FF1 results depend on the tweak', (t) => {
  const ff1 = createFf1(hex(KEY_256), 10);
  const plaintext = numeralsOf('0123456789', DIGITS);
  t.notDeepEqual(ff1.encrypt(plaintext, hex('00')), ff1.encrypt(plaintext, hex('01')));
});

test('FF1 minimum length follows radix^minlen >= 1,000,000', (t) => {
  const table: [radix: number, minLength: number][] = [
    [2, 20],
    [10, 6],
    [36, 4],
    [62, 4],
    [999, 3],
    [1000, 2],
    [65536, 2],
  ];
  for (const [radix, minLength] of table) t.is(createFf1(hex(KEY_128), radix).minLength, minLength, `radix ${radix}`);
});

const invalidUses: [name: string, use: () => unknown, message: RegExp][] = [
  ['a 15-byte key', () => createFf1(Buffer.alloc(15), 10), /key must be 16, 24 or 32 bytes, got 15/],
  ['a 33-byte key', () => createFf1(Buffer.alloc(33), 10), /key must be 16, 24 or 32 bytes, got 33/],
  ['radix 1', () => createFf1(hex(KEY_128), 1), /radix must be an integer in 2\.\.65536, got 1/],
  ['radix 65537', () => createFf1(hex(KEY_128), 65537), /radix must be an integer in 2\.\.65536, got 65537/],
  ['radix 2.5', () => createFf1(hex(KEY_128), 2.5), /radix must be an integer/],
  ['too few numerals', () => createFf1(hex(KEY_128), 10).encrypt([1, 2, 3, 4, 5]), /at least 6 numerals, got 5/],
  ['a numeral outside the radix', () => createFf1(hex(KEY_128), 10).encrypt([0, 1, 2, 3, 4, 10]), /numeral 10/],
  ['a negative numeral', () => createFf1(hex(KEY_128), 10).decrypt([0, 1, 2, 3, 4, -1]), /numeral -1/],
  ['a fractional numeral', () => createFf1(hex(KEY_128), 10).decrypt([0, 1, 2, 3, 4, 0.5]), /numeral 0\.5/],
  ['a repeated alphabet character', () => createFf1Text(hex(KEY_128), '0123456789a1'), /repeated character/],
  ['text outside the alphabet', () => createFf1Text(hex(KEY_128), DIGITS).encrypt('01234x'), /outside the alphabet: "x"/],
  ['text too short', () => createFf1Text(hex(KEY_128), DIGITS).decrypt('01234'), /at least 6 numerals, got 5/],
];

for (const [name, use, message] of invalidUses) {
  test(`FF1 refuses ${name}`, (t) => {
    t.throws(use, { instanceOf: RangeError, message });
  });
}
