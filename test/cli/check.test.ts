import { chmodSync, existsSync, openSync, readFileSync, readdirSync, statSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import test, { type ExecutionContext } from 'ava';
import { APPLICATION_ID } from '../../src/store/sqlite/database.ts';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { backend, freshDatabase, runCli, sqliteOnly, startServe, tempDir, waitFor, type TestDatabase } from '../helpers.ts';
import { createThrough, freshRequest } from '../support/fresh-connection.ts';

const OK = /^ok: (\d+) links, (\d+) visits counted\n$/m;

/** A database of the test's backend with links and visits written by a real server (people and a bot), stopped. */
async function withVisits(t: ExecutionContext): Promise<{ database: TestDatabase; env: Record<string, string> }> {
  const database = await freshDatabase(t);
  const env = database.env;
  const made = await runCli(['keys', 'create', '--name', 'check', '--json'], env);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  const kurz = await startServe(t, env);
  const codes: string[] = [];
  for (let i = 0; i < 5; i++) codes.push(await createThrough(kurz.url, key, `https://example.com/checked/${i}`));
  for (const [i, code] of codes.entries()) for (let n = 0; n <= i; n++) t.is((await freshRequest(`${kurz.url}/${code}`)).status, 302);
  const bot = await fetch(`${kurz.url}/${codes[0]}`, { redirect: 'manual', headers: { 'user-agent': 'Slackbot-LinkExpanding 1.0' } });
  t.is(bot.status, 302);
  // Written before the stop: a starved background writer may not finish in the stop's time on a busy machine.
  await waitFor(async () => {
    const [row] = await database.sql<{ n: number }>('SELECT coalesce(sum(humans + bots), 0) AS n FROM visit_hours');
    return row?.n === 16;
  }, 120_000);
  t.is(await kurz.stop(), 0);
  return { database, env };
}

test('check passes a database kurz wrote, lists what it checked, and prints its size', async (t) => {
  const { env } = await withVisits(t);
  const result = await runCli(['check'], env);
  t.is(result.code, 0, result.stdout + result.stderr);
  t.is(result.stderr, '');
  const expected = [
    ...(backend === 'sqlite'
      ? [
          "ok       kurz's database, at this kurz's schema version: schema version",
          "ok       SQLite's integrity_check",
          "ok       SQLite's foreign_key_check",
        ]
      : []),
    'ok       the code key is there',
    'ok       every row of link_visits, link_tags, visit_hours, visit_days belongs to a link',
    "ok       every link is on one of kurz's domains, and no live link on a removed one",
    "ok       each user's figures are their links' (visits by day under the link's owner, and their day totals)",
    "ok       no live link's code is one of kurz's own paths (which would answer instead)",
    'ok       visits by hour = by day = instance by day (people, bots, unique visitors, only counted): 15 people, 1 bots, 5 unique visitors',
    "ok       each breakdown sums to the visits, by hour and by day (people's; 'bots' to the bots')",
    "ok       each link's all-time count holds at least its hourly series",
  ];
  const lines = result.stdout.split('\n').slice(1, -2);
  t.deepEqual(
    lines.map((line, i) => (expected[i] && line.startsWith(expected[i]) ? expected[i] : line)),
    expected,
  );
  t.deepEqual(OK.exec(result.stdout)?.slice(1), ['5', '15']);
});

test('check finds rollups that disagree and rows that name no link, says which, and exits 3', async (t) => {
  const { database, env } = await withVisits(t);
  await database.sql('UPDATE visit_days SET humans = humans + 1 WHERE link_id = (SELECT min(link_id) FROM visit_days)');
  await database.sql('UPDATE visit_totals SET undetailed_humans = 2 WHERE owner_id = 1');
  await database.sql('INSERT INTO link_visits (link_id, count, last_at) VALUES (?, ?, ?)', 99_999, 3, Date.now());
  await database.sql('UPDATE link_visits SET count = 0 WHERE link_id = (SELECT max(link_id) FROM visit_hours)');
  await database.sql('UPDATE links SET domain_id = 77 WHERE id = (SELECT min(id) FROM links)');
  await database.sql('UPDATE visit_days SET owner_id = 2 WHERE link_id = (SELECT max(link_id) FROM visit_days)');
  // As if an alias made before a later kurz took the path for a page of its own.
  await database.sql("UPDATE links SET code = 'Review' WHERE id = (SELECT max(id) FROM links)");
  const result = await runCli(['check'], env);
  t.is(result.code, 3, result.stderr);
  t.regex(
    result.stdout,
    /^FAILED {3}every row of link_visits, link_tags, visit_hours, visit_days belongs to a link\n {9}link_visits: 1 rows name no link$/m,
  );
  t.regex(
    result.stdout,
    /^FAILED {3}visits by hour = by day = instance by day .*\n {9}by hour: 15 people, 1 bots, 5 unique visitors\n {9}by day: 16 people, 1 bots, 5 unique visitors\n {9}instance by day: 15 people, 1 bots, 5 unique visitors; only counted: 2 people, 0 bots$/m,
  );
  t.regex(
    result.stdout,
    /^FAILED {3}each link's all-time count holds at least its hourly series\n {9}1 links count fewer visits than their series hold \(the first: link id \d+\)$/m,
  );
  t.regex(
    result.stdout,
    /^FAILED {3}every link is on one of kurz's domains, and no live link on a removed one\n {9}1 links name a domain that does not exist$/m,
  );
  t.regex(
    result.stdout,
    /^FAILED {3}each user's figures are their links' .*\n {9}1 days of visits are under a user who does not own their link\n {9}2 of a user's day totals differ from their links' visits that day$/m,
  );
  t.regex(
    result.stdout,
    /^FAILED {3}no live link's code is one of kurz's own paths .*\n {9}1 live links cannot be reached: their code is one of kurz's paths now \(the first: Review\)$/m,
  );
  t.regex(result.stdout, /^6 of \d+ checks failed\n$/m);
  t.false(/ {4}at /.test(result.stdout + result.stderr), 'no stack trace');
});

sqliteOnly('check verifies a backup without changing a byte of it', 'backup copies the SQLite file', async (t) => {
  const { env } = await withVisits(t);
  const file = join(tempDir(t), 'backup.db');
  t.is((await runCli(['backup', file], env)).code, 0);
  const before = readFileSync(file);
  for (const args of [
    ['check', file],
    ['check', '--db', file],
    ['check', file, '--quick'],
  ]) {
    const result = await runCli(args, {});
    t.is(result.code, 0, result.stdout);
    t.deepEqual(OK.exec(result.stdout)?.slice(1), ['5', '15'], args.join(' '));
  }
  t.regex((await runCli(['check', file, '--quick'], {})).stdout, /^ok {7}SQLite's quick_check$/m);
  t.true(readFileSync(file).equals(before), 'the file is unchanged');
  t.deepEqual(readdirSync(join(file, '..')), ['backup.db'], 'no journal or WAL left beside it');
});

/** A backup of a database with visits, and where the links table's first page starts in it. */
async function backupOf(t: ExecutionContext): Promise<{ file: string; page: number; offset: number }> {
  const { env } = await withVisits(t);
  const file = join(tempDir(t), 'backup.db');
  t.is((await runCli(['backup', file], env)).code, 0);
  const copy = new Sqlite(file, { readonly: true });
  const pageSize = copy.pragma('page_size', { simple: true }) as number;
  const page = copy.prepare<[], number>("SELECT rootpage FROM sqlite_schema WHERE name = 'links'").pluck().get() ?? 0;
  copy.close();
  return { file, page, offset: (page - 1) * pageSize };
}

/** Overwrites `length` bytes of `file` at `at`, as a disk's bad sector might. */
function damage(file: string, at: number, length: number): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(length, 0xa5), 0, length, at);
  closeSync(fd);
}

