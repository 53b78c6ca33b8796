import test from 'ava';
import { auditTrail, type AuditTrail } from '../../src/audit/audit.ts';
import { anonymous, type Actor } from '../../src/auth/actor.ts';
import { AppError } from '../../src/core/errors.ts';
import { memoryLogger } from '../../src/core/log.ts';
import { DEFAULT_OPTIONS } from '../../src/links/link.ts';
import type { AuditStore, Storage } from '../../src/store/ports.ts';
import { freshStorage } from '../helpers.ts';

// The audit trail on the backend of the run (SQLite, or PostgreSQL in make test's second pass): recording,
// the creations that links record, the filters, the pages across both, pruning with the injected clock, and
// bad filters.

const START = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const DAY = 86_400_000;

const ADMIN: Actor = { userId: 1, name: 'admin', role: 'admin', via: { kind: 'session' }, client: '203.0.113.5' };
const ANA: Actor = { userId: 2, name: 'ana', role: 'member', via: { kind: 'key', key: 'deploy' }, client: '198.51.100.7' };
const CLI: Actor = { userId: 1, name: 'admin', role: 'admin', via: { kind: 'cli' } };

async function trail(t: Parameters<typeof freshStorage>[0], retentionDays = 365) {
  const { storage } = await freshStorage(t);
  // User 1, as kurz's first start makes them: the creations that links record name their creator from here.
  await storage.access.ensureFirstAdmin('admin', null, new Date(START));
  const clock = { now: START };
  const log = memoryLogger();
  const audit = auditTrail({ store: storage.audit, now: () => clock.now, retentionDays, log, ...trailDeps(storage) });
  return { audit, clock, log, store: storage.audit, storage };
}

/** How the trail names a created link (its code on s.example) and finds a user by name, as services.ts wires them. */
function trailDeps(storage: Storage) {
  return {
    linkSubject: (link: { id: number; code: string }) => ({ kind: 'link' as const, id: link.id, label: `s.example/${link.code}` }),
    userIdOf: async (name: string) => (await storage.access.userByName(name))?.id,
  };
}

/** Creates link `code` as `actor` at `at`, as the creation use case stores it (its row records the creator); returns its id. */
async function create(storage: Storage, actor: Actor, code: string, at: number): Promise<number> {
  const link = {
    ...DEFAULT_OPTIONS,
    domain: 0,
    ownerId: actor.userId,
    review: null,
    createdBy: actor,
    code,
    url: `https://example.com/${code}`,
    isAlias: false,
    passwordHash: null,
    urlHash: null,
    createdAt: new Date(at),
  };
  return (await storage.links.write((tx) => tx.insertLink(link, null)))!;
}

/** One change a minute: admin creates links c1..c3, ana edits c2 and revokes a key, the CLI moves c1. */
async function seed(audit: AuditTrail, clock: { now: number }, storage: Storage): Promise<void> {
  const step = async (actor: Actor, ...rest: Parameters<AuditTrail['record']> extends [Actor, ...infer R] ? R : never) => {
    clock.now += MINUTE;
    await audit.record(actor, ...rest);
  };
  for (const id of [1, 2, 3]) {
    clock.now += MINUTE;
    if ((await create(storage, ADMIN, `c${id}`, clock.now)) !== id) throw new Error('links get ids 1, 2, 3 on a fresh database');
  }
  await step(ANA, 'link.edit', { kind: 'link', id: 2, label: 's.example/c2' }, { url: 'https://example.com/two' });
  await step(ANA, 'key.revoke', { kind: 'key', id: 7, label: 'deploy' });
  await step(CLI, 'link.move', { kind: 'link', id: 1, label: 't.example/c1' }, { from: 's.example', to: 't.example' });
}

