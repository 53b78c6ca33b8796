import { randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { RedirectCache } from '../../src/cache/redirect-cache.ts';
import { createCodeGenerator, type CodeGenerator } from '../../src/codes/code-generator.ts';
import { loadConfig } from '../../src/config.ts';
import { DomainRegistry } from '../../src/domains/registry.ts';
import { linkCreation, type CreateLinkInput } from '../../src/links/create.ts';
import { DEFAULT_OPTIONS } from '../../src/links/link.ts';
import type { LinkStore } from '../../src/store/ports.ts';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { createSqliteLinkStore } from '../../src/store/sqlite/link-store.ts';
import { createSqliteVisitStore } from '../../src/store/sqlite/visit-store.ts';
import { watchWrites } from '../../src/store/sqlite/write-health.ts';
import { memoryLogger } from '../../src/core/log.ts';
import { PasswordHashing } from '../../src/auth/passwords.ts';
import type { VisitBatch } from '../../src/visits/rollup.ts';
import type { VisitCount } from '../../src/visits/visit.ts';
import { backend, freshStorage, newLink, sqliteOnly, tempDir } from '../helpers.ts';
import { SERVER_ADMIN } from '../../src/auth/actor.ts';

/** A flush that only adds to links' all-time counts. */
function linkVisits(...links: VisitCount[]): VisitBatch {
  return { visits: [], hours: [], days: [], dimensions: [], dimensionDays: [], visitors: [], links };
}

/** Link creation on `links` with a fixed clock and a small cache. */
function serviceOn(links: LinkStore, codes: CodeGenerator, settings: Record<string, unknown> = {}) {
  const config = loadConfig({ file: { publicUrl: 'https://s.example', ...settings } });
  const creation = linkCreation({
    config,
    domains: new DomainRegistry(config.publicUrl, []),
    now: () => 1000,
    random: randomBytes,
    links,
    codes,
    cache: new RedirectCache({ size: 10, negativeTtl: 0, now: () => 0 }),
    hashing: new PasswordHashing(1),
  });
  return {
    createLink: (input: CreateLinkInput) => creation.createLink(SERVER_ADMIN, input),
    /** Creations handed over in one turn of the event loop, as concurrent requests are. */
    createLinks: (inputs: CreateLinkInput[]) => Promise.allSettled(inputs.map((input) => creation.createLink(SERVER_ADMIN, input))),
  };
}

test('a generated code that spells a reserved path is skipped, and its id never used', async (t) => {
  const { storage } = await freshStorage(t);
  const spelled: Record<number, string> = { 1: 'HealthZ', 2: 'abc123' };
  const codeFor = (id: number): string => spelled[id] ?? `code${id}`;
  const codes: CodeGenerator = {
    codeFor,
    codesFor: (first, count) => Array.from({ length: count }, (_, k) => codeFor(first + k)),
    idFor: () => undefined,
  };
  const links = serviceOn(storage.links, codes, { dedupeWindow: 'off' });
  const first = await links.createLink({ url: 'https://example.com/1' });
  t.is(first.link.code, 'abc123');
  t.is(first.link.id, 2);
  t.is((await links.createLink({ url: 'https://example.com/2' })).link.id, 3);
});

test('ids taken in one transaction never meet the ids an alias or an import took in it: each link gets its own', async (t) => {
  const { storage, database } = await freshStorage(t);
  const link = (code: string, isAlias = false) => newLink(code, { isAlias });
  const record = (code: string) => ({
    ...link(code, true),
    updatedAt: new Date(1),
    visitCount: 0,
    lastVisitAt: null,
    deletedAt: null,
    split: null,
    claimedVisits: 0,
  });
  const ids = await storage.links.write(async (tx) => {
    const taken: Array<number | undefined> = [];
    for (const step of ['generated', 'alias', 'import', 'generated', 'import', 'alias', 'generated']) {
      const n = taken.length;
      if (step === 'generated') taken.push(await tx.insertLink(link(`gen${n}`), await tx.takeLinkId()));
      else if (step === 'alias') taken.push(await tx.insertLink(link(`alias${n}`, true), null));
      else taken.push(await tx.importLink(record(`imported${n}`), null));
    }
    return taken;
  });
  t.true(
    ids.every((id) => id !== undefined),
    JSON.stringify(ids),
  );
  t.is(new Set(ids).size, ids.length);
  const stored = await database.sql<{ n: number }>(`SELECT count(*) AS n FROM links WHERE url LIKE 'https://example.com/%'`);
  t.is(Number(stored[0]?.n), ids.length);
});

sqliteOnly('visit counts are written without a disk sync, and links keep their full sync afterwards', 'PRAGMA synchronous', async (t) => {
  const db = openDatabase(join(tempDir(t), 'k.db'));
  t.teardown(() => db.close());
  const health = watchWrites(db, memoryLogger());
  const store = createSqliteLinkStore(db, health);
  const id = (await store.write((tx) => tx.insertLink(newLink('v', { url: 'https://example.com/' }), null))) ?? 0;
  await createSqliteVisitStore(db, health).addVisits(linkVisits({ id, count: 3, lastVisitAt: 50 }));
  t.is((await store.linkByAddress(0, 'v'))?.visitCount, 3);
  t.is(db.pragma('synchronous', { simple: true }), 2, 'FULL again');
});

test('the dedupe probe finds the newest live link with the URL hash in the window, with its visits', async (t) => {
  const { storage, database } = await freshStorage(t);
  const store = storage.links;
  const urlHash = Buffer.alloc(32, 7);
  const insert = async (code: string, now: number) =>
    (await store.write((tx) => tx.insertLink(newLink(code, { url: 'https://example.com/', urlHash, createdAt: new Date(now) }), null))) ??
    0;
  const older = await insert('older', 100);
  const newer = await insert('newer', 200);
  await insert('other', 300);
  await database.sql('UPDATE links SET url_hash = ? WHERE code = ?', Buffer.alloc(32, 8), 'other');
  await storage.visits.addVisits(linkVisits({ id: newer, count: 4, lastVisitAt: 250 }));
  const probe = (hash: Buffer, since: number) => store.write((tx) => tx.linkByUrlHash(hash, new Date(since), 0, 1));

  t.like(await probe(urlHash, 0), { id: newer, code: 'newer', visitCount: 4, lastVisitAt: new Date(250) });
  t.is(await probe(urlHash, 201), undefined, 'created before the window');
  await store.write((tx) => tx.deleteLink(newer, new Date(400)));
  t.like(await probe(urlHash, 0), { id: older, code: 'older', visitCount: 0 });
  t.is(await probe(urlHash, 101), undefined, 'the only live one is too old');
  t.is(await probe(Buffer.alloc(32, 9), 0), undefined);
});

test('a batch of creations gives each generated link the code of its id, around aliases, dedupe hits and refusals', async (t) => {
  const { storage, database } = await freshStorage(t);
  const codes = createCodeGenerator({ mode: 'obfuscated', length: 6, key: randomBytes(32), offset: 0 });
  const links = serviceOn(storage.links, codes);
  await links.createLink({ url: 'https://example.com/first' });
  const settled = await links.createLinks([
    { url: 'https://example.com/a' },
    { url: 'https://example.com/b', alias: 'bee' },
    { url: 'https://example.com/first' },
    { url: 'not a url' },
    { url: 'https://example.com/c' },
    { url: 'https://example.com/a' },
    { url: 'https://example.com/d' },
  ]);
  const results = settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error)));
  const created = results.filter((r) => !(r instanceof Error) && r.created && !r.link.isAlias);
  t.is(created.length, 3);
  for (const r of created) if (!(r instanceof Error)) t.is(r.link.code, codes.codeFor(r.link.id));
  t.deepEqual(
    results.map((r) => (r instanceof Error ? 'refused' : r.created ? r.link.id : `same as ${r.link.id}`)),
    [2, 3, 'same as 1', 'refused', 4, 'same as 2', 5],
  );
  const stored = await database.sql<{ id: number; code: string }>('SELECT id, code FROM links WHERE url_hash IS NOT NULL ORDER BY id');
  for (const { id, code } of stored) t.is(code, codes.codeFor(id));
});

