import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import pg from 'pg';
import type { ApiKey } from '../../src/auth/identity.ts';
import { AppError } from '../../src/core/errors.ts';
import type { NewLink } from '../../src/links/link.ts';
import { memoryLogger } from '../../src/core/log.ts';
import type { LinkWriter, Storage } from '../../src/store/ports.ts';
import { loadConfig } from '../../src/config.ts';
import { copyDatabase } from '../../src/store/copy.ts';
import { parseChange } from '../../src/store/postgres/link-store.ts';
import { MIGRATIONS } from '../../src/store/postgres/migrations.ts';
import * as q from '../../src/store/postgres/queries.ts';
import { openPostgresStorage, type PostgresStorage } from '../../src/store/postgres/storage.ts';
import { createSqliteAuditStore } from '../../src/store/sqlite/audit-store.ts';
import { createSqliteWebhookStore } from '../../src/store/sqlite/webhook-store.ts';
import { createSqliteAccessStore } from '../../src/store/sqlite/access-store.ts';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { createSqliteDomainStore } from '../../src/store/sqlite/domain-store.ts';
import { createSqliteLinkStore } from '../../src/store/sqlite/link-store.ts';
import { createSqliteSettingsStore } from '../../src/store/sqlite/settings-store.ts';
import { openSqliteStorage } from '../../src/store/sqlite/storage.ts';
import { createSqliteVisitStore } from '../../src/store/sqlite/visit-store.ts';
import { watchWrites } from '../../src/store/sqlite/write-health.ts';
import { rollUp } from '../../src/visits/rollup.ts';
import { proxyTo } from '../support/tcp-proxy.ts';
import { DAY, HOUR, type Visit, type VisitTally } from '../../src/visits/visit.ts';
import { newLink as sharedNewLink, tempDir, waitFor } from '../helpers.ts';

/** A maintenance database URL (…/postgres) on a server where the tests may create databases. */
const SERVER = process.env['KURZ_TEST_POSTGRES_URL'];

const START = Date.UTC(2026, 0, 1);

