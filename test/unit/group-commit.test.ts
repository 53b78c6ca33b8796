import { NO_PAGES } from '../../src/rules/page-settings.ts';
import test from 'ava';
import { AppError } from '../../src/core/errors.ts';
import type { CreatedLink, CreateLinkInput } from '../../src/links/create.ts';
import { DEFAULT_OPTIONS } from '../../src/links/link.ts';
import { createGroupCommit } from '../../src/store/group-commit.ts';
import { waitFor } from '../helpers.ts';

function created(url: string): CreatedLink {
  const at = new Date(0);
  return {
    link: {
      ...DEFAULT_OPTIONS,
      id: 1,
      domain: 0,
      ownerId: 1,
      review: null,
      pages: NO_PAGES,
      code: 'c',
      url,
      createdAt: at,
      updatedAt: at,
      visitCount: 0,
      lastVisitAt: null,
      deletedAt: null,
      isAlias: false,
      passwordHash: null,
      claimedVisits: 0,
      blocked: null,
      split: null,
      hasRules: false,
    },
    created: true,
  };
}

/** The group commit, as the link store uses it, with creations for jobs: `create` runs one, `idle` waits. */
function createBatcher(
  commit: (inputs: CreateLinkInput[]) => Array<CreatedLink | AppError>,
  synced: () => Promise<void>,
): { create: (input: CreateLinkInput) => Promise<CreatedLink>; idle: () => Promise<void> } {
  const group = createGroupCommit<CreateLinkInput, CreatedLink>(commit, synced);
  return { create: (input) => group.run(input), idle: () => group.idle() };
}

const synced = (): Promise<void> => Promise.resolve();

test('creations of one turn of the event loop go to the store as one batch', async (t) => {
  const batches: CreateLinkInput[][] = [];
  const { create: createSoon } = createBatcher((inputs) => {
    batches.push(inputs);
    return inputs.map((i) => created(String(i.url)));
  }, synced);
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
  const { create: createSoon } = createBatcher(
    (inputs) => inputs.map((i) => (i.url === 'bad' ? new AppError('invalid', 'url is bad', 'url') : created(String(i.url)))),
    synced,
  );
  const [good, bad] = await Promise.allSettled([createSoon({ url: 'good' }), createSoon({ url: 'bad' })]);
  t.is(good.status, 'fulfilled');
  t.is(bad.status, 'rejected');
  t.is(((bad as PromiseRejectedResult).reason as AppError).message, 'url is bad');
});

test('a failing transaction rejects every creation in it', async (t) => {
  const { create: createSoon } = createBatcher(() => {
    throw new Error('SQLITE_FULL');
  }, synced);
  const results = await Promise.allSettled([createSoon({ url: 'a' }), createSoon({ url: 'b' })]);
  t.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
});

test('a burst larger than one batch is split across turns, in order', async (t) => {
  const sizes: number[] = [];
  const { create: createSoon } = createBatcher((inputs) => {
    sizes.push(inputs.length);
    return inputs.map((i) => created(String(i.url)));
  }, synced);
  const results = await Promise.all(Array.from({ length: 2500 }, (_, i) => createSoon({ url: String(i) })));
  t.deepEqual(sizes, [1000, 1000, 500]);
  t.is(results[2499]?.link.url, '2499');
});

test('no creation is answered before its batch is on disk', async (t) => {
  let disk!: () => void;
  const { create: createSoon } = createBatcher(
    (inputs) => inputs.map((i) => created(String(i.url))),
    () => new Promise<void>((resolve) => (disk = resolve)),
  );
  let answered = false;
  const pending = createSoon({ url: 'a' }).then((r) => ((answered = true), r));
  await waitFor(() => disk !== undefined);
  await new Promise((resolve) => setImmediate(resolve));
  t.false(answered, 'committed, but not yet synced');
  disk();
  t.is((await pending).link.url, 'a');
});

test('a failed disk sync rejects every creation of the batch, refused ones with their own error', async (t) => {
  const { create: createSoon } = createBatcher(
    (inputs) => inputs.map((i) => (i.url === 'bad' ? new AppError('invalid', 'url is bad', 'url') : created(String(i.url)))),
    () => Promise.reject(new Error('EIO')),
  );
  const results = await Promise.allSettled([createSoon({ url: 'a' }), createSoon({ url: 'bad' }), createSoon({ url: 'b' })]);
  t.deepEqual(
    results.map((r) => r.status === 'rejected' && (r.reason as Error).message),
    ['could not sync the database to disk', 'url is bad', 'could not sync the database to disk'],
  );
});

test('creations that arrive while a batch waits for the disk go together in the next batch', async (t) => {
  const batches: string[][] = [];
  const syncs: Array<() => void> = [];
  const { create: createSoon } = createBatcher(
    (inputs) => {
      batches.push(inputs.map((i) => String(i.url)));
      return inputs.map((i) => created(String(i.url)));
    },
    () => new Promise<void>((resolve) => syncs.push(resolve)),
  );
  const first = createSoon({ url: 'a' });
  await waitFor(() => syncs.length === 1);
  const later = ['b', 'c', 'd'].map((url) => createSoon({ url }));
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(batches, [['a']], 'nothing is written while the sync runs');
  syncs[0]!();
  await first;
  await waitFor(() => syncs.length === 2);
  t.deepEqual(batches, [['a'], ['b', 'c', 'd']]);
  syncs[1]!();
  t.deepEqual(
    (await Promise.all(later)).map((r) => r.link.url),
    ['b', 'c', 'd'],
  );
});

test('idle waits for queued creations to be written and synced, so shutdown may close the database', async (t) => {
  const batches: string[][] = [];
  const syncs: Array<() => void> = [];
  const { create, idle } = createBatcher(
    (inputs) => {
      batches.push(inputs.map((i) => String(i.url)));
      return inputs.map((i) => created(String(i.url)));
    },
    () => new Promise<void>((resolve) => syncs.push(resolve)),
  );
  await idle();
  t.deepEqual(batches, [], 'with nothing queued, idle resolves at once');

  void create({ url: 'a' });
  await waitFor(() => syncs.length === 1);
  void create({ url: 'b' }); // its client may have hung up: nobody awaits it, shutdown still must
  let isIdle = false;
  const done = idle().then(() => (isIdle = true));
  syncs[0]!();
  await waitFor(() => syncs.length === 2);
  t.false(isIdle, 'the second batch is written but not yet synced');
  t.deepEqual(batches, [['a'], ['b']]);
  syncs[1]!();
  await done;
  t.true(isIdle);
});