test('a batch meets its own aliases and URLs as one after another would, and its edits and deletes apply', async (t) => {
  const { storage, database } = await freshStorage(t);
  const codes = createCodeGenerator({ mode: 'obfuscated', length: 6, key: randomBytes(32), offset: 0 });
  const links = serviceOn(storage.links, codes);
  const gone = await links.createLink({ url: 'https://example.com/gone', alias: 'gone' });
  const edited = await links.createLink({ url: 'https://example.com/edited', alias: 'edited' });
  // One turn of the event loop: one group commit, its creations written together, the rest one at a time.
  const [settled, deleted, ruled] = await Promise.all([
    links.createLinks([
      { url: 'https://example.com/a', alias: 'twice' },
      { url: 'https://example.com/b', alias: 'twice' },
      { url: 'https://example.com/c' },
      { url: 'https://example.com/c' },
      { url: 'https://example.com/d', title: 'With a title', tags: ['one', 'two'] },
      { url: 'https://example.com/e', alias: 'gone' },
    ]),
    storage.links.write((tx) => tx.deleteLink(gone.link.id, new Date(2000))),
    storage.links.write((tx) => tx.setRules(edited.link.id, null, new Date(2000))),
  ]);
  const outcomes = settled.map((s) =>
    s.status === 'rejected' ? (s.reason as Error).message : s.value.created ? `created ${s.value.link.code}` : `same as ${s.value.link.id}`,
  );
  const c = settled[2]!.status === 'fulfilled' ? settled[2]!.value.link : undefined;
  const d = settled[4]!.status === 'fulfilled' ? settled[4]!.value.link : undefined;
  t.deepEqual(outcomes, [
    'created twice',
    'alias "twice" is already taken',
    `created ${c?.code}`,
    `same as ${c?.id}`,
    `created ${d?.code}`,
    'alias "gone" is already taken',
  ]);
  t.true(deleted);
  t.true(ruled);
  t.like(await storage.links.linkByAddress(0, 'twice'), { url: 'https://example.com/a' });
  t.like(await storage.links.linkByAddress(0, d!.code), { title: 'With a title', tags: ['one', 'two'] });
  t.truthy((await storage.links.linkById(gone.link.id))?.deletedAt);
  const [{ n }] = (await database.sql<{ n: number }>('SELECT count(*) AS n FROM links')) as [{ n: number }];
  t.is(n, 5, 'two before, three created');
});