for (const flag of [[], ['--quick']]) {
  const pragma = flag.length > 0 ? 'quick_check' : 'integrity_check';
  sqliteOnly(
    `check ${flag.join(' ')} of a file with a damaged page names the damage and exits 3, without a stack trace`,
    'a SQLite file',
    async (t) => {
      const { file, page, offset } = await backupOf(t);
      // The page's first cell pointer: SQLite reads the page and finds the cell out of place.
      damage(file, offset + 8, 4);
      const result = await runCli(['check', file, ...flag], {});
      t.is(result.code, 3, result.stdout + result.stderr);
      t.regex(
        result.stdout,
        new RegExp(
          `^FAILED {3}SQLite's ${pragma}\\n {9}\\*\\*\\* in database main \\*\\*\\*\\n {9}Tree ${page} page ${page} cell \\d+: `,
          'm',
        ),
      );
      t.regex(result.stdout, /^skipped {2}kurz's tables agree with each other: the file is damaged: restore it from a backup$/m);
      t.regex(result.stdout, /^1 of \d+ checks failed\n$/m);
      t.is(result.stderr, '');
      t.false(/ {4}at /.test(result.stdout), 'no stack trace');
    },
  );

  sqliteOnly(`check ${flag.join(' ')} of a file whose page SQLite cannot parse names the table`, 'a SQLite file', async (t) => {
    const { file, offset } = await backupOf(t);
    // The page's header: its type and cell count. SQLite's check stops at such a page; kurz's goes on table by table.
    damage(file, offset, 8);
    const result = await runCli(['check', file, ...flag], {});
    t.is(result.code, 3, result.stdout + result.stderr);
    t.regex(
      result.stdout,
      new RegExp(`^FAILED {3}SQLite's ${pragma}\\n {9}links: the table cannot be read: database disk image is malformed$`, 'm'),
    );
    t.false(/^ {9}settings:/m.test(result.stdout), 'the tables that are whole pass');
    t.is(result.stderr, '');
  });
}

sqliteOnly('check refuses what is not a kurz database, each with its reason, exit 3', 'SQLite files', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'notes.txt'), 'not a database at all, but long enough to have a header\n');
  writeFileSync(join(dir, 'empty.db'), '');
  const other = new Sqlite(join(dir, 'other.db'));
  other.exec('CREATE TABLE t (x)');
  other.close();
  const newer = new Sqlite(join(dir, 'newer.db'));
  newer.pragma(`application_id = ${APPLICATION_ID}`);
  newer.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  newer.close();
  const cases: Array<[string, RegExp]> = [
    ['notes.txt', /^FAILED {3}a SQLite database\n {9}not a SQLite database: its first bytes are not SQLite's header$/m],
    ['empty.db', /^FAILED {3}a SQLite database\n {9}not a SQLite database: the file is empty$/m],
    ['other.db', /^FAILED {3}kurz's database.*\n {9}application_id is 0x00000000, not kurz's 0x6b75727a: this is not a kurz database$/m],
    [
      'newer.db',
      new RegExp(
        `^FAILED {3}kurz's database.*\\n {9}schema version ${MIGRATIONS.length + 1} is newer than this kurz's \\(${MIGRATIONS.length}\\)`,
        'm',
      ),
    ],
  ];
  for (const [name, message] of cases) {
    const result = await runCli(['check', join(dir, name)], {});
    t.is(result.code, 3, name);
    t.regex(result.stdout, message, name);
    t.is(result.stderr, '', name);
  }
  t.deepEqual(await runCli(['check', join(dir, 'missing.db')], {}), {
    code: 1,
    stdout: '',
    stderr: `kurz: there is no file at ${join(dir, 'missing.db')}\n`,
  });
  t.false(existsSync(join(dir, 'missing.db')));
});