test('an entry keeps who acted, how they came, the subject and the details', async (t) => {
  const { audit, clock, storage } = await trail(t);
  await seed(audit, clock, storage);
  const { entries, next } = await audit.list();
  t.is(next, null);
  t.deepEqual(
    entries.map((e) => e.action),
    ['link.move', 'key.revoke', 'link.edit', 'link.create', 'link.create', 'link.create'],
    'newest first',
  );
  const [move, revoke] = entries;
  t.like(move, {
    actorId: 1,
    actorName: 'admin',
    via: 'cli',
    keyName: null,
    client: null,
    subject: { kind: 'link', id: 1, label: 't.example/c1' },
  });
  t.deepEqual(move!.details, { from: 's.example', to: 't.example' });
  t.deepEqual(move!.at, new Date(START + 6 * MINUTE));
  t.like(revoke, { actorId: 2, actorName: 'ana', via: 'key', keyName: 'deploy', client: '198.51.100.7', details: {} });
  t.deepEqual(entries[3], {
    id: 'c3',
    at: new Date(START + 3 * MINUTE),
    actorId: 1,
    actorName: 'admin',
    via: 'session',
    keyName: null,
    client: '203.0.113.5',
    action: 'link.create',
    subject: { kind: 'link', id: 3, label: 's.example/c3' },
    details: { url: 'https://example.com/c3' },
  });
});

test("a link's creation is the entry its row records: the first target after an edit, under its creator after a hand-over", async (t) => {
  const { audit, clock, storage } = await trail(t);
  const key: Actor = { userId: 1, name: 'admin', role: 'admin', via: { kind: 'key', key: 'ci' }, client: '192.0.2.1' };
  await create(storage, key, 'k', (clock.now += MINUTE));
  await create(storage, anonymous('192.0.2.9'), 'anon', (clock.now += MINUTE));
  await create(storage, CLI, 'cli', (clock.now += MINUTE));
  const creations = async (filter: Parameters<AuditTrail['list']>[0] = {}) =>
    (await audit.list(filter)).entries.map(
      (e) => `${e.actorName} ${e.via} ${e.keyName ?? '-'} ${e.client ?? '-'} ${e.subject.label} ${e.details['url']}`,
    );
  t.deepEqual(await creations(), [
    'admin cli - - s.example/cli https://example.com/cli',
    'anonymous anonymous - 192.0.2.9 s.example/anon https://example.com/anon',
    'admin key ci 192.0.2.1 s.example/k https://example.com/k',
  ]);
  t.deepEqual(await creations({ user: 'anonymous' }), ['anonymous anonymous - 192.0.2.9 s.example/anon https://example.com/anon']);
  t.is((await creations({ user: 'admin' })).length, 2, "the admin's own, not the anonymous ones");
  t.is((await creations({ user: 1 })).length, 3, 'by id: everything user 1 owns by creating it, as logged entries count the anonymous');

  const link = (await storage.links.linkByAddress(0, 'k'))!;
  t.true(
    await storage.links.write((tx) => tx.updateLink(link, { url: 'https://example.com/changed' }, null, new Date((clock.now += MINUTE)))),
  );
  t.deepEqual(await creations({ subject: { kind: 'link', id: link.id } }), ['admin key ci 192.0.2.1 s.example/k https://example.com/k']);

  t.is(await storage.links.write((tx) => tx.handOverLinks(1, 2)), 3);
  t.is((await creations({ user: 1 })).length, 3, 'a handed-over link stays its creator’s creation');
  t.deepEqual(await creations({ user: 2 }), []);
  t.deepEqual(await creations({ action: 'key' }), []);
  t.deepEqual(await creations({ subject: { kind: 'key', id: link.id } }), []);
});