test('a creation the database refuses in a batch fails alone: the others of its batch are stored', async (t) => {
  const { storage, database } = await freshStorage(t);
  const codes = createCodeGenerator({ mode: 'obfuscated', length: 6, key: randomBytes(32), offset: 0 });
  const links = serviceOn(storage.links, codes);
  const insert = (code: string, url: string) =>
    storage.links.write((tx) => tx.insertLink(newLink(code, { url, isAlias: true, createdAt: new Date(1000) }), null));
  // A NUL character is no text to PostgreSQL: its statement fails, and with it one that wrote the whole batch.
  const refused = backend === 'postgres';
  const [good, bad, created] = await Promise.allSettled([
    insert('good', 'https://example.com/good'),
    insert('bad', 'https://example.com/\u0000'),
    links.createLinks([{ url: 'https://example.com/1' }, { url: 'https://example.com/2', alias: 'two' }]),
  ]);
  t.is(good.status, 'fulfilled');
  t.is(bad.status, refused ? 'rejected' : 'fulfilled');
  t.deepEqual(
    created.status === 'fulfilled' ? created.value.map((s) => s.status) : created.status,
    ['fulfilled', 'fulfilled'],
    "the batch's creations are stored",
  );
  const codesStored = await database.sql<{ code: string }>('SELECT code FROM links ORDER BY id');
  t.deepEqual(
    codesStored.map((row) => row.code).filter((code) => code === 'good' || code === 'bad' || code === 'two'),
    refused ? ['good', 'two'] : ['good', 'bad', 'two'],
  );
  t.is(codesStored.length, refused ? 3 : 4);
});

sqliteOnly('a write keeps the WAL open for its sync, across a checkpoint that empties it, until close', 'the WAL file', async (t) => {
  const path = join(tempDir(t), 'k.db');
  const db = openDatabase(path);
  t.teardown(() => db.open && db.close());
  const store = createSqliteLinkStore(db, watchWrites(db, memoryLogger()));
  // SQLite holds one descriptor of the WAL itself; the store's sync the second.
  const walDescriptors = () => walDescriptorsOf(path);
  t.is(walDescriptors(), 1);
  await insertLink(store, 'a');
  t.is(walDescriptors(), 2);
  db.pragma('wal_checkpoint(TRUNCATE)');
  await insertLink(store, 'b');
  t.is(walDescriptors(), 2, 'the same file, not a second descriptor');
  store.close();
  t.is(walDescriptors(), 1);
  db.close();
  t.is(walDescriptors(), 0);
});

sqliteOnly(
  'with durability process no write waits for the disk: the connection stays in NORMAL and the WAL is never synced',
  'PRAGMA synchronous and the WAL file',
  async (t) => {
    const path = join(tempDir(t), 'k.db');
    const db = openDatabase(path, { durability: 'process' });
    t.teardown(() => db.open && db.close());
    t.is(db.pragma('synchronous', { simple: true }), 1, 'NORMAL');
    const health = watchWrites(db, memoryLogger());
    t.teardown(() => health.close());
    const store = createSqliteLinkStore(db, health, 'process');
    const id = (await insertLink(store, 'a')) ?? 0;
    t.is(walDescriptorsOf(path), 1, "SQLite's own: the store opened none to sync");
    await createSqliteVisitStore(db, health, { durability: 'process' }).addVisits(linkVisits({ id, count: 2, lastVisitAt: 50 }));
    t.is(db.pragma('synchronous', { simple: true }), 1, 'still NORMAL after a link write and a visit write');
    store.close();
    db.close();
    const again = openDatabase(path);
    t.teardown(() => again.close());
    t.like(again.prepare('SELECT code, count FROM links JOIN link_visits ON link_visits.link_id = links.id').get(), {
      code: 'a',
      count: 2,
    });
  },
);

