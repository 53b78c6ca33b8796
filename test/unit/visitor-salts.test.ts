import test from 'ava';
import { createHash } from 'node:crypto';
import { drawVariant } from '../../src/rules/match.ts';
import type { Variant } from '../../src/rules/rule.ts';
import { DAY } from '../../src/visits/visit.ts';
import { visitorDraw, visitorHash, visitorSalts } from '../../src/visits/visitor-salts.ts';

// The split's draw is the unique-visitor hash (visits/visitor-salts.ts): its distribution over real
// visitor hashes, its stickiness, and the salts' life in a store (a fake one here; the HTTP tests use both backends').

const SALT = Buffer.alloc(32, 7);
/** 10,000 distinct visitors: addresses of one /16, each with the same browser. */
const VISITORS = Array.from({ length: 10_000 }, (_, i) => `10.1.${i >> 8}.${i & 255}`);
const UA = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0';

function shares(variants: readonly Variant[], salt = SALT): Map<string, number> {
  const counts = new Map<string, number>();
  for (const client of VISITORS) {
    const v = drawVariant(variants, visitorDraw(salt, client, UA, 42));
    if (v) counts.set(v.url, (counts.get(v.url) ?? 0) + 1);
  }
  return new Map([...counts].map(([url, n]) => [url, n / VISITORS.length]));
}

const CASES: Array<[string, Variant[], Record<string, number>]> = [
  [
    'two variants, 3:1',
    [
      { url: 'a', weight: 3, paused: false },
      { url: 'b', weight: 1, paused: false },
    ],
    { a: 0.75, b: 0.25 },
  ],
  [
    'three variants, 5:3:2',
    [
      { url: 'a', weight: 5, paused: false },
      { url: 'b', weight: 3, paused: false },
      { url: 'c', weight: 2, paused: false },
    ],
    { a: 0.5, b: 0.3, c: 0.2 },
  ],
  [
    'three variants, one paused',
    [
      { url: 'a', weight: 1, paused: false },
      { url: 'b', weight: 7, paused: true },
      { url: 'c', weight: 3, paused: false },
    ],
    { a: 0.25, b: 0, c: 0.75 },
  ],
];
for (const [name, variants, expected] of CASES) {
  test(`10,000 distinct visitors' hashes land within 2% of the weights: ${name}`, (t) => {
    const got = shares(variants);
    for (const [url, share] of Object.entries(expected))
      t.true(Math.abs((got.get(url) ?? 0) - share) <= 0.02, `${url}: ${got.get(url) ?? 0}, expected ${share}`);
  });
}

test('the draw is the first 32 bits of the unique-visitor hash: the same visitor, link and day, the same variant', (t) => {
  const variants = CASES[1]![1];
  for (const client of VISITORS.slice(0, 200)) {
    const draw = visitorDraw(SALT, client, UA, 42);
    t.is(draw, visitorHash(SALT, client, UA, 42).readUInt32BE(0));
    t.is(drawVariant(variants, draw), drawVariant(variants, visitorDraw(Buffer.from(SALT), client, UA, 42)));
  }
});

test('the visitor hash is the first 8 bytes of SHA-256 over the salt (hex), client, user agent and link, NUL-separated: hashes stored before stay comparable', (t) => {
  for (const client of ['203.0.113.9', '2001:db8::1', '::ffff:198.51.100.7']) {
    const input = [SALT.toString('hex'), client, UA, '42'].join('\0');
    t.deepEqual(visitorHash(SALT, client, UA, 42), createHash('sha256').update(input).digest().subarray(0, 8));
  }
});

test("another day's salt draws anew: some visitors get another variant", (t) => {
  const variants = CASES[0]![1];
  const other = Buffer.alloc(32, 8);
  const moved = VISITORS.filter(
    (client) => drawVariant(variants, visitorDraw(SALT, client, UA, 42)) !== drawVariant(variants, visitorDraw(other, client, UA, 42)),
  ).length;
  // With 3:1, two independent draws differ for 2 × 0.75 × 0.25 = 37.5% of visitors.
  t.true(moved > 3000 && moved < 4500, `${moved} moved`);
});

/** A store of salts in a Map, as visitor_salts: insert-if-absent. */
function mapStore() {
  const rows = new Map<number, Buffer>();
  let reads = 0;
  return {
    rows,
    reads: () => reads,
    visitorSalt: async (day: number) => {
      reads++;
      return rows.get(day);
    },
    addVisitorSalt: async (day: number, salt: Buffer) => {
      if (!rows.has(day)) rows.set(day, salt);
    },
  };
}

test('two processes on one store end with one salt per day, whichever made it first', async (t) => {
  const store = mapStore();
  const now = () => Date.UTC(2026, 0, 15, 12);
  const one = visitorSalts({ store, now, random: (n) => Buffer.alloc(n, 1), makes: true });
  const two = visitorSalts({ store, now, random: (n) => Buffer.alloc(n, 2), makes: true });
  const day = Date.UTC(2026, 0, 15);
  const [a, b] = await Promise.all([one.load(day), two.load(day)]);
  t.deepEqual(a, b);
  t.is(store.rows.size, 1);
  t.deepEqual(one.saltOf(day), two.saltOf(day));
});

test("a process that may not make salts reads them, and says so when none is there; keepAhead loads today's and tomorrow's", async (t) => {
  const store = mapStore();
  const now = () => Date.UTC(2026, 0, 15, 12);
  const worker = visitorSalts({ store, now, random: (n) => Buffer.alloc(n, 9), makes: false });
  const day = Date.UTC(2026, 0, 15);
  await t.throwsAsync(worker.load(day), { message: /no visitor salt for 2026-01-15/ });
  t.is(store.rows.size, 0, 'it made none');
  const primary = visitorSalts({ store, now, random: (n) => Buffer.alloc(n, 1), makes: true });
  await primary.keepAhead();
  t.deepEqual([...store.rows.keys()], [day, day + DAY]);
  await worker.keepAhead();
  t.deepEqual(worker.saltOf(day + DAY), primary.saltOf(day + DAY));
  const reads = store.reads();
  await worker.load(day);
  t.is(store.reads(), reads, 'a salt held is not read again');
});

test('a process forgets the salts of days before yesterday', async (t) => {
  const store = mapStore();
  let at = Date.UTC(2026, 0, 15, 12);
  const salts = visitorSalts({ store, now: () => at, random: (n) => Buffer.alloc(n, 1), makes: true });
  const day = Date.UTC(2026, 0, 15);
  await salts.load(day);
  at += 2 * DAY;
  await salts.load(day + 2 * DAY);
  t.is(salts.saltOf(day), undefined);
  t.truthy(salts.saltOf(day + 2 * DAY));
});
