import test, { type ExecutionContext } from 'ava';
import { countingLookups, startKurz, type TestKurz } from '../helpers.ts';

/** A kurz whose redirect cache holds `cacheSize` links, counting the lookups that reach its store. */
async function countingKurz(t: ExecutionContext, cacheSize: number): Promise<{ k: TestKurz; lookups: () => number }> {
  let lookups = 0;
  const k = await startKurz(
    t,
    { cacheSize },
    {
      adaptStorage: (storage) => countingLookups(storage, () => lookups++),
    },
  );
  return { k, lookups: () => lookups };
}

async function create(k: TestKurz, n: number): Promise<string> {
  const created = await k.postJson('/api/v1/links', { url: `https://example.com/${n}` });
  return ((await created.json()) as { code: string }).code;
}

async function follow(t: ExecutionContext, k: TestKurz, code: string, n: number): Promise<void> {
  const answer = await fetch(`${k.base}/${code}`, { redirect: 'manual' });
  t.is(answer.status, 302);
  t.is(answer.headers.get('location'), `https://example.com/${n}`);
}

test('links are cached from their first visit while there is room; once full, a sweep of links visited once evicts none', async (t) => {
  const { k, lookups } = await countingKurz(t, 3);
  const codes: string[] = [];
  for (let n = 0; n < 23; n++) codes.push(await create(k, n));

  for (let n = 0; n < 3; n++) await follow(t, k, codes[n]!, n);
  t.is(lookups(), 3, 'each link was looked up once');
  for (let n = 0; n < 3; n++) await follow(t, k, codes[n]!, n);
  t.is(lookups(), 3, 'and kept at once: the cache had room');

  for (let n = 3; n < 23; n++) await follow(t, k, codes[n]!, n);
  t.is(lookups(), 23, 'the sweep looked up each of its links');
  for (let n = 0; n < 3; n++) await follow(t, k, codes[n]!, n);
  t.is(lookups(), 23, 'the first three are still cached: the sweep evicted none of them');

  await follow(t, k, codes[10]!, 10);
  t.is(lookups(), 24, 'a swept link visited again is looked up again…');
  await follow(t, k, codes[10]!, 10);
  t.is(lookups(), 24, '…and kept from then on');
});
