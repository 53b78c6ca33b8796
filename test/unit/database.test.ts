import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import test from 'ava';
import { APPLICATION_ID, openDatabase, PAGE_CACHE_KIB } from '../../src/store/sqlite/database.ts';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { LINK_IDS_BY_URL_HASH } from '../../src/store/sqlite/queries.ts';
import { tempDir } from '../helpers.ts';

/** A kurz database at schema `version` (its first `version` migrations), as an older kurz left it: open, for rows to be planted. */
function databaseAtSchema(path: string, version: number): Sqlite.Database {
  const old = new Sqlite(path);
  old.pragma(`application_id = ${APPLICATION_ID}`);
  for (const step of MIGRATIONS.slice(0, version)) old.exec(step);
  old.pragma(`user_version = ${version}`);
  return old;
}

test('a new database is created with its folder, in WAL mode, marked as kurz, at the latest schema', (t) => {
  const path = join(tempDir(t), 'nested', 'dir', 'kurz.db');
  const db = openDatabase(path);
  t.teardown(() => db.close());
  t.is(db.pragma('journal_mode', { simple: true }), 'wal');
  t.is(db.pragma('foreign_keys', { simple: true }), 1);
  t.is(db.pragma('busy_timeout', { simple: true }), 5000);
  t.is(db.pragma('cache_size', { simple: true }), -PAGE_CACHE_KIB);
  t.is(db.pragma('application_id', { simple: true }), APPLICATION_ID);
  t.is(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all();
  t.deepEqual(tables, [
    'api_keys',
    'audit_log',
    'domain_users',
    'domains',
    'form_answers',
    'link_changes',
    'link_days',
    'link_tags',
    'link_visits',
    'links',
    'sessions',
    'settings',
    'sqlite_sequence',
    'users',
    'visit_days',
    'visit_dimension_days',
    'visit_dimensions',
    'visit_handovers',
    'visit_hours',
    'visit_totals',
    'visitor_salts',
    'visitors',
    'visits',
    'webhook_deliveries',
    'webhook_events',
    'webhooks',
  ]);
});

test('opening again keeps the data and applies nothing twice', (t) => {
  const path = join(tempDir(t), 'kurz.db');
  const first = openDatabase(path);
  first.prepare("INSERT INTO settings (key, value) VALUES ('k', 'v')").run();
  first.close();
  const second = openDatabase(path);
  t.teardown(() => second.close());
  t.is(second.prepare("SELECT value FROM settings WHERE key = 'k'").pluck().get(), 'v');
  t.is(second.pragma('user_version', { simple: true }), MIGRATIONS.length);
});

test('a database of schema 2 keeps its visit counts when they move to link_visits', (t) => {
  const path = join(tempDir(t), 'kurz.db');
  const old = databaseAtSchema(path, 2);
  const insert = old.prepare(
    'INSERT INTO links (code, url, url_hash, created_at, updated_at, visit_count, last_visit_at) VALUES (?, ?, NULL, 100, 100, ?, ?)',
  );
  insert.run('seen', 'https://a.example/', 7, 5000);
  insert.run('never', 'https://b.example/', 0, null);
  old.close();

  const db = openDatabase(path);
  t.teardown(() => db.close());
  t.is(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
  t.deepEqual(db.prepare('SELECT l.code, v.count, v.last_at FROM link_visits AS v JOIN links AS l ON l.id = v.link_id').all(), [
    { code: 'seen', count: 7, last_at: 5000 },
  ]);
  const columns = db.prepare("SELECT name FROM pragma_table_info('links')").pluck().all();
  t.false(columns.includes('visit_count'));
  t.is(db.prepare('SELECT count(*) FROM links').pluck().get(), 2, 'no link lost');
});

test('an upgrade is all or nothing: a step that fails leaves the file at its old schema, its links kept', (t) => {
  const path = join(tempDir(t), 'kurz.db');
  const old = databaseAtSchema(path, 2);
  old
    .prepare('INSERT INTO links (code, url, url_hash, created_at, updated_at) VALUES (?, ?, NULL, 100, 100)')
    .run('kept', 'https://a.example/');
  // A table of a later step's name makes that step fail, after the steps before it ran.
  old.exec('CREATE TABLE domains (planted INTEGER)');
  old.close();

  t.throws(() => openDatabase(path), { message: /table domains already exists/ });
  const after = new Sqlite(path, { readonly: true });
  t.teardown(() => after.close());
  t.is(after.pragma('user_version', { simple: true }), 2);
  const tables = after.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all();
  t.false(tables.includes('link_visits'), 'the step after schema 2, which ran before the failing one, was undone');
  t.true(after.prepare("SELECT name FROM pragma_table_info('links')").pluck().all().includes('visit_count'));
  t.deepEqual(after.prepare('SELECT code, url FROM links').all(), [{ code: 'kept', url: 'https://a.example/' }]);
});

test('link_days holds the links created per day and the live ones: filled from the links at the migration, then kept by every change', (t) => {
  const DAY = 86_400_000;
  const path = join(tempDir(t), 'kurz.db');
  // The schema before link_days (migration 8).
  const old = databaseAtSchema(path, 7);
  const insert = old.prepare('INSERT INTO links (code, url, url_hash, created_at, updated_at, deleted_at) VALUES (?, ?, NULL, ?, ?, ?)');
  insert.run('a', 'https://a.example/', DAY + 5, DAY + 5, null);
  insert.run('b', 'https://b.example/', DAY + 9, DAY + 9, DAY + 10);
  insert.run('c', 'https://c.example/', 3 * DAY, 3 * DAY, null);
  old.close();

  const db = openDatabase(path);
  t.teardown(() => db.close());
  const days = () => db.prepare('SELECT day, created, live FROM link_days WHERE created > 0 ORDER BY day').all();
  const fromLinks = () =>
    db
      .prepare(
        'SELECT created_at - created_at % 86400000 AS day, count(*) AS created, sum(deleted_at IS NULL) AS live FROM links GROUP BY 1 ORDER BY 1',
      )
      .all();
  t.deepEqual(days(), [
    { day: DAY, created: 2, live: 1 },
    { day: 3 * DAY, created: 1, live: 1 },
  ]);

  db.prepare('INSERT INTO links (code, url, url_hash, created_at, updated_at) VALUES (?, ?, NULL, ?, ?)').run(
    'd',
    'https://d.example/',
    3 * DAY + 1,
    3 * DAY + 1,
  );
  db.prepare("UPDATE links SET deleted_at = 1 WHERE code = 'a'").run();
  db.prepare("UPDATE links SET deleted_at = NULL WHERE code = 'b'").run();
  db.prepare("UPDATE links SET title = 'x', deleted_at = deleted_at WHERE code = 'c'").run();
  db.prepare("UPDATE links SET created_at = ? WHERE code = 'c'").run(5 * DAY);
  db.prepare("DELETE FROM links WHERE code = 'd'").run();
  t.deepEqual(days(), [
    { day: DAY, created: 2, live: 1 },
    { day: 5 * DAY, created: 1, live: 1 },
  ]);
  t.deepEqual(days(), fromLinks(), 'the same as counting the links');
});

test("a SQLite file that is not kurz's is refused and left untouched", (t) => {
  const path = join(tempDir(t), 'other.db');
  const other = new Sqlite(path);
  other.exec('CREATE TABLE notes (body TEXT)');
  other.close();
  t.throws(() => openDatabase(path), { message: /does not belong to kurz; refusing to use it/ });
  const check = new Sqlite(path, { readonly: true });
  t.teardown(() => check.close());
  t.is(check.pragma('user_version', { simple: true }), 0);
  t.deepEqual(check.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all(), ['notes']);
});

test('a database from a newer kurz is refused', (t) => {
  const path = join(tempDir(t), 'newer.db');
  openDatabase(path).close();
  const raw = new Sqlite(path);
  raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  raw.close();
  t.throws(() => openDatabase(path), { message: /schema version \d+, newer than this kurz knows/ });
});

test('a file that is not a database gives a clear error', (t) => {
  const dir = tempDir(t);
  t.throws(() => openDatabase(dir), { message: `cannot open the database ${dir}: SQLITE_CANTOPEN` });
});

test('a file that is not a SQLite database is named in the error and left untouched', (t) => {
  const path = join(tempDir(t), 'notes.txt');
  writeFileSync(path, 'shopping list: '.repeat(100));
  t.throws(() => openDatabase(path), { message: `${path} is not a SQLite database; check --db (or KURZ_DB)` });
  t.is(readFileSync(path, 'utf8'), 'shopping list: '.repeat(100));
});

test('a database of schema 3 keeps its links: aliases stay aliases, generated links stay dedupe targets, and edits of options are logged', (t) => {
  const path = join(tempDir(t), 'kurz.db');
  const old = databaseAtSchema(path, 3);
  const insert = old.prepare('INSERT INTO links (code, url, url_hash, created_at, updated_at) VALUES (?, ?, ?, 1, 1)');
  insert.run('mine', 'https://example.com/alias', null);
  insert.run('Ab3dE9', 'https://example.com/generated', Buffer.alloc(32, 1));
  old.close();

  const db = openDatabase(path);
  t.teardown(() => db.close());
  const rows = db.prepare('SELECT code, url, is_alias AS isAlias, enabled, title, claimed_visits AS claimed FROM links ORDER BY id').all();
  t.deepEqual(rows, [
    { code: 'mine', url: 'https://example.com/alias', isAlias: 1, enabled: 1, title: null, claimed: 0 },
    { code: 'Ab3dE9', url: 'https://example.com/generated', isAlias: 0, enabled: 1, title: null, claimed: 0 },
  ]);
  db.prepare("UPDATE links SET enabled = 0 WHERE code = 'mine'").run();
  db.prepare("UPDATE links SET claimed_visits = 1 WHERE code = 'Ab3dE9'").run();
  t.deepEqual(db.prepare('SELECT code FROM link_changes').pluck().all(), ['mine'], 'a claimed visit is no edit');
});

test('the figures are kept per owner: links per day and visits move with a link handed to another user', (t) => {
  const DAY = 86_400_000;
  const db = openDatabase(join(tempDir(t), 'kurz.db'));
  t.teardown(() => db.close());
  db.exec(`INSERT INTO users (id, name, role, created_at) VALUES (1, 'admin', 'admin', 0), (2, 'ana', 'member', 0)`);
  const insert = db.prepare('INSERT INTO links (id, code, url, created_at, updated_at, owner_id) VALUES (?, ?, ?, ?, ?, ?)');
  insert.run(1, 'a', 'https://a.example/', DAY, DAY, 1);
  insert.run(2, 'b', 'https://b.example/', DAY + 1, DAY + 1, 2);
  // Visits as the writer adds them: each link's hours and days under its owner, and the owner's day totals.
  // Of link 1's first day, 2 people's visits and its bot's were only counted (their detail dropped).
  db.exec(`INSERT INTO visit_hours (link_id, hour, humans, bots, uniques, undetailed_humans, undetailed_bots)
      VALUES (1, ${DAY}, 3, 1, 2, 2, 1), (1, ${2 * DAY}, 4, 0, 4, 0, 0), (2, ${DAY}, 5, 0, 5, 0, 0);
    INSERT INTO visit_days (day, link_id, owner_id, humans, bots, uniques, undetailed_humans, undetailed_bots)
      VALUES (${DAY}, 1, 1, 3, 1, 2, 2, 1), (${2 * DAY}, 1, 1, 4, 0, 4, 0, 0), (${DAY}, 2, 2, 5, 0, 5, 0, 0);
    INSERT INTO visit_totals (day, owner_id, humans, bots, uniques, undetailed_humans, undetailed_bots)
      VALUES (${DAY}, 1, 3, 1, 2, 2, 1), (${2 * DAY}, 1, 4, 0, 4, 0, 0), (${DAY}, 2, 5, 0, 5, 0, 0);`);
  const state = () => ({
    linkDays: db.prepare('SELECT day, owner_id AS owner, created, live FROM link_days WHERE created > 0 ORDER BY day, owner').all(),
    totals: db
      .prepare(
        `SELECT day, owner_id AS owner, humans, bots, uniques, undetailed_humans AS "onlyCounted", undetailed_bots AS "botsOnlyCounted"
        FROM visit_totals WHERE humans + bots > 0 ORDER BY day, owner`,
      )
      .all(),
    days: db.prepare('SELECT day, link_id AS link, owner_id AS owner FROM visit_days ORDER BY day, link').all(),
  });
  t.deepEqual(state().linkDays, [
    { day: DAY, owner: 1, created: 1, live: 1 },
    { day: DAY, owner: 2, created: 1, live: 1 },
  ]);
  db.prepare('UPDATE links SET owner_id = 2 WHERE id = 1').run();
  t.deepEqual(state(), {
    linkDays: [{ day: DAY, owner: 2, created: 2, live: 2 }],
    totals: [
      { day: DAY, owner: 2, humans: 8, bots: 1, uniques: 7, onlyCounted: 2, botsOnlyCounted: 1 },
      { day: 2 * DAY, owner: 2, humans: 4, bots: 0, uniques: 4, onlyCounted: 0, botsOnlyCounted: 0 },
    ],
    days: [
      { day: DAY, link: 1, owner: 2 },
      { day: DAY, link: 2, owner: 2 },
      { day: 2 * DAY, link: 1, owner: 2 },
    ],
  });
  // An edit that keeps the owner moves nothing; deleting a link takes it off its owner's live links.
  db.prepare("UPDATE links SET owner_id = 2, title = 'x' WHERE id = 1").run();
  db.prepare('UPDATE links SET deleted_at = ? WHERE id = 2').run(3 * DAY);
  t.deepEqual(state().linkDays, [{ day: DAY, owner: 2, created: 2, live: 1 }]);
  t.is(db.prepare('SELECT sum(humans) FROM visit_totals').pluck().get(), 12);
});

test("migration 26 moves the visits only counted from dimension 11 into the hours, days and owners' days, and drops those rows", (t) => {
  const DAY = 86_400_000;
  const HOUR = 3_600_000;
  const path = join(tempDir(t), 'kurz.db');
  const old = databaseAtSchema(path, 25);
  old.exec(`INSERT INTO users (id, name, role, created_at) VALUES (1, 'admin', 'admin', 0), (2, 'ana', 'member', 0);
    INSERT INTO links (id, code, url, created_at, updated_at, owner_id) VALUES
      (1, 'a', 'https://a.example/', 0, 0, 1), (2, 'b', 'https://b.example/', 0, 0, 2), (3, 'c', 'https://c.example/', 0, 0, 2);
    INSERT INTO visit_hours (link_id, hour, humans, bots, uniques) VALUES
      (1, ${DAY}, 5, 2, 1), (1, ${DAY + HOUR}, 3, 0, 0), (2, ${DAY}, 4, 1, 2), (3, ${DAY}, 1, 0, 1);
    INSERT INTO visit_days (day, link_id, owner_id, humans, bots, uniques) VALUES (${DAY}, 1, 1, 8, 2, 1), (${DAY}, 2, 2, 4, 1, 2), (${DAY}, 3, 2, 1, 0, 1);
    INSERT INTO visit_totals (day, owner_id, humans, bots, uniques) VALUES (${DAY}, 1, 8, 2, 1), (${DAY}, 2, 5, 1, 3);
    INSERT INTO visit_dimensions (link_id, hour, dimension, value, count) VALUES
      (1, ${DAY}, 11, 'humans', 4), (1, ${DAY}, 11, 'bots', 2), (1, ${DAY + HOUR}, 11, 'humans', 3), (2, ${DAY}, 11, 'bots', 1),
      (1, ${DAY}, 1, 'Firefox', 1), (2, ${DAY}, 1, 'Chrome', 4), (3, ${DAY}, 1, 'Chrome', 1);
    INSERT INTO visit_dimension_days (link_id, day, dimension, value, count) VALUES
      (1, ${DAY}, 11, 'humans', 7), (1, ${DAY}, 11, 'bots', 2), (2, ${DAY}, 11, 'bots', 1),
      (1, ${DAY}, 1, 'Firefox', 1), (2, ${DAY}, 1, 'Chrome', 4), (3, ${DAY}, 1, 'Chrome', 1);`);
  old.close();

  const db = openDatabase(path);
  t.teardown(() => db.close());
  const rows = (sql: string) => db.prepare(sql).raw().all();
  t.deepEqual(rows('SELECT link_id, hour, undetailed_humans, undetailed_bots FROM visit_hours ORDER BY link_id, hour'), [
    [1, DAY, 4, 2],
    [1, DAY + HOUR, 3, 0],
    [2, DAY, 0, 1],
    [3, DAY, 0, 0],
  ]);
  t.deepEqual(rows('SELECT link_id, undetailed_humans, undetailed_bots FROM visit_days ORDER BY link_id'), [
    [1, 7, 2],
    [2, 0, 1],
    [3, 0, 0],
  ]);
  t.deepEqual(rows('SELECT owner_id, undetailed_humans, undetailed_bots FROM visit_totals ORDER BY owner_id'), [
    [1, 7, 2],
    [2, 0, 1],
  ]);
  t.deepEqual(
    rows(
      'SELECT count(*) FROM visit_dimensions WHERE dimension = 11 UNION ALL SELECT count(*) FROM visit_dimension_days WHERE dimension = 11',
    ),
    [[0], [0]],
  );
  t.deepEqual(rows('SELECT link_id, value, count FROM visit_dimensions ORDER BY link_id'), [
    [1, 'Firefox', 1],
    [2, 'Chrome', 4],
    [3, 'Chrome', 1],
  ]);
  t.deepEqual(rows("SELECT name FROM sqlite_schema WHERE name LIKE '%undetailed%'"), [], 'the partial indexes are gone');
});

test("migration 16 moves each link.create entry onto its link's row: the creator, how they came, a first target an edit changed", (t) => {
  const path = join(tempDir(t), 'kurz.db');
  const old = databaseAtSchema(path, 15);
  old.exec(`INSERT INTO users (id, name, role, created_at) VALUES (1, 'admin', 'admin', 0), (2, 'ana', 'member', 0);
    INSERT INTO links (id, code, url, created_at, updated_at, owner_id) VALUES
      (1, 'a', 'https://example.com/a', 10, 10, 1), (2, 'b', 'https://example.com/b2', 20, 30, 2), (3, 'imported', 'https://example.com/i', 5, 5, 1);
    INSERT INTO audit_log (at, actor_id, actor_name, via, key_name, client, action, subject_kind, subject_id, subject_label, details) VALUES
      (10, 1, 'admin', 'session', NULL, '203.0.113.5', 'link.create', 'link', 1, 'kurz.test/a', '{"url":"https://example.com/a"}'),
      (20, 2, 'ana', 'key', 'deploy', '198.51.100.7', 'link.create', 'link', 2, 'kurz.test/b', '{"url":"https://example.com/b"}'),
      (30, 2, 'ana', 'key', 'deploy', '198.51.100.7', 'link.edit', 'link', 2, 'kurz.test/b', '{"url":"https://example.com/b2"}');`);
  old.close();

  const db = openDatabase(path);
  t.teardown(() => db.close());
  const creations = () =>
    db
      .prepare(
        'SELECT id, creator_id AS creator, created_via AS via, created_key AS key, created_client AS client, created_url AS url FROM links ORDER BY id',
      )
      .all();
  t.deepEqual(creations(), [
    { id: 1, creator: 1, via: 'session', key: null, client: '203.0.113.5', url: null },
    { id: 2, creator: 2, via: 'key', key: 'deploy', client: '198.51.100.7', url: 'https://example.com/b' },
    { id: 3, creator: null, via: null, key: null, client: null, url: null },
  ]);
  t.deepEqual(db.prepare('SELECT action FROM audit_log').pluck().all(), ['link.edit']);
  // From now on an edit of the target keeps the first one, once; an edit of anything else keeps none.
  db.prepare("UPDATE links SET url = 'https://example.com/a2' WHERE id = 1").run();
  db.prepare("UPDATE links SET url = 'https://example.com/a3' WHERE id = 1").run();
  db.prepare("UPDATE links SET title = 't', url = 'https://example.com/i2' WHERE id = 3").run();
  t.deepEqual(db.prepare('SELECT created_url FROM links ORDER BY id').pluck().all(), [
    'https://example.com/a',
    'https://example.com/b',
    null,
  ]);
});

test('the domains migration puts every link on the default domain with its id, code, tags, visits and change log, and keeps the id sequence', (t) => {
  const path = join(tempDir(t), 'kurz.db');
  // Schema 9: the last one before domains.
  const old = databaseAtSchema(path, 9);
  const insert = old.prepare(
    'INSERT INTO links (id, code, url, created_at, updated_at, deleted_at, is_alias, title, max_visits, claimed_visits, enabled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  insert.run(1, 'abc123', 'https://a.example/', 1000, 1000, null, 0, null, null, 0, 1);
  insert.run(2, 'mine', 'https://b.example/', 2000, 2500, null, 1, 'Mine', 10, 3, 0);
  insert.run(5, 'gone', 'https://c.example/', 3000, 4000, 4000, 1, null, null, 0, 1);
  // Ids 6 and 7 were taken (their generated codes were aliases' already) and never inserted.
  old.exec("UPDATE sqlite_sequence SET seq = 7 WHERE name = 'links'");
  old.exec("INSERT INTO link_tags (link_id, tag) VALUES (2, 'blue'), (2, 'red')");
  old.exec('INSERT INTO link_visits (link_id, count, last_at) VALUES (1, 42, 5000)');
  old.exec("UPDATE links SET url = 'https://b.example/2' WHERE code = 'mine'");
  const changesBefore = old.prepare('SELECT seq, code FROM link_changes ORDER BY seq').all();
  const daysBefore = old.prepare('SELECT * FROM link_days ORDER BY day').all();
  old.close();

  const db = openDatabase(path);
  t.teardown(() => db.close());
  t.is(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
  t.deepEqual(
    db
      .prepare(
        'SELECT id, domain_id AS domain, code, url, deleted_at AS deletedAt, title, claimed_visits AS claimed FROM links ORDER BY id',
      )
      .all(),
    [
      { id: 1, domain: 0, code: 'abc123', url: 'https://a.example/', deletedAt: null, title: null, claimed: 0 },
      { id: 2, domain: 0, code: 'mine', url: 'https://b.example/2', deletedAt: null, title: 'Mine', claimed: 3 },
      { id: 5, domain: 0, code: 'gone', url: 'https://c.example/', deletedAt: 4000, title: null, claimed: 0 },
    ],
  );
  t.deepEqual(db.prepare('SELECT link_id, tag FROM link_tags ORDER BY tag').all(), [
    { link_id: 2, tag: 'blue' },
    { link_id: 2, tag: 'red' },
  ]);
  t.deepEqual(db.prepare('SELECT link_id, count FROM link_visits').all(), [{ link_id: 1, count: 42 }]);
  t.deepEqual(db.prepare('SELECT day, created, live FROM link_days ORDER BY day').all(), daysBefore, 'the daily figures are untouched');
  t.deepEqual(
    db.prepare('SELECT seq, code FROM link_changes ORDER BY seq').all(),
    changesBefore,
    'the change log keeps its entries and their numbers',
  );
  t.like(db.prepare('SELECT link_id AS linkId, domain_id AS domain FROM link_changes').get(), { linkId: 2, domain: 0 });
  t.is(db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'links'").pluck().get(), 7, 'taken ids stay taken');
  t.deepEqual(db.prepare('SELECT id, host FROM domains').all(), [{ id: 0, host: '' }], 'the default domain exists');

  // The same alias on another domain is its own link; on the same domain it is refused.
  db.prepare("INSERT INTO domains (id, host, created_at) VALUES (1, 's2.example', 0)").run();
  db.prepare("INSERT INTO links (domain_id, code, url, created_at, updated_at) VALUES (1, 'mine', 'https://s2.example/', 0, 0)").run();
  t.is(db.prepare("SELECT id FROM links WHERE code = 'mine' AND domain_id = 1").pluck().get(), 8, 'the next id follows the kept sequence');
  t.throws(() => db.prepare("INSERT INTO links (domain_id, code, url, created_at, updated_at) VALUES (0, 'mine', 'x', 0, 0)").run(), {
    message: /UNIQUE/,
  });
  // Each change names the link and its address; a move logs the old and the new one.
  db.prepare("UPDATE links SET domain_id = 1, code = 'moved' WHERE id = 1").run();
  t.deepEqual(
    db.prepare('SELECT link_id AS linkId, domain_id AS domain, code FROM link_changes ORDER BY seq DESC LIMIT 3').all().reverse(),
    [
      { linkId: null, domain: 1, code: null },
      { linkId: 1, domain: 0, code: 'abc123' },
      { linkId: 1, domain: 1, code: 'moved' },
    ],
  );
});

test('the dedupe probe looks the URL hash up in its index, never every link of the owner', (t) => {
  const db = openDatabase(join(tempDir(t), 'kurz.db'));
  t.teardown(() => db.close());
  const plan = db
    .prepare(`EXPLAIN QUERY PLAN ${LINK_IDS_BY_URL_HASH}`)
    .all(Buffer.alloc(32), 0, 0, 1, 0)
    .map((row) => (row as { detail: string }).detail)
    .join('\n');
  t.regex(plan, /USING INDEX links_by_url_hash/);
});