test('filters: user by id or name, an action or a kind of actions, a subject, a time range', async (t) => {
  const { audit, clock, storage } = await trail(t);
  await seed(audit, clock, storage);
  const actions = async (filter: Parameters<AuditTrail['list']>[0]) =>
    (await audit.list(filter)).entries.map((e) => `${e.action} ${e.subject.id}`);
  t.deepEqual(await actions({ user: 2 }), ['key.revoke 7', 'link.edit 2']);
  t.deepEqual(await actions({ user: 'ana' }), ['key.revoke 7', 'link.edit 2']);
  t.deepEqual(await actions({ user: 'nobody' }), []);
  t.deepEqual(await actions({ action: 'link.create' }), ['link.create 3', 'link.create 2', 'link.create 1']);
  t.deepEqual(await actions({ action: 'key.' }), ['key.revoke 7']);
  t.deepEqual(await actions({ action: 'key' }), ['key.revoke 7']);
  t.deepEqual(await actions({ action: 'link.' }), ['link.move 1', 'link.edit 2', 'link.create 3', 'link.create 2', 'link.create 1']);
  t.deepEqual(await actions({ subject: { kind: 'link', id: 2 } }), ['link.edit 2', 'link.create 2']);
  t.deepEqual(await actions({ subject: { kind: 'key', id: 2 } }), [], 'a key with the id of a link is another subject');
  t.deepEqual(
    await actions({ from: new Date(START + 2 * MINUTE), to: new Date(START + 4 * MINUTE) }),
    ['link.create 3', 'link.create 2'],
    'from inclusive, to exclusive',
  );
  t.deepEqual(await actions({ user: 1, action: 'link.', from: new Date(START + 3 * MINUTE) }), ['link.move 1', 'link.create 3']);
});