/** A database of its own for one test, dropped when the test ends; returns its URL. */
async function freshDatabase(t: ExecutionContext): Promise<string> {
  const name = `kurz_test_${randomBytes(6).toString('hex')}`;
  await withClient(SERVER!, (c) => c.query(`CREATE DATABASE ${name}`));
  t.teardown(() => withClient(SERVER!, (c) => c.query(`DROP DATABASE ${name} WITH (FORCE)`)));
  const url = new URL(SERVER!);
  url.pathname = `/${name}`;
  return url.href;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A connection to `url` for what a test reads or does behind kurz's back, closed when the test ends. */
async function adminOf(t: ExecutionContext, url: string): Promise<pg.Client> {
  const client = new pg.Client(url);
  await client.connect();
  t.teardown(() => client.end());
  return client;
}

async function open(t: ExecutionContext, url: string, idBlockSize = 100, log = memoryLogger()): Promise<PostgresStorage> {
  const storage = await openPostgresStorage({ databaseUrl: url, idBlockSize }, { log });
  t.teardown(() => storage.close());
  return storage;
}

function newLink(code: string, fields: Partial<NewLink> = {}): NewLink {
  return sharedNewLink(code, { createdAt: new Date(START), ...fields });
}

function visit(linkId: number, at: number, fields: Partial<Visit> = {}): Visit {
  return {
    linkId,
    at,
    bot: null,
    referrer: null,
    browser: null,
    os: null,
    device: null,
    country: null,
    language: null,
    visitor: null,
    variant: null,
    rule: null,
    ...fields,
  };
}

/** The storage ports on a fresh SQLite file: the reference the PostgreSQL backend must answer like. */
function sqliteStorage(t: ExecutionContext): Omit<Storage, 'close' | 'databaseBytes'> {
  const db = openDatabase(join(tempDir(t), 'k.db'));
  t.teardown(() => db.close());
  const health = watchWrites(db, memoryLogger());
  const visits = createSqliteVisitStore(db, health);
  return {
    links: createSqliteLinkStore(db, health),
    visits: { ...visits, offload: () => false },
    domains: createSqliteDomainStore(db, health),
    settings: createSqliteSettingsStore(db, health),
    access: createSqliteAccessStore(db, health),
    audit: createSqliteAuditStore(db, health),
    webhooks: createSqliteWebhookStore(db, health),
    problem: async () => health.fault,
    visitDetailDropped: () => 0,
  };
}

/** Every answer of the ports to one script of writes and reads. */
async function script(storage: Omit<Storage, 'close' | 'databaseBytes'>): Promise<Record<string, unknown>> {
  const { links, visits, settings, access } = storage;
  const out: Record<string, unknown> = {};
  const insert = (link: NewLink) => links.write((tx) => tx.insertLink(link, null));
  const hash = Buffer.alloc(32, 3);
  const ids = [
    await insert(newLink('plain', { urlHash: hash })),
    await insert(newLink('Tagged', { tags: ['zeta', 'Alpha', 'beta'], title: 'Some 100% Title', createdAt: new Date(START + DAY) })),
    await insert(newLink('limited', { maxVisits: 2, note: 'a_b', createdAt: new Date(START + 2 * DAY) })),
    await insert(newLink('gated', { isAlias: true, passwordHash: 'h', redirectStatus: 307, forwardQuery: false, tags: ['beta'] })),
    await insert(newLink('doomed', { tags: ['beta'], expiresAt: new Date(START + 9 * DAY), enabled: false })),
  ];
  out['ids'] = ids;
  out['taken'] = await insert(newLink('plain'));
  out['dedupe'] = await links.write((tx) => tx.linkByUrlHash(hash, new Date(0), 0, 1));
  out['imported'] = await links.write((tx) =>
    tx.importLink(
      {
        ...newLink('imported', { tags: ['x'] }),
        updatedAt: new Date(START + 5),
        visitCount: 4,
        lastVisitAt: new Date(START + 7),
        deletedAt: null,
        split: null,
        claimedVisits: 1,
      },
      null,
    ),
  );
  out['edited'] = await links.write(async (tx) => {
    const link = await tx.linkByAddress(0, 'Tagged');
    return tx.updateLink(link!, { url: 'https://example.com/new', tags: ['beta', 'gamma'] }, null, new Date(START + 3 * DAY));
  });
  out['deleted'] = [
    await links.write((tx) => tx.deleteLink(ids[4]!, new Date(START + 4 * DAY))),
    await links.write((tx) => tx.deleteLink(ids[4]!, new Date(START + 4 * DAY))),
  ];
  out['editDeleted'] = await links.write(async (tx) =>
    tx.updateLink((await tx.linkByAddress(0, 'doomed'))!, { title: 't' }, null, new Date(1)),
  );
  out['claims'] = [
    await links.claimVisit(ids[2]!),
    await links.hasVisitsLeft(ids[2]!),
    await links.claimVisit(ids[2]!),
    await links.claimVisit(ids[2]!),
    await links.hasVisitsLeft(ids[2]!),
    await links.claimVisit(ids[0]!),
    await links.hasVisitsLeft(ids[0]!),
  ];
  out['targets'] = await Promise.all(['plain', 'gated', 'doomed', 'missing'].map((c) => links.targetByAddress(0, c)));

  const visitor = (n: number) => Buffer.alloc(16, n);
  const batch = [
    visit(ids[0]!, START + 1000, { referrer: 'a.example', browser: 'Firefox', visitor: visitor(1) }),
    visit(ids[0]!, START + 2000, { browser: 'Firefox', country: 'DE', visitor: visitor(1) }),
    visit(ids[0]!, START + HOUR + 5, { language: 'de', visitor: visitor(2) }),
    visit(ids[0]!, START + DAY + 5, { visitor: visitor(1) }),
    visit(ids[1]!, START + 10, { bot: 'Slackbot' }),
    visit(ids[1]!, START + 20, { os: 'Linux', device: 'desktop', visitor: visitor(3) }),
    visit(ids[2]!, START + 2 * DAY, { visitor: visitor(3) }),
  ];
  await visits.addVisits(rollUp(batch, true));
  await visits.addVisits(rollUp([visit(ids[0]!, START + 3000, { visitor: visitor(1) }), visit(ids[1]!, START + 30)], true));
  // Visits only counted, their detail dropped (visit-backlog.ts): in the counts, and in detailDropped.
  await visits.addVisits(
    rollUp([], true, [
      { linkId: ids[0]!, at: START + HOUR + 5, bot: false, visits: 7 },
      { linkId: ids[1]!, at: START + DAY, bot: true, visits: 2 },
    ]),
  );
  const range = [new Date(START), new Date(START + 3 * DAY)] as const;
  out['hours'] = await visits.linkHours(ids[0]!, ...range);
  const byValue = (a: { dimension: string; value: string }, b: { dimension: string; value: string }) =>
    `${a.dimension} ${a.value}` < `${b.dimension} ${b.value}` ? -1 : 1;
  out['dimensions'] = (await visits.linkDimensions(ids[0]!, ...range)).sort(byValue);
  out['dimensionsByHour'] = (await visits.linkDimensions(ids[0]!, new Date(START + HOUR), new Date(START + 2 * HOUR))).sort(byValue);
  out['dayTotals'] = await visits.dayTotals(...range);
  out['topLinks'] = await visits.topLinks(...range, 2);
  out['totals'] = await visits.totals();
  const dropped = (tallies: readonly VisitTally[]): number => tallies.reduce((sum, d) => sum + d.undetailed, 0);
  out['detailDropped'] = [
    dropped(await visits.dayTotals(...range)),
    dropped((await visits.hourFigures(new Date(START + HOUR), new Date(START + 2 * HOUR), 5, undefined, false)).totals),
    dropped(await visits.dayTotals(...range, 1)),
    dropped(await visits.dayTotals(...range, 99)),
  ];
  out['createdPerDay'] = await visits.linksCreatedPerDay(new Date(0), new Date(START + 10 * DAY));
  const raw = [];
  for await (const v of visits.allVisits(...range)) raw.push(v);
  out['raw'] = raw;
  out['before'] = await visits.countVisitsBefore(new Date(START + DAY));
  out['pruned'] = await visits.pruneVisits(new Date(START + DAY), new Date(START + DAY), 3);
  out['afterPrune'] = await visits.countVisitsBefore(new Date(START + DAY));

  out['lists'] = await Promise.all([
    links.listLinks({ limit: 3 }),
    links.listLinks({ limit: 3, after: { id: ids[2]! } }),
    links.listLinks({ limit: 10, includeDeleted: true }),
    links.listLinks({ limit: 10, search: 'EXAMPLE.COM/NEW' }),
    links.listLinks({ limit: 10, search: '100%' }),
    links.listLinks({ limit: 10, search: '_' }),
    links.listLinks({ limit: 10, search: 'a_b' }),
    links.listLinks({ limit: 10, tags: ['beta'] }),
    links.listLinks({ limit: 10, tags: ['beta'], includeDeleted: true }),
    links.listLinks({ limit: 2, sort: 'visits' }),
    links.listLinks({ limit: 10, sort: 'visits', after: { id: ids[1]!, visits: 2 } }),
  ]);
  out['tagCounts'] = await links.tagCounts();
  const all = [];
  for await (const link of links.allLinks()) all.push(link);
  out['all'] = all;
  out['unvisited'] = await links.write((tx) => tx.unvisitedSince(new Date(START + DAY + 1)));
  out['lastChange'] = await links.lastChange();
  out['changes'] = await links.changesAfter(0);
  await links.forgetChangesUpTo(1);
  out['changesLeft'] = await links.changesAfter(0);

  out['settings'] = [
    await settings.setting('k'),
    await settings.settingOrInit('k', () => 'first'),
    await settings.settingOrInit('k', () => 'second'),
    await settings.setSetting('k', 'third'),
    await settings.setting('k'),
  ];
  out['problem'] = await storage.problem();

  const session = { idHash: 'aa', user: 'admin', userId: 1, createdAt: new Date(10), seenAt: new Date(20) };
  await access.insertSession(session);
  await access.insertSession({ ...session, idHash: 'bb', createdAt: new Date(1) });
  await access.touchSession('aa', new Date(30));
  const sessions = [await access.sessionByIdHash('aa'), await access.sessionByIdHash('bb')];
  await access.deleteExpiredSessions(new Date(0), new Date(5));
  sessions.push(await access.sessionByIdHash('bb'));
  await access.deleteSession('aa');
  sessions.push(await access.sessionByIdHash('aa'));
  await access.insertSession(session);
  await access.deleteAllSessions();
  sessions.push(await access.sessionByIdHash('aa'));
  out['sessions'] = sessions;

  const key = (name: string, keyHash: string) =>
    access.insertKey({
      userId: 1,
      name,
      prefix: `p_${name}`,
      keyHash,
      scopes: name === 'Backup' ? ['export'] : ['links:read', 'stats:read'],
      createdAt: new Date(100),
      expiresAt: name === 'z' ? new Date(5000) : null,
    });
  const keys: Array<ApiKey | boolean | undefined> = [
    await key('ci', 'h1'),
    await key('ci', 'h2'),
    await key('Backup', 'h3'),
    await key('z', 'h1'),
  ];
  await access.touchKey((keys[0] as ApiKey).id, new Date(200), '2001:db8::7');
  keys.push(await access.revokeKey(1, 'ci', new Date(300)), await access.revokeKey(1, 'ci', new Date(300)), await key('ci', 'h4'));
  keys.push(await access.revokeKey(1, 'Backup', new Date(400)));
  out['keys'] = [keys, await access.keyByHash('h1'), await access.keyByHash('nope'), await access.listKeys()];
  return out;
}

test('a change notification parses into its link and address, or its domain; anything else is ignored', (t) => {
  const cases: Array<[string, ReturnType<typeof parseChange>]> = [
    ['12 0 abc', { linkId: 12, domain: 0, code: 'abc' }],
    ['7 3 my-alias_x', { linkId: 7, domain: 3, code: 'my-alias_x' }],
    ['9 1 -', { linkId: 9, domain: 1, code: '-' }],
    ['- 4 -', { linkId: null, domain: 4, code: null }],
    ['abc', undefined],
    ['', undefined],
    ['12 0', undefined],
    ['12 0 a b', undefined],
    ['x 0 abc', undefined],
    ['- x -', undefined],
    ['- 4 abc', undefined],
    [' 12 0 abc', undefined],
  ];
  for (const [payload, expected] of cases) t.deepEqual(parseChange(payload), expected, JSON.stringify(payload));
});

/** A domain on `storage`; its id. */
async function addDomain(storage: Storage, host: string, createdAt = START): Promise<number> {
  const domain = await storage.domains.insertDomain({
    host,
    scheme: null,
    users: null,
    notFoundRedirect: null,
    rootRedirect: null,
    createdAt: new Date(createdAt),
  });
  return domain!.id;
}

if (SERVER === undefined) {
  test('the PostgreSQL store tests have a server to run against', (t) => {
    t.fail('set KURZ_TEST_POSTGRES_URL to a maintenance database URL (postgres://USER@HOST:PORT/postgres); make test starts a server');
  });
} else {
  test('the dedupe probes find a URL through its hash index, not by reading every link, before the database has statistics', async (t) => {
    const url = await freshDatabase(t);
    await open(t, url);
    const admin = await adminOf(t, url);
    // 5,000 links of one owner on one domain, never analyzed (the test server runs no autovacuum): a new database,
    // or one `kurz migrate` just filled.
    await admin.query(`INSERT INTO links (id, code, url, url_hash, created_at, updated_at, domain_id, owner_id)
      SELECT n, 'c' || n, 'https://example.com/' || n, sha256(int8send(n)), ${START}, ${START}, 0, 1 FROM generate_series(1, 5000) AS n`);
    await admin.query(`PREPARE one AS ${q.LINK_ID_BY_URL_HASH}`);
    await admin.query(`PREPARE many AS ${q.LINK_IDS_BY_URL_HASH}`);
    const one = `one(sha256(int8send(42::bigint)), 0, 0, 1, false)`;
    const many = `many(ARRAY[sha256(int8send(42::bigint)), sha256(int8send(4242::bigint))], ARRAY[0, 0]::bigint[], ARRAY[0, 0]::bigint[],
      ARRAY[1, 1]::bigint[], ARRAY[false, false])`;
    t.deepEqual((await admin.query(`EXECUTE ${one}`)).rows, [{ id: '42' }], 'bigints come back as text');
    t.deepEqual((await admin.query(`EXECUTE ${many}`)).rows, [{ id: '42' }, { id: '4242' }]);
    for (const call of [one, many]) {
      const plan = (await admin.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${call}`)).rows.map((row) => row['QUERY PLAN']).join('\n');
      t.regex(plan, /links_by_url_hash/, plan);
      t.notRegex(plan, /links_by_owner|links_by_domain|Seq Scan on links/, plan);
    }
  });

  test('the PostgreSQL backend answers every port exactly as the SQLite one does', async (t) => {
    const postgres = await open(t, await freshDatabase(t));
    const answers = await script(postgres);
    t.deepEqual(answers, await script(sqliteStorage(t)));
    t.deepEqual(answers['detailDropped'], [9, 7, 9, 0], 'whole days, one hour, the owner, another owner');
  });

  test('nodes take link ids from blocks of their own: disjoint, never reused, the rest of a closed node’s block skipped', async (t) => {
    const url = await freshDatabase(t);
    const a = await open(t, url, 3);
    const b = await open(t, url, 3);
    const got: Record<string, number[]> = { a: [], b: [] };
    for (let i = 0; i < 10; i++) {
      for (const [name, storage] of [
        ['a', a],
        ['b', b],
      ] as const) {
        const id = await storage.links.write((tx) => tx.insertLink(newLink(`${name}${i}`), null));
        got[name]!.push(id!);
      }
    }
    t.deepEqual(got['a'], [1, 2, 3, 7, 8, 9, 13, 14, 15, 19]);
    t.deepEqual(got['b'], [4, 5, 6, 10, 11, 12, 16, 17, 18, 22]);
    t.is(await a.links.write((tx) => tx.insertLink(newLink('b0'), null)), undefined, 'a taken code');
    await a.close();
    const c = await open(t, url, 3);
    t.is(await c.links.write((tx) => tx.insertLink(newLink('c0'), null)), 25, 'a new block');
    t.is(await b.links.write((tx) => tx.takeLinkId()), 23);
    const admin = await adminOf(t, url);
    const { rows } = await admin.query<{ id: string }>('SELECT id FROM links ORDER BY id');
    const ids = rows.map((r) => Number(r.id));
    t.is(new Set(ids).size, 21);
    t.false(ids.includes(20) || ids.includes(21), 'the ids a had left are skipped');
  });

  test('two nodes adding visits to the same link, hour and day at once end with the sum, a visitor counted once', async (t) => {
    const url = await freshDatabase(t);
    const a = await open(t, url);
    const b = await open(t, url);
    const id = (await a.links.write((tx) => tx.insertLink(newLink('busy'), null)))!;
    const other = (await a.links.write((tx) => tx.insertLink(newLink('quiet'), null)))!;
    const rounds = 20;
    const flush = (storage: PostgresStorage, n: number) =>
      storage.visits.addVisits(
        rollUp(
          [
            visit(id, START + 10 + n, { browser: 'Firefox', visitor: Buffer.alloc(16, 1) }),
            visit(id, START + 20 + n, { browser: 'Firefox', visitor: Buffer.alloc(16, n % 2 === 0 ? 2 : 3) }),
            visit(id, START + 30 + n, { bot: 'Slackbot' }),
            visit(other, START + 40 + n, { visitor: Buffer.alloc(16, 1) }),
          ],
          true,
        ),
      );
    await Promise.all(Array.from({ length: rounds }, (_, n) => [flush(a, n), flush(b, n)]).flat());
    const flushes = 2 * rounds;
    t.deepEqual(await a.visits.linkHours(id, new Date(START), new Date(START + DAY)), [
      { t: START, humans: 2 * flushes, bots: flushes, uniques: 3, undetailed: 0 },
    ]);
    t.deepEqual(await b.visits.dayTotals(new Date(START), new Date(START + DAY)), [
      { t: START, humans: 3 * flushes, bots: flushes, uniques: 4, undetailed: 0 },
    ]);
    t.like(await b.links.linkByAddress(0, 'busy'), { visitCount: 2 * flushes, lastVisitAt: new Date(START + 20 + rounds - 1) });
    t.deepEqual(
      (await a.visits.linkDimensions(id, new Date(START), new Date(START + DAY)))
        .filter((d) => d.value !== '')
        .sort((x, y) => x.dimension.localeCompare(y.dimension)),
      [
        { dimension: 'bots', value: 'Slackbot', count: flushes },
        { dimension: 'browsers', value: 'Firefox', count: 2 * flushes },
      ],
    );
    t.deepEqual(await a.visits.topLinks(new Date(START), new Date(START + DAY), 5), [
      { domain: 0, code: 'busy', url: 'https://example.com/busy', title: null, humans: 2 * flushes, bots: flushes, uniques: 3 },
      { domain: 0, code: 'quiet', url: 'https://example.com/quiet', title: null, humans: flushes, bots: 0, uniques: 1 },
    ]);
    t.is(await a.visits.countVisitsBefore(new Date(START + DAY)), 4 * flushes);
  });

  test('an edit through one node reaches the listeners of another, also after its listening connection was cut', async (t) => {
    const url = await freshDatabase(t);
    const a = await open(t, url);
    const b = await open(t, url);
    const admin = await adminOf(t, url);
    const id = (await a.links.write((tx) => tx.insertLink(newLink('watched'), null)))!;
    const heard: string[] = [];
    b.links.onChange!((change) => heard.push(change.code!));
    const listener = async (): Promise<number | undefined> => {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
      );
      return rows[0]?.pid;
    };
    await waitFor(async () => (await listener()) !== undefined);
    await a.links.write(async (tx) =>
      tx.updateLink((await tx.linkByAddress(0, 'watched'))!, { url: 'https://example.com/2' }, null, new Date(1)),
    );
    await waitFor(() => heard.length === 1);
    t.deepEqual(heard, ['watched']);

    const cut = await listener();
    await admin.query('SELECT pg_terminate_backend($1)', [cut]);
    await waitFor(async () => ![undefined, cut].includes(await listener()));
    await a.links.write((tx) => tx.deleteLink(id, new Date(2)));
    await waitFor(() => heard.length === 2);
    t.deepEqual(heard, ['watched', 'watched']);
    t.deepEqual(
      (await b.links.changesAfter(0)).map((c) => c.code),
      ['watched', 'watched'],
    );
  });

  test('two nodes deduplicating one URL, or editing one link, at once take turns', async (t) => {
    const url = await freshDatabase(t);
    const a = await open(t, url);
    const b = await open(t, url);
    const admin = await adminOf(t, url);
    const waiting = async (locktype: string) =>
      (
        await admin.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_locks WHERE locktype = $1 AND NOT granted
           AND pid IN (SELECT pid FROM pg_stat_activity WHERE datname = current_database())`,
          [locktype],
        )
      ).rows[0]?.n === '1';
    /** A write through `a` that holds its transaction open after `work` until `release` is called. */
    const held = <T>(work: (tx: LinkWriter) => Promise<T>) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let ready = false;
      const done = a.links.write(async (tx) => {
        const result = await work(tx);
        ready = true;
        await released;
        return result;
      });
      return { done, release, ready: () => ready };
    };

    const hash = Buffer.alloc(32, 5);
    const first = held(
      async (tx) => (await tx.linkByUrlHash(hash, new Date(0), 0, 1)) ?? tx.insertLink(newLink('one', { urlHash: hash }), null),
    );
    await waitFor(first.ready);
    const second = b.links.write(
      async (tx) => (await tx.linkByUrlHash(hash, new Date(0), 0, 1))?.code ?? tx.insertLink(newLink('two', { urlHash: hash }), null),
    );
    await waitFor(() => waiting('advisory'));
    first.release();
    t.is(await first.done, 1);
    t.is(await second, 'one', 'the second probe waited for the first link, and found it');

    const edit = held(async (tx) =>
      tx.updateLink((await tx.linkByAddress(0, 'one'))!, { url: 'https://example.com/A' }, null, new Date(1)),
    );
    await waitFor(edit.ready);
    const read = b.links.write(async (tx) => (await tx.linkByAddress(0, 'one'))?.url);
    await waitFor(() => waiting('transactionid'));
    edit.release();
    t.true(await edit.done);
    t.is(await read, 'https://example.com/A', 'the second edit read the link once the first was committed');
  });

  test('migrations: a second open changes nothing, and nodes opening a fresh database together apply each step once', async (t) => {
    const url = await freshDatabase(t);
    const [a, b] = await Promise.all([open(t, url), open(t, url)]);
    await a.settings.setSetting('k', 'v');
    await Promise.all([a.close(), b.close()]);
    const again = await open(t, url);
    t.is(await again.settings.setting('k'), 'v');
    const admin = await adminOf(t, url);
    t.deepEqual((await admin.query('SELECT version FROM kurz_schema')).rows, [{ version: MIGRATIONS.length }]);
  });

  test('a database with tables of its own and no kurz_schema is refused', async (t) => {
    const url = await freshDatabase(t);
    const admin = await adminOf(t, url);
    await admin.query('CREATE TABLE customers (id integer)');
    await t.throwsAsync(open(t, url), { message: /does not belong to kurz/ });
    t.is((await admin.query(`SELECT to_regclass('links') AS links`)).rows[0].links, null, 'nothing created');
  });

  test('a database migrated by a newer kurz is refused', async (t) => {
    const url = await freshDatabase(t);
    await (await open(t, url)).close();
    const admin = await adminOf(t, url);
    await admin.query('UPDATE kurz_schema SET version = $1', [MIGRATIONS.length + 1]);
    await t.throwsAsync(open(t, url), { message: new RegExp(`schema version ${MIGRATIONS.length + 1}, newer than this kurz knows`) });
  });

  test('an upgrade is all or nothing: a step that fails leaves the database at its old schema, its links kept', async (t) => {
    const url = await freshDatabase(t);
    const admin = await adminOf(t, url);
    await admin.query(q.CREATE_SCHEMA_TABLE);
    await admin.query(MIGRATIONS[0]!);
    await admin.query(q.SET_SCHEMA_VERSION, [1]);
    await admin.query(`INSERT INTO links (id, code, url, created_at, updated_at) VALUES (1, 'kept', 'https://a.example/', $1, $1)`, [
      START,
    ]);
    // A table of a later step's name makes that step fail, after the steps before it ran.
    await admin.query('CREATE TABLE domains (planted integer)');
    await t.throwsAsync(open(t, url), { message: /relation "domains" already exists/ });
    t.deepEqual((await admin.query('SELECT version FROM kurz_schema')).rows, [{ version: 1 }]);
    const columns = await admin.query(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'links' AND column_name = 'blocked_rule'`,
    );
    t.is(columns.rowCount, 0, 'the step after schema 1, which ran before the failing one, was undone');
    t.deepEqual((await admin.query('SELECT code, url FROM links')).rows, [{ code: 'kept', url: 'https://a.example/' }]);
  });

  test('a server that cannot be reached at start is named with its password masked', async (t) => {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const error = await t.throwsAsync(
      openPostgresStorage({ databaseUrl: `postgres://kurz:s3cret@127.0.0.1:${port}/kurz`, idBlockSize: 10 }, { log: memoryLogger() }),
    );
    t.regex(error.message, new RegExp(`cannot connect to PostgreSQL at postgres://kurz:\\*\\*\\*@127\\.0\\.0\\.1:${port}/kurz`));
    t.notRegex(error.message, /s3cret/);
  });

  test('a lost database answers 503 (AppError unavailable), is logged once lost and once back, and is used again', async (t) => {
    const url = new URL(await freshDatabase(t));
    const proxy = await proxyTo(t, url);
    const log = memoryLogger();
    const viaProxy = new URL(url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const storage = await open(t, viaProxy.href, 10, log);
    await storage.links.write((tx) => tx.insertLink(newLink('kept'), null));

    await proxy.stop();
    const unavailable = { instanceOf: AppError, message: 'the database is unreachable; try again in a moment' };
    const error = await t.throwsAsync(storage.links.linkByAddress(0, 'kept'), unavailable);
    t.is(error.code, 'unavailable');
    await t.throwsAsync(
      storage.links.write((tx) => tx.insertLink(newLink('lost'), null)),
      unavailable,
    );
    await t.throwsAsync(storage.visits.addVisits(rollUp([visit(1, START)], true)), unavailable);
    t.is(await storage.problem(), 'database unreachable');
    t.is(log.lines.filter((l) => l.includes('the database is unreachable')).length, 1, 'logged once');

    await proxy.start();
    await waitFor(() => log.lines.some((l) => l.includes('the database is reachable again')));
    t.is(await storage.problem(), undefined);
    t.like(await storage.links.linkByAddress(0, 'kept'), { code: 'kept' });
  });

  test('a connection the server ends, idle or in a transaction, fails only what ran on it', async (t) => {
    const url = await freshDatabase(t);
    const log = memoryLogger();
    const storage = await open(t, url, 100, log);
    const admin = await adminOf(t, url);
    await storage.links.write((tx) => tx.insertLink(newLink('first'), null));
    const terminate = (state: string) =>
      admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND state = $1
        AND application_name = 'kurz'`,
        [state],
      );

    await terminate('idle');
    // The pool hears of it a moment later (a connection reports its end to no query), and replaces it.
    await waitFor(() => log.lines.some((l) => l.includes('the database is reachable again')));
    t.like(await storage.links.linkByAddress(0, 'first'), { code: 'first' }, 'the pool connects again');

    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    let locked = false;
    const write = storage.links.write(async (tx) => {
      await tx.linkByAddress(0, 'first');
      locked = true;
      await paused;
      return tx.insertLink(newLink('second'), null);
    });
    await waitFor(() => locked);
    t.is((await terminate('idle in transaction')).rowCount, 1);
    resume();
    const error = await t.throwsAsync(write, { instanceOf: AppError });
    t.is(error.code, 'unavailable');
    t.is(
      await storage.links.write((tx) => tx.insertLink(newLink('third'), null)),
      3,
      'writes go on; the id taken by the failed one is skipped',
    );
    t.is(await storage.links.linkByAddress(0, 'second'), undefined);
  });

  test('rows copied in are counted, and new ids and serials start after them', async (t) => {
    const url = await freshDatabase(t);
    const storage = await open(t, url, 5);
    t.true(await storage.isEmpty());
    await storage.importRows(
      'links',
      ['id', 'code', 'url', 'created_at', 'updated_at', 'url_hash'],
      [
        [7, 'seven', 'https://example.com/7', START, START, Buffer.alloc(32, 1)],
        [40, 'forty', 'https://example.com/40', START, START, null],
      ],
    );
    await storage.importRows(
      'link_tags',
      ['link_id', 'tag'],
      [
        [7, 'b'],
        [7, 'a'],
      ],
    );
    await storage.importRows('api_keys', ['id', 'name', 'prefix', 'key_hash', 'created_at'], [[9, 'old', 'p', 'h', 1]]);
    await storage.importRows(
      'visits',
      ['id', 'link_id', 'at'],
      Array.from({ length: 12_000 }, (_, i) => [i + 1, 7, START + i]),
    );
    await storage.importRows('settings', ['key', 'value'], [['codeKey', 'abc']]);
    await storage.finishImport();
    t.false(await storage.isEmpty());
    t.is(await storage.countRows('visits'), 12_000);
    t.like(await storage.links.linkByAddress(0, 'seven'), { id: 7, tags: ['a', 'b'] });
    t.is(await storage.links.write((tx) => tx.insertLink(newLink('next'), null)), 41);
    t.like(
      await storage.access.insertKey({
        userId: 1,
        name: 'new',
        prefix: 'p',
        keyHash: 'h2',
        scopes: ['admin'],
        createdAt: new Date(1),
        expiresAt: null,
      }),
      { id: 10 },
    );
    await storage.visits.addVisits(rollUp([visit(7, START + DAY)], true));
    const last = [];
    for await (const v of storage.visits.allVisits(new Date(START + DAY), new Date(START + 2 * DAY))) last.push(v.id);
    t.deepEqual(last, [12_001]);
    t.true((await storage.serverVersion()).length > 0);
  });

  test('importRows and countRows refuse a table that is not kurz’s, and importRows a column the table lacks', async (t) => {
    const storage = await open(t, await freshDatabase(t));
    for (const table of ['kurz_schema', 'kurz_ids', 'pg_class', 'links; DROP TABLE links']) {
      await t.throwsAsync(storage.importRows(table, ['version'], [[1]]), { message: /is not one of kurz's tables/ });
      await t.throwsAsync(storage.countRows(table), { message: /is not one of kurz's tables/ });
    }
    await t.throwsAsync(storage.importRows('links', ['id', 'code"; DROP TABLE links; --'], [[1, 'x']]), {
      message: /cannot import into links: no column/,
    });
    t.is(await storage.countRows('links'), 0);
  });

  test('a move and a new domain reach the listeners of another node as parsed changes; a payload that does not parse is ignored', async (t) => {
    const url = await freshDatabase(t);
    const a = await open(t, url);
    const b = await open(t, url);
    const admin = await adminOf(t, url);
    const id = (await a.links.write((tx) => tx.insertLink(newLink('moving'), null)))!;
    const heard: unknown[] = [];
    b.links.onChange!((change) => heard.push(change));
    await waitFor(
      async () =>
        (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`)).rowCount === 1,
    );
    await admin.query(`SELECT pg_notify('kurz_link_changes', 'not a change'), pg_notify('kurz_link_changes', '1 2')`);
    const s2 = await addDomain(a, 's2.example');
    await a.links.write(async (tx) => tx.updateLink((await tx.linkByAddress(0, 'moving'))!, { domain: s2 }, null, new Date(1)));
    await waitFor(() => heard.length === 3);
    t.deepEqual(heard, [
      { linkId: null, domain: s2, code: null },
      { linkId: id, domain: 0, code: 'moving' },
      { linkId: id, domain: s2, code: 'moving' },
    ]);
  });

  test('removing a domain waits for a link being written onto it, and then refuses; a link waits for a removal, and then is refused', async (t) => {
    const url = await freshDatabase(t);
    const a = await open(t, url);
    const b = await open(t, url);
    const admin = await adminOf(t, url);
    const waiting = async () =>
      (
        await admin.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_locks WHERE NOT granted
           AND pid IN (SELECT pid FROM pg_stat_activity WHERE datname = current_database())`,
        )
      ).rows[0]?.n !== '0';
    const s2 = await addDomain(a, 's2.example');

    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let written = false;
    const creation = a.links.write(async (tx) => {
      const id = await tx.insertLink(newLink('late', { domain: s2 }), null);
      written = true;
      await released;
      return id;
    });
    await waitFor(() => written);
    const removal = b.domains.removeDomain(s2, new Date(START));
    await waitFor(waiting);
    release();
    t.not(await creation, undefined);
    t.is(await removal, 'in_use', 'the removal counted the link committed while it waited');

    const s3 = await addDomain(a, 's3.example');
    const remover = await adminOf(t, url);
    await remover.query('BEGIN');
    await remover.query('SELECT id FROM domains WHERE id = $1 FOR UPDATE', [s3]);
    await remover.query('UPDATE domains SET removed_at = $2 WHERE id = $1', [s3, START]);
    const refused = a.links.write((tx) => tx.insertLink(newLink('too-late', { domain: s3 }), null));
    await waitFor(waiting);
    await remover.query('COMMIT');
    t.is((await t.throwsAsync(refused, { instanceOf: AppError })).code, 'invalid');
    t.is(await a.links.linkByAddress(s3, 'too-late'), undefined);
  });

  test('two nodes moving links with one code onto one domain at once: the second waits, and is refused with a conflict', async (t) => {
    const url = await freshDatabase(t);
    const a = await open(t, url);
    const b = await open(t, url);
    const admin = await adminOf(t, url);
    const s2 = await addDomain(a, 's2.example');
    const s3 = await addDomain(a, 's3.example');
    await a.links.write((tx) => tx.insertLink(newLink('same', { isAlias: true }), null));
    await a.links.write((tx) => tx.insertLink(newLink('same', { isAlias: true, domain: s3 }), null));
    const move = (storage: PostgresStorage, from: number, hold: Promise<void>, moved: () => void) =>
      storage.links.write(async (tx) => {
        const done = await tx.updateLink((await tx.linkByAddress(from, 'same'))!, { domain: s2 }, null, new Date(1));
        moved();
        await hold;
        return done;
      });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = false;
    const firstMove = move(a, 0, held, () => (first = true));
    await waitFor(() => first);
    const secondMove = move(b, s3, Promise.resolve(), () => undefined);
    await waitFor(
      async () =>
        (
          await admin.query(`SELECT 1 FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'
            AND pid IN (SELECT pid FROM pg_stat_activity WHERE datname = current_database())`)
        ).rowCount === 1,
    );
    release();
    t.true(await firstMove);
    const error = await t.throwsAsync(secondMove, { instanceOf: AppError });
    t.is(error.code, 'conflict');
    t.like(await a.links.linkByAddress(s3, 'same'), { domain: s3 }, 'left where it was');
  });

  test("migration 10 moves each link.create entry onto its link's row, and an edit of the target keeps the first one", async (t) => {
    const url = await freshDatabase(t);
    const admin = await adminOf(t, url);
    await admin.query(q.CREATE_SCHEMA_TABLE);
    for (const migration of MIGRATIONS.slice(0, 9)) await admin.query(migration);
    await admin.query(q.SET_SCHEMA_VERSION, [9]);
    await admin.query(`INSERT INTO links (id, domain_id, code, url, created_at, updated_at, owner_id) VALUES
      (1, 0, 'a', 'https://example.com/a', 10, 10, 1), (2, 0, 'b', 'https://example.com/b2', 20, 30, 2), (3, 0, 'imported', 'https://example.com/i', 5, 5, 1)`);
    await admin.query(`INSERT INTO audit_log (at, actor_id, actor_name, via, key_name, client, action, subject_kind, subject_id, subject_label, details) VALUES
      (10, 1, 'admin', 'session', NULL, '203.0.113.5', 'link.create', 'link', 1, 'kurz.test/a', '{"url":"https://example.com/a"}'),
      (20, 2, 'ana', 'key', 'deploy', '198.51.100.7', 'link.create', 'link', 2, 'kurz.test/b', '{"url":"https://example.com/b"}'),
      (30, 2, 'ana', 'key', 'deploy', '198.51.100.7', 'link.edit', 'link', 2, 'kurz.test/b', '{"url":"https://example.com/b2"}')`);

    await open(t, url);
    const creations = async () =>
      (
        await admin.query(
          'SELECT id, creator_id AS creator, created_via AS via, created_key AS key, created_client AS client, created_url AS url FROM links ORDER BY id',
        )
      ).rows;
    t.deepEqual(await creations(), [
      { id: '1', creator: '1', via: 'session', key: null, client: '203.0.113.5', url: null },
      { id: '2', creator: '2', via: 'key', key: 'deploy', client: '198.51.100.7', url: 'https://example.com/b' },
      { id: '3', creator: null, via: null, key: null, client: null, url: null },
    ]);
    t.deepEqual((await admin.query('SELECT action FROM audit_log')).rows, [{ action: 'link.edit' }]);
    await admin.query(`UPDATE links SET url = 'https://example.com/a2' WHERE id = 1`);
    await admin.query(`UPDATE links SET url = 'https://example.com/a3' WHERE id = 1`);
    await admin.query(`UPDATE links SET title = 't', url = 'https://example.com/i2' WHERE id = 3`);
    t.deepEqual((await admin.query('SELECT created_url AS url FROM links ORDER BY id')).rows, [
      { url: 'https://example.com/a' },
      { url: 'https://example.com/b' },
      { url: null },
    ]);
  });

  test("the migration that makes visits only counted columns (SQLite's 26) moves them off dimension 11, and a link handed on takes them along", async (t) => {
    const url = await freshDatabase(t);
    const admin = await adminOf(t, url);
    await admin.query(q.CREATE_SCHEMA_TABLE);
    for (const migration of MIGRATIONS.slice(0, MIGRATIONS.length - 1)) await admin.query(migration);
    await admin.query(q.SET_SCHEMA_VERSION, [MIGRATIONS.length - 1]);
    const day = START;
    const hour = START + HOUR;
    await admin.query(`INSERT INTO users (id, name, role, created_at) VALUES (2, 'ana', 'member', 0) ON CONFLICT DO NOTHING`);
    await admin.query(`INSERT INTO links (id, domain_id, code, url, created_at, updated_at, owner_id) VALUES
      (1, 0, 'a', 'https://a.example/', 0, 0, 1), (2, 0, 'b', 'https://b.example/', 0, 0, 2)`);
    await admin.query(`INSERT INTO visit_hours (link_id, hour, humans, bots, uniques) VALUES
      (1, ${day}, 5, 2, 1), (1, ${hour}, 3, 0, 0), (2, ${day}, 4, 1, 2)`);
    await admin.query(
      `INSERT INTO visit_days (day, link_id, owner_id, humans, bots, uniques) VALUES (${day}, 1, 1, 8, 2, 1), (${day}, 2, 2, 4, 1, 2)`,
    );
    await admin.query(`INSERT INTO visit_totals (day, owner_id, humans, bots, uniques) VALUES (${day}, 1, 8, 2, 1), (${day}, 2, 4, 1, 2)`);
    await admin.query(`INSERT INTO visit_dimensions (link_id, hour, dimension, value, count) VALUES
      (1, ${day}, 11, 'humans', 4), (1, ${day}, 11, 'bots', 2), (1, ${hour}, 11, 'humans', 3), (2, ${day}, 11, 'bots', 1), (2, ${day}, 1, 'Chrome', 4)`);
    await admin.query(`INSERT INTO visit_dimension_days (link_id, day, dimension, value, count) VALUES
      (1, ${day}, 11, 'humans', 7), (1, ${day}, 11, 'bots', 2), (2, ${day}, 11, 'bots', 1), (2, ${day}, 1, 'Chrome', 4)`);

    await open(t, url);
    const rows = async (sql: string) => (await admin.query({ text: sql, rowMode: 'array' })).rows.map((r: unknown[]) => r.map(Number));
    t.deepEqual(await rows('SELECT link_id, hour, undetailed_humans, undetailed_bots FROM visit_hours ORDER BY link_id, hour'), [
      [1, day, 4, 2],
      [1, hour, 3, 0],
      [2, day, 0, 1],
    ]);
    t.deepEqual(await rows('SELECT link_id, undetailed_humans, undetailed_bots FROM visit_days ORDER BY link_id'), [
      [1, 7, 2],
      [2, 0, 1],
    ]);
    const totals = () =>
      rows('SELECT owner_id, humans, undetailed_humans, undetailed_bots FROM visit_totals WHERE humans > 0 ORDER BY owner_id');
    t.deepEqual(await totals(), [
      [1, 8, 7, 2],
      [2, 4, 0, 1],
    ]);
    t.deepEqual(
      await rows(
        'SELECT dimension, count(*) FROM visit_dimensions GROUP BY dimension UNION ALL SELECT dimension, count(*) FROM visit_dimension_days GROUP BY dimension',
      ),
      [
        [1, 1],
        [1, 1],
      ],
    );
    await admin.query('UPDATE links SET owner_id = 2 WHERE id = 1');
    t.deepEqual(await totals(), [[2, 12, 7, 3]], 'handed to ana with its visits only counted');
  });

  test('migration 4 takes a database of the schema before domains onto the default domain: ids, codes, tags, visits, the change log; kurz_ids untouched', async (t) => {
    const url = await freshDatabase(t);
    const admin = await adminOf(t, url);
    await admin.query(q.CREATE_SCHEMA_TABLE);
    for (const migration of MIGRATIONS.slice(0, 3)) await admin.query(migration);
    await admin.query(q.SET_SCHEMA_VERSION, [3]);
    await admin.query(
      `INSERT INTO links (id, code, url, created_at, updated_at, deleted_at, is_alias, title, blocked_rule, blocked_list, blocked_at) VALUES
        (1, 'gen1', 'https://example.com/1', $1, $1, NULL, 0, NULL, NULL, NULL, NULL),
        (2, 'my-alias', 'https://example.com/2', $1, $1, NULL, 1, 'T', NULL, NULL, NULL),
        (3, 'gone', 'https://example.com/3', $1, $1, $1 + 5, 0, NULL, NULL, NULL, NULL),
        (7, 'blocked', 'https://bad.example/', $1, $1, NULL, 0, NULL, 'bad.example', 'list', $1)`,
      [START],
    );
    await admin.query(`INSERT INTO link_tags (link_id, tag) VALUES (1, 'a'), (2, 'b'), (2, 'a')`);
    await admin.query(`INSERT INTO link_visits (link_id, count, last_at) VALUES (1, 5, $1)`, [START + 100]);
    await admin.query(`INSERT INTO visit_hours (link_id, hour, humans, bots, uniques) VALUES (1, $1, 5, 1, 2)`, [START]);
    await admin.query(`INSERT INTO visit_days (day, link_id, humans, bots, uniques) VALUES ($1, 1, 5, 1, 2)`, [START]);
    await admin.query(`INSERT INTO visit_totals (day, humans, bots, uniques) VALUES ($1, 5, 1, 2)`, [START]);
    await admin.query(`INSERT INTO visits (link_id, at) VALUES (1, $1)`, [START + 100]);
    // The trigger of the schema before logs the code alone.
    await admin.query(`UPDATE links SET url = 'https://example.com/2b' WHERE id = 2`);
    await admin.query(`UPDATE kurz_ids SET next_id = 51 WHERE name = 'links'`);

    const storage = await open(t, url);
    t.deepEqual((await admin.query('SELECT version FROM kurz_schema')).rows, [{ version: MIGRATIONS.length }]);
    t.like(await storage.links.linkByAddress(0, 'gen1'), {
      id: 1,
      domain: 0,
      tags: ['a'],
      visitCount: 5,
      lastVisitAt: new Date(START + 100),
    });
    t.like(await storage.links.linkByAddress(0, 'my-alias'), {
      id: 2,
      domain: 0,
      isAlias: true,
      title: 'T',
      tags: ['a', 'b'],
      url: 'https://example.com/2b',
    });
    t.like(await storage.links.linkByAddress(0, 'gone'), { id: 3, domain: 0, deletedAt: new Date(START + 5) });
    t.like(await storage.links.linkByAddress(0, 'blocked'), {
      id: 7,
      domain: 0,
      blocked: { rule: 'bad.example', list: 'list', at: new Date(START) },
    });
    t.deepEqual(await storage.visits.linkHours(1, new Date(START), new Date(START + DAY)), [
      { t: START, humans: 5, bots: 1, uniques: 2, undetailed: 0 },
    ]);
    t.deepEqual(await storage.visits.domainTotals(new Date(START), new Date(START + DAY)), [{ domain: 0, links: 3, humans: 5 }]);
    t.deepEqual(
      (await storage.links.changesAfter(0)).map(({ linkId, domain, code }) => ({ linkId, domain, code })),
      [{ linkId: 2, domain: 0, code: 'my-alias' }],
    );
    t.deepEqual((await admin.query(`SELECT next_id FROM kurz_ids`)).rows, [{ next_id: '51' }]);
    t.deepEqual(
      (await storage.domains.listDomains()).map((d) => [d.id, d.host, d.links]),
      [[0, '', 3]],
    );

    const s2 = await addDomain(storage, 's2.example');
    t.is(s2, 1, 'domain ids start at 1');
    const insert = (code: string, domain: number) =>
      storage.links.write((tx) => tx.insertLink(newLink(code, { domain, isAlias: true, url: `https://example.com/${domain}` }), null));
    t.is(await insert('my-alias', s2), 51, 'the same alias on the new domain, with the next id reserved');
    t.is(await insert('my-alias', 0), undefined, 'still taken on the default domain');
    t.is(await insert('gen1', 0), undefined);
    t.like(await storage.links.linkByAddress(0, 'my-alias'), { id: 2, url: 'https://example.com/2b' });
    t.like(await storage.links.linkByAddress(s2, 'my-alias'), { id: 51, url: `https://example.com/${s2}` });
    const seq = await storage.links.lastChange();
    await storage.links.write(async (tx) => tx.deleteLink((await tx.linkByAddress(s2, 'my-alias'))!.id, new Date(START)));
    t.deepEqual(
      (await storage.links.changesAfter(seq)).map(({ linkId, domain, code }) => ({ linkId, domain, code })),
      [{ linkId: 51, domain: s2, code: 'my-alias' }],
    );
  });

  test('kurz migrate copies the domains and each link’s domain; the default domain’s row is the source’s, new domains come after', async (t) => {
    const source = openSqliteStorage(loadConfig({ file: { db: join(tempDir(t), 'k.db') } }), { log: memoryLogger() });
    t.teardown(() => source.close());
    const s2 = await addDomain(source, 's2.example', START + 1);
    const gone = await addDomain(source, 'gone.example', START + 2);
    await source.links.write((tx) => tx.insertLink(newLink('there', { domain: s2, isAlias: true }), null));
    await source.links.write((tx) => tx.insertLink(newLink('there', { isAlias: true, url: 'https://example.com/default' }), null));
    const ana = await source.access.insertUser({
      name: 'ana',
      email: null,
      role: 'member',
      createdAt: new Date(START),
      inviteHash: null,
      inviteExpiresAt: null,
    });
    await source.domains.updateDomain(s2, { scheme: 'http', rootRedirect: 'https://example.com/root', users: [ana!] });
    t.is(await source.domains.removeDomain(gone, new Date(START + 3)), 'removed');

    const target = await open(t, await freshDatabase(t));
    const counts = await copyDatabase(source, target, () => undefined);
    t.deepEqual(
      counts.find((c) => c.table === 'domains'),
      { table: 'domains', source: 3, copied: 3 },
    );
    for (const c of counts) t.is(c.copied, c.source, c.table);
    t.deepEqual(await target.domains.listDomains(), await source.domains.listDomains());
    t.deepEqual((await target.domains.listDomains()).find((d) => d.id === s2)?.users, [{ id: ana!.id, name: 'ana' }], 'who may use it too');
    t.like(await target.links.linkByAddress(s2, 'there'), { domain: s2, url: 'https://example.com/there' });
    t.like(await target.links.linkByAddress(0, 'there'), { domain: 0, url: 'https://example.com/default' });
    t.true((await addDomain(target, 'gone.example')) > gone, 'a new domain takes an id after the copied ones');
  });
}
