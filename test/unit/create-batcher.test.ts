import test from 'ava';
import { AppError } from '../../src/errors.ts';
import { createBatcher } from '../../src/links/create-batcher.ts';
import type { CreatedLink, CreateLinkInput } from '../../src/links/service.ts';

function created(url: string): CreatedLink {
  return {
    link: { id: 1, code: 'c', url, createdAt: 0, updatedAt: 0, visitCount: 0, lastVisitAt: null, deletedAt: null, isAlias: 0 },
    created: true,
  };
}

test('creations of one turn of the event loop go to the store as one batch', async (t) => {
  const batches: CreateLinkInput[][] = [];
  const createSoon = createBatcher((inputs) => {
    batches.push(inputs);
    return inputs.map((i) => created(String(i.url)));
  });
  const results = await Promise.all(['a', 'b', 'c'].map((url) => createSoon({ url })));
  t.deepEqual(
    results.map((r) => r.link.url),
    ['a', 'b', 'c'],
  );
  t.is(batches.length, 1);
  await createSoon({ url: 'd' });
  t.is(batches.length, 2, 'a later turn is a new batch');
});

test('a refused creation rejects only its own promise', async (t) => {
  const createSoon = createBatcher((inputs) =>
    inputs.map((i) => (i.url === 'bad' ? new AppError('invalid', 'url is bad', 'url') : created(String(i.url)))),
  );
  const [good, bad] = await Promise.allSettled([createSoon({ url: 'good' }), createSoon({ url: 'bad' })]);
  t.is(good.status, 'fulfilled');
  t.is(bad.status, 'rejected');
  t.is(((bad as PromiseRejectedResult).reason as AppError).message, 'url is bad');
});

test('a failing transaction rejects every creation in it', async (t) => {
  const createSoon = createBatcher(() => {
    throw new Error('SQLITE_FULL');
  });
  const results = await Promise.allSettled([createSoon({ url: 'a' }), createSoon({ url: 'b' })]);
  t.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
});

test('a burst larger than one batch is split across turns, in order', async (t) => {
  const sizes: number[] = [];
  const createSoon = createBatcher((inputs) => {
    sizes.push(inputs.length);
    return inputs.map((i) => created(String(i.url)));
  });
  const results = await Promise.all(Array.from({ length: 2500 }, (_, i) => createSoon({ url: String(i) })));
  t.deepEqual(sizes, [1000, 1000, 500]);
  t.is(results[2499]?.link.url, '2499');
});