/** Descriptors this process holds of the WAL of the database at `path`. */
function walDescriptorsOf(path: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === `${path}-wal`;
    } catch {
      return false;
    }
  }).length;
}

/** Stores a bare link with code `code`; resolves with its id. */
function insertLink(store: LinkStore, code: string): Promise<number | undefined> {
  return store.write((tx) => tx.insertLink(newLink(code, { url: 'https://example.com/' }), null));
}

test("the list's numbered pages: an offset, a count of the whole list, and tags left out (any of them, or all)", async (t) => {
  const { storage, database } = await freshStorage(t);
  await database.insert(
    'links',
    Array.from({ length: 7 }, (_, i) => ({
      id: i + 1,
      code: `n${i + 1}`,
      url: `https://example.com/${i + 1}`,
      created_at: i,
      updated_at: i,
    })),
  );
  const tags = { 1: ['red', 'blue'], 2: ['red'], 3: ['blue'], 5: ['green'] } as Record<number, string[]>;
  await database.insert(
    'link_tags',
    Object.entries(tags).flatMap(([id, names]) => names.map((tag) => ({ link_id: Number(id), tag }))),
  );
  const codes = async (query: Parameters<LinkStore['listLinks']>[0]) => (await storage.links.listLinks(query)).map((l) => l.code);
  t.deepEqual(await codes({ limit: 3, offset: 3 }), ['n4', 'n3', 'n2'], 'newest first, after skipping three');
  t.deepEqual(await codes({ limit: 3, offset: 6 }), ['n1']);
  t.deepEqual(await codes({ limit: 3, offset: 9 }), []);
  t.deepEqual(await codes({ limit: 2, offset: 1, sort: 'code', order: 'asc' }), ['n2', 'n3']);
  t.is(await storage.links.countLinks({ limit: 1, offset: 5 }), 7, 'the count ignores the page');
  t.is(await storage.links.countLinks({ limit: 1, tags: ['red', 'blue'], tagMode: 'all' }), 1);
  t.deepEqual(await codes({ limit: 10, excludeTags: ['red', 'green'] }), ['n7', 'n6', 'n4', 'n3']);
  t.deepEqual(await codes({ limit: 10, excludeTags: ['red', 'blue'], excludeTagMode: 'all' }), ['n7', 'n6', 'n5', 'n4', 'n3', 'n2']);
  t.is(await storage.links.countLinks({ limit: 1, excludeTags: ['red'], tags: ['blue'] }), 1);
  await database.sql('UPDATE links SET deleted_at = 1 WHERE id = 7');
  t.is(await storage.links.countLinks({ limit: 1 }), 6, 'deleted links are left out of the count, as of the list');
});

test('a start time and crawlable are stored, read back, carried in the gate, logged as changes and listed for robots.txt', async (t) => {
  const { storage } = await freshStorage(t);
  const store = storage.links;
  const insert = (code: string, options: Partial<typeof DEFAULT_OPTIONS>) =>
    store.write((tx) => tx.insertLink(newLink(code, { ...options, isAlias: true, createdAt: new Date(100) }), null));
  await insert('later', { startsAt: new Date(5000), crawlable: true });
  await insert('plain', {});
  t.like(await store.linkByAddress(0, 'later'), { startsAt: new Date(5000), crawlable: true });
  t.like(await store.linkByAddress(0, 'plain'), { startsAt: null, crawlable: false });
  t.like((await store.targetByAddress(0, 'later'))?.gate, { startsAt: 5000 });
  t.is((await store.targetByAddress(0, 'plain'))?.gate, null, 'a plain link still has no gate');
  t.deepEqual(await store.crawlableLinks(0), [{ code: 'later', startsAt: 5000, expiresAt: null }]);

  const seen = await store.lastChange();
  const plain = (await store.linkByAddress(0, 'plain'))!;
  t.true(await store.write((tx) => tx.updateLink(plain, { startsAt: new Date(7000), crawlable: true }, null, new Date(200))));
  t.like(await store.linkByAddress(0, 'plain'), { startsAt: new Date(7000), crawlable: true });
  t.like(await store.changesAfter(seen), [{ domain: 0, code: 'plain' }], 'every cache drops it');
  const later = (await store.linkByAddress(0, 'later'))!;
  await store.write((tx) => tx.updateLink(later, { crawlable: false, startsAt: null }, null, new Date(300)));
  t.deepEqual(await store.crawlableLinks(0), [{ code: 'plain', startsAt: 7000, expiresAt: null }]);
  t.is((await store.targetByAddress(0, 'later'))?.gate, null, 'without its start time it is plain again');
});
