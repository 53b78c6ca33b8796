import test from 'ava';
import { PackedSet } from '../../src/blocklist/packed-set.ts';

test('holds what was added, once, in the order added, and nothing else', (t) => {
  const set = new PackedSet().add('b.example').add('a.example').add('b.example');
  t.is(set.size, 2);
  t.deepEqual([...set], ['b.example', 'a.example']);
  t.true(set.has('a.example'));
  t.false(set.has('c.example'));
  t.false(set.has('a.exampl'), 'a prefix is another string');
  t.false(set.has('a.example.'), 'so is a longer one');
  t.false(set.has(''));
});

test('looks up the rest of a string from an offset, as a host’s parent domains are checked', (t) => {
  const set = new PackedSet().add('evil.example');
  const host = 'cdn.www.evil.example';
  t.true(set.has(host, host.indexOf('evil')));
  t.false(set.has(host, host.indexOf('www')));
  t.false(set.has(host, host.length), 'the empty rest is not in the set');
});

test('keeps 300,000 entries of every length class across its chunks and table growths', (t) => {
  const set = new PackedSet();
  // Lengths below 128 take one byte of length, up to 16,383 two, and beyond three: a long URL entry.
  const entry = (i: number): string => (i % 1000 === 0 ? `http://x${i}.example/${'p'.repeat(100 + (i % 20_000))}` : `h${i}.example`);
  for (let i = 0; i < 300_000; i++) set.add(entry(i));
  set.trim();
  t.is(set.size, 300_000);
  let missing = 0;
  for (let i = 0; i < 300_000; i++) if (!set.has(entry(i))) missing++;
  t.is(missing, 0);
  t.false(set.has('h300000.example'));
  let i = 0;
  let outOfOrder = 0;
  for (const held of set) if (held !== entry(i++)) outOfOrder++;
  t.is(i, 300_000);
  t.is(outOfOrder, 0);
});

test('an entry longer than a chunk gets one of its own', (t) => {
  const long = `http://x.example/${'a'.repeat(3 << 20)}`;
  const set = new PackedSet().add('a.example').add(long).add('b.example');
  t.true(set.has(long));
  t.false(set.has(`${long}b`));
  t.deepEqual(
    [...set].map((s) => s.length),
    [9, long.length, 9],
  );
});

test('refuses a string with a character beyond one byte, and finds none', (t) => {
  const set = new PackedSet().add('a.example');
  t.throws(() => set.add('bücher€.example'), { instanceOf: RangeError });
  t.false(set.has('bücher€.example'));
  t.is(set.size, 1);
});
