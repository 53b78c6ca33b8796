import test from 'ava';
import { RedirectCache } from '../../src/cache/redirect-cache.ts';
import { Doorkeeper } from '../../src/cache/doorkeeper.ts';

const target = { id: 1, url: 'https://example.com/', deleted: false, gate: null };

test('the doorkeeper admits a key on its second ask, not its first', (t) => {
  const door = new Doorkeeper(1000);
  t.false(door.admit('abc123'));
  t.true(door.admit('abc123'));
  t.true(door.admit('abc123'), 'and again after that');
  t.false(door.admit('abc124'), 'a neighbouring key is a new key');
});

test('the doorkeeper forgets everything after a window of new keys', (t) => {
  const door = new Doorkeeper(100);
  t.false(door.admit('first'));
  for (let i = 0; i < 100; i++) door.admit(`other${i}`);
  t.false(door.admit('first'), 'asked once more, but in a new window');
});

test('the doorkeeper rarely admits a key it has not seen (false positives stay under 5%)', (t) => {
  const door = new Doorkeeper(100_000);
  let early = 0;
  for (let i = 0; i < 99_999; i++) if (door.admit(`k${i.toString(36)}`)) early++;
  t.true(early < 5_000, `${early} of 99,999 keys admitted on their first ask`);
});

test('the cache keeps a found link from its first lookup while it has room', (t) => {
  const cache = new RedirectCache({ size: 2, negativeTtl: 0, now: () => 0 });
  cache.remember(0, 'one', target);
  t.deepEqual(cache.get(0, 'one'), target);
  cache.forget(0, 'one');
  t.is(cache.get(0, 'one'), undefined);
  cache.remember(0, 'two', target);
  cache.remember(0, 'three', target);
  t.deepEqual(cache.get(0, 'two'), target);
  t.deepEqual(cache.get(0, 'three'), target);
  t.is(cache.stats().size, 2);
});

test('a full cache keeps a link only from its second lookup, so links looked up once evict nothing', (t) => {
  const cache = new RedirectCache({ size: 10, negativeTtl: 0, now: () => 0 });
  for (let i = 0; i < 10; i++) cache.remember(0, `hot${i}`, target);
  for (let i = 0; i < 1000; i++) cache.remember(0, `once${i}`, target);
  for (let i = 0; i < 10; i++) t.deepEqual(cache.get(0, `hot${i}`), target, `hot${i} is still kept`);
  t.is(cache.get(0, 'once5'), undefined, 'a link looked up once is not kept');
  cache.remember(0, 'once5', target);
  t.deepEqual(cache.get(0, 'once5'), target, 'looked up again, it is kept');
  t.is(cache.stats().size, 10, 'in place of the least recently used one');
});

test('a lookup made while the cache had room counts as the first one once it is full', (t) => {
  const cache = new RedirectCache({ size: 1, negativeTtl: 0, now: () => 0 });
  cache.remember(0, 'early', target);
  cache.forget(0, 'early');
  cache.remember(0, 'filler', target);
  cache.remember(0, 'early', target);
  t.deepEqual(cache.get(0, 'early'), target, 'its second lookup in the window');
  t.is(cache.get(0, 'filler'), undefined, 'evicted for it');
});

test('a cache of size 0 keeps nothing', (t) => {
  const cache = new RedirectCache({ size: 0, negativeTtl: 0, now: () => 0 });
  cache.remember(0, 'code', target);
  cache.remember(0, 'code', target);
  t.is(cache.get(0, 'code'), undefined);
  t.is(cache.stats().size, 0);
});

test('the cache remembers an unknown code from its second lookup on, even with room', (t) => {
  const cache = new RedirectCache({ size: 10, negativeTtl: 60_000, now: () => 0 });
  cache.remember(0, 'nope', undefined);
  t.is(cache.get(0, 'nope'), undefined);
  cache.remember(0, 'nope', undefined);
  t.is(cache.get(0, 'nope'), null, 'known to be unknown');
  cache.forget(0, 'nope');
  t.is(cache.get(0, 'nope'), undefined, 'a link created under that code is found at once');
});

test('unknown codes take none of the room links are kept in at once', (t) => {
  const cache = new RedirectCache({ size: 1, negativeTtl: 60_000, now: () => 0 });
  for (let i = 0; i < 50; i++) {
    cache.remember(0, `scan${i}`, undefined);
    cache.remember(0, `scan${i}`, undefined);
  }
  t.is(cache.get(0, 'scan7'), null, 'the unknown codes are remembered');
  cache.remember(0, 'link', target);
  t.deepEqual(cache.get(0, 'link'), target, 'the link is kept from its first lookup');
});

test('a forgotten link makes room: the next link is kept from its first lookup', (t) => {
  const cache = new RedirectCache({ size: 2, negativeTtl: 0, now: () => 0 });
  cache.remember(0, 'a', target);
  cache.remember(0, 'b', target);
  cache.remember(0, 'c', target);
  t.is(cache.get(0, 'c'), undefined, 'full: not on its first lookup');
  cache.forget(0, 'a');
  cache.remember(0, 'd', target);
  t.deepEqual(cache.get(0, 'd'), target);
  t.deepEqual(cache.get(0, 'b'), target, 'nothing was evicted for it');
});