test('pages: a cursor walks the entries newest first, none twice, entries at the same instant included', async (t) => {
  const { audit, clock } = await trail(t);
  // Three entries at one instant: the id breaks the tie.
  for (let id = 1; id <= 7; id++) {
    if (id !== 3 && id !== 4) clock.now += MINUTE;
    await audit.record(ADMIN, 'link.delete', { kind: 'link', id, label: `c${id}` });
  }
  const seen: number[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await audit.list({ limit: 2, cursor });
    pages++;
    t.true(page.entries.length <= 2);
    seen.push(...page.entries.map((e) => e.subject.id));
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
  t.deepEqual(seen, [7, 6, 5, 4, 3, 2, 1]);
  t.is(pages, 4);
  const filtered = await audit.list({ limit: 1, action: 'link.delete', from: new Date(START + 2 * MINUTE) });
  t.deepEqual(
    (await audit.list({ limit: 10, action: 'link.delete', from: new Date(START + 2 * MINUTE), cursor: filtered.next! })).entries.map(
      (e) => e.subject.id,
    ),
    [6, 5, 4, 3, 2],
    'a cursor keeps to its filters',
  );
});

test('pages walk logged entries and creations together, ties at one instant included, none twice', async (t) => {
  const { audit, clock, storage } = await trail(t);
  // Per minute: a creation and a logged entry; on the third, three of each at the same instant.
  const expected: string[] = [];
  for (let minute = 1; minute <= 4; minute++) {
    clock.now += MINUTE;
    for (let n = 1; n <= (minute === 3 ? 3 : 1); n++) {
      const id = await create(storage, ADMIN, `m${minute}n${n}`, clock.now);
      await audit.record(ADMIN, 'link.edit', { kind: 'link', id, label: `edit m${minute}n${n}` });
      expected.push(`link.create ${id}`, `link.edit ${id}`);
    }
  }
  const seen: string[] = [];
  for (let cursor: string | undefined, pages = 0; ; pages++) {
    const page = await audit.list({ limit: 3, cursor });
    seen.push(...page.entries.map((e) => `${e.action} ${e.subject.id}`));
    if (page.next === null || pages > 10) break;
    cursor = page.next;
  }
  t.is(seen.length, expected.length);
  t.deepEqual([...seen].sort(), [...expected].sort(), 'every entry once');
  const all = (await audit.list({ limit: 500 })).entries;
  t.deepEqual(
    seen,
    all.map((e) => `${e.action} ${e.subject.id}`),
    'in the order of one page',
  );
  t.deepEqual(
    all.slice(0, 4).map((e) => e.action),
    ['link.edit', 'link.create', 'link.edit', 'link.edit'],
    'newest first; at one instant the logged entries before the creations',
  );
});

test('bad filters are refused, naming the parameter', async (t) => {
  const { audit } = await trail(t);
  const field = async (filter: Parameters<AuditTrail['list']>[0]) =>
    (await t.throwsAsync(audit.list(filter), { instanceOf: AppError }))?.field;
  t.is(await field({ action: 'link.frobnicate' }), 'action');
  t.is(await field({ action: 'links' }), 'action');
  t.is(await field({ action: "link.' OR 1=1 --" }), 'action');
  t.is(await field({ limit: 0 }), 'limit');
  t.is(await field({ limit: 501 }), 'limit');
  t.is(await field({ limit: 2.5 }), 'limit');
  t.is(await field({ cursor: 'not a cursor' }), 'cursor');
  t.is(await field({ from: new Date(START + DAY), to: new Date(START) }), 'from');
  t.is((await audit.list({ limit: 500 })).entries.length, 0);
});

test('prune deletes entries and clears creations past auditRetentionDays by the clock; 0 keeps them for good', async (t) => {
  const { audit, clock, store, storage } = await trail(t, 30);
  await audit.record(ADMIN, 'domain.add', { kind: 'domain', id: 1, label: 'old.example' });
  await create(storage, ADMIN, 'old', clock.now);
  clock.now += 20 * DAY;
  await audit.record(ADMIN, 'domain.add', { kind: 'domain', id: 2, label: 'new.example' });
  await create(storage, ADMIN, 'new', clock.now);
  clock.now += 15 * DAY;
  t.is(await audit.expired(), 2);
  t.is(await audit.prune(), 2);
  t.deepEqual(
    (await audit.list()).entries.map((e) => e.subject.label),
    ['new.example', 's.example/new'],
  );
  t.truthy(await storage.links.linkByAddress(0, 'old'), 'the link stays; only the record of who created it goes');
  t.is(await audit.expired(), 0);
  t.is(await audit.prune(), 0);
  clock.now += 20 * DAY;
  t.is(await audit.expired(), 2, 'the next prune reads on from the last');
  const forever = auditTrail({ store, now: () => clock.now + 10_000 * DAY, retentionDays: 0, log: memoryLogger(), ...trailDeps(storage) });
  t.is(await forever.expired(), 0);
  t.is(await forever.prune(), 0);
  t.is((await audit.list()).entries.length, 2);
});

test('a failed write is logged at error level and never rejects into the caller', async (t) => {
  const log = memoryLogger();
  const failing: AuditStore = {
    insertAudit: () => Promise.reject(new Error('disk full')),
    listAudit: async () => [],
    listCreations: async () => [],
    pruneAudit: async () => 0,
    countAuditBefore: async () => 0,
  };
  const audit = auditTrail({
    store: failing,
    now: () => START,
    retentionDays: 365,
    log,
    linkSubject: () => ({ kind: 'link', id: 0, label: '' }),
    userIdOf: async () => undefined,
  });
  await t.notThrowsAsync(audit.record(ADMIN, 'user.disable', { kind: 'user', id: 2, label: 'ana' }));
  t.like(log.records[0], {
    level: 'error',
    message: 'could not record to the audit trail',
    fields: { action: 'user.disable', subject: 'user 2' },
  });
});

test('long labels and details are cut short', async (t) => {
  const { audit } = await trail(t);
  await audit.record(
    ADMIN,
    'link.edit',
    { kind: 'link', id: 1, label: 'x'.repeat(1000) },
    { url: 'y'.repeat(5000), enabled: true, expires: null },
  );
  const [entry] = (await audit.list()).entries;
  t.is(entry!.subject.label.length, 200);
  t.is(String(entry!.details['url']).length, 200);
  t.like(entry!.details, { enabled: true, expires: null });
});