sqliteOnly('check of a database at an older schema passes what it can and says kurz migrates it', 'SQLite files', async (t) => {
  const file = join(tempDir(t), 'old.db');
  const old = new Sqlite(file);
  old.pragma(`application_id = ${APPLICATION_ID}`);
  old.exec(MIGRATIONS[0] ?? '');
  old.pragma('user_version = 1');
  old.close();
  const result = await runCli(['check', file], {});
  t.is(result.code, 0, result.stdout);
  t.regex(
    result.stdout,
    new RegExp(
      `^ok {7}kurz's database, at this kurz's schema version: schema version 1: kurz migrates it to ${MIGRATIONS.length} when it next opens it$`,
      'm',
    ),
  );
  t.regex(result.stdout, /^skipped {2}kurz's tables agree with each other: they need the current schema$/m);
  t.regex(result.stdout, /^ok\n$/m);
});

test('check copes with a live database while kurz serves it', async (t) => {
  const { env } = await withVisits(t);
  const kurz = await startServe(t, env);
  const result = await runCli(['check'], env);
  t.is(result.code, 0, result.stdout);
  t.deepEqual(OK.exec(result.stdout)?.slice(1), ['5', '15']);
  t.is(await kurz.stop(), 0);
});

// Issue 23: kurz creates its files 0600 in 0700, and says so when an existing one is open to others.
sqliteOnly(
  'check warns of the database, its WAL and SHM, the first password file and their folder when others may open them; the exit code stays 0',
  'the modes of the SQLite file',
  async (t) => {
    const dir = join(tempDir(t), 'data dir');
    const db = join(dir, 'kurz.db');
    const env = { KURZ_DB: db };
    t.is((await runCli(['create', 'https://example.com/private'], env)).code, 0);
    // A -wal and -shm, as a running server has them.
    const open = new Sqlite(db);
    t.teardown(() => open.close());
    open.prepare('SELECT count(*) FROM links').get();
    writeFileSync(join(dir, 'kurz-admin-password'), 'generated\n', { mode: 0o600 });
    const clean = await runCli(['check'], env);
    t.is(clean.code, 0, clean.stdout);
    t.false(clean.stdout.includes('warning'), clean.stdout);

    chmodSync(db, 0o644);
    chmodSync(`${db}-wal`, 0o640);
    chmodSync(`${db}-shm`, 0o604);
    chmodSync(join(dir, 'kurz-admin-password'), 0o666);
    chmodSync(dir, 0o755);
    const result = await runCli(['check'], env);
    t.is(result.code, 0, result.stdout);
    const q = (path: string) => `'${path}'`;
    t.deepEqual(
      result.stdout.split('\n').filter((line) => line.startsWith('warning')),
      [
        `warning  ${db} is open to its group and others (mode 0644): run chmod 600 ${q(db)}`,
        `warning  ${db}-wal is open to its group (mode 0640): run chmod 600 ${q(`${db}-wal`)}`,
        `warning  ${db}-shm is open to others (mode 0604): run chmod 600 ${q(`${db}-shm`)}`,
        `warning  ${join(dir, 'kurz-admin-password')} is open to its group and others (mode 0666): run chmod 600 ${q(join(dir, 'kurz-admin-password'))}`,
        `warning  ${dir} is open to its group and others (mode 0755): run chmod 700 ${q(dir)}`,
      ],
    );
    t.regex(result.stdout, OK);
  },
);

sqliteOnly(
  'serve logs a warning naming a database file others may read, and the chmod to run',
  'the modes of the SQLite file',
  async (t) => {
    const dir = tempDir(t);
    const db = join(dir, 'kurz.db');
    t.is((await runCli(['create', 'https://example.com/private'], { KURZ_DB: db })).code, 0);
    chmodSync(db, 0o644);
    const kurz = await startServe(t, { KURZ_DB: db });
    t.is(await kurz.stop(), 0);
    t.regex(
      kurz.output().stderr,
      new RegExp(
        `warn a file of kurz is open to other users of this machine file=${db} mode=0644 openTo="its group and others" fix="chmod 600 ${db}"`,
      ),
    );
    t.is(statSync(db).mode & 0o777, 0o644, 'an existing file keeps the mode its owner gave it');
  },
);
