import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import pg from 'pg';
import type { ApiKey } from '../../src/auth/identity.ts';
import { AppError } from '../../src/core/errors.ts';
import { DEFAULT_OPTIONS, type NewLink } from '../../src/links/link.ts';
import { memoryLogger } from '../../src/core/log.ts';
import type { LinkWriter, Storage } from '../../src/store/ports.ts';
import { MIGRATIONS } from '../../src/store/postgres/migrations.ts';
import { openPostgresStorage, type PostgresStorage } from '../../src/store/postgres/storage.ts';
import { createSqliteAccessStore } from '../../src/store/sqlite/access-store.ts';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { createSqliteDomainStore } from '../../src/store/sqlite/domain-store.ts';
import { createSqliteLinkStore } from '../../src/store/sqlite/link-store.ts';
import { createSqliteSettingsStore } from '../../src/store/sqlite/settings-store.ts';
import { createSqliteVisitStore } from '../../src/store/sqlite/visit-store.ts';
import { watchWrites } from '../../src/store/sqlite/write-health.ts';
import { rollUp } from '../../src/visits/rollup.ts';
import { proxyTo } from '../support/tcp-proxy.ts';
import { DAY, HOUR, type Visit } from '../../src/visits/visit.ts';
import { tempDir, waitFor } from '../helpers.ts';

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
  return {
    ...DEFAULT_OPTIONS,
    domain: 0,
    code,
    url: `https://example.com/${code}`,
    isAlias: false,
    passwordHash: null,
    urlHash: null,
    createdAt: new Date(START),
    ...fields,
  };
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
    problem: async () => health.fault,
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
  out['dedupe'] = await links.write((tx) => tx.linkByUrlHash(hash, new Date(0), 0));
  out['imported'] = await links.write((tx) =>
    tx.importLink(
      {
        ...newLink('imported', { tags: ['x'] }),
        updatedAt: new Date(START + 5),
        visitCount: 4,
        lastVisitAt: new Date(START + 7),
        deletedAt: null,
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
  out['editDeleted'] = await links.write(async (tx) => tx.updateLink((await tx.linkByAddress(0, 'doomed'))!, { title: 't' }, null, new Date(1)));
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
  const range = [new Date(START), new Date(START + 3 * DAY)] as const;
  out['hours'] = await visits.linkHours(ids[0]!, ...range);
  const byValue = (a: { dimension: string; value: string }, b: { dimension: string; value: string }) =>
    `${a.dimension} ${a.value}` < `${b.dimension} ${b.value}` ? -1 : 1;
  out['dimensions'] = (await visits.linkDimensions(ids[0]!, ...range)).sort(byValue);
  out['dimensionsByHour'] = (await visits.linkDimensions(ids[0]!, new Date(START + HOUR), new Date(START + 2 * HOUR))).sort(byValue);
  out['dayTotals'] = await visits.dayTotals(...range);
  out['topLinks'] = await visits.topLinks(...range, 2);
  out['totals'] = await visits.totals();
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
    links.listLinks({ limit: 10, tag: 'beta' }),
    links.listLinks({ limit: 10, tag: 'beta', includeDeleted: true }),
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

  const session = { idHash: 'aa', user: 'admin', createdAt: new Date(10), seenAt: new Date(20) };
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
  keys.push(await access.revokeKey('ci', new Date(300)), await access.revokeKey('ci', new Date(300)), await key('ci', 'h4'));
  keys.push(await access.revokeKey('Backup', new Date(400)));
  out['keys'] = [keys, await access.keyByHash('h1'), await access.keyByHash('nope'), await access.listKeys()];
  return out;
}

if (SERVER === undefined) {
  test('the PostgreSQL store tests have a server to run against', (t) => {
    t.fail('set KURZ_TEST_POSTGRES_URL to a maintenance database URL (postgres://USER@HOST:PORT/postgres); make test starts a server');
  });
} else {
  test('the PostgreSQL backend answers every port exactly as the SQLite one does', async (t) => {
    const postgres = await open(t, await freshDatabase(t));
    t.deepEqual(await script(postgres), await script(sqliteStorage(t)));
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
      { t: START, humans: 2 * flushes, bots: flushes, uniques: 3 },
    ]);
    t.deepEqual(await b.visits.dayTotals(new Date(START), new Date(START + DAY)), [
      { t: START, humans: 3 * flushes, bots: flushes, uniques: 4 },
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
           AND (database IS NULL OR database = (SELECT oid FROM pg_database WHERE datname = current_database()))`,
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
    const first = held(async (tx) => (await tx.linkByUrlHash(hash, new Date(0), 0)) ?? tx.insertLink(newLink('one', { urlHash: hash }), null));
    await waitFor(first.ready);
    const second = b.links.write(
      async (tx) => (await tx.linkByUrlHash(hash, new Date(0), 0))?.code ?? tx.insertLink(newLink('two', { urlHash: hash }), null),
    );
    await waitFor(() => waiting('advisory'));
    first.release();
    t.is(await first.done, 1);
    t.is(await second, 'one', 'the second probe waited for the first link, and found it');

    const edit = held(async (tx) => tx.updateLink((await tx.linkByAddress(0, 'one'))!, { url: 'https://example.com/A' }, null, new Date(1)));
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
}
