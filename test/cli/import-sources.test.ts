import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import test, { type ExecutionContext } from 'ava';
import { freshDatabase, runCli, tempDir } from '../helpers.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'import');
const fixture = (name: string) => join(FIXTURES, name);

/** A CLI runner on a fresh database whose default domain is s.example, and a folder for its files. */
async function kurzOn(t: ExecutionContext) {
  const database = await freshDatabase(t);
  const env = { ...database.env, KURZ_PUBLIC_URL: 'https://s.example' };
  return Object.assign((...args: string[]) => runCli(args, env), { env, dir: tempDir(t), sql: database.sql });
}

/** How many rows of visit figures the database holds: hours, days, the owners' days, breakdowns. */
async function figureRows(kurz: Awaited<ReturnType<typeof kurzOn>>): Promise<number> {
  let rows = 0;
  for (const table of ['visit_hours', 'visit_days', 'visit_totals', 'visit_dimensions', 'visit_dimension_days']) {
    const [row] = await kurz.sql<{ n: number }>(`SELECT count(*) AS n FROM ${table}`);
    rows += row?.n ?? 0;
  }
  return rows;
}

/** `kurz stats CODE --json` over the days [from, to), by day: the figures GET /api/v1/links/CODE/stats gives. */
async function statsOf(kurz: Awaited<ReturnType<typeof kurzOn>>, code: string, from: string, to: string) {
  const result = await kurz('stats', code, '--granularity', 'day', '--from', from, '--to', to, '--json');
  return JSON.parse(result.stdout) as { visitCount: number; stats: Record<string, unknown> & { series: Array<{ t: string }> } };
}

interface Listed {
  code: string;
  domain: string;
  url: string;
  title: string | null;
  tags: string[];
  createdAt: string;
  visitCount: number;
  lastVisitAt: string | null;
  expiresAt: string | null;
  isAlias: boolean;
}

/** Every link the admin has, by "domain/code", with the fields an import carries. */
async function links(kurz: Awaited<ReturnType<typeof kurzOn>>): Promise<Record<string, Partial<Listed>>> {
  const list = JSON.parse((await kurz('list', '--json')).stdout) as Listed[];
  return Object.fromEntries(
    list.map((l) => [
      `${l.domain}/${l.code}`,
      {
        url: l.url,
        title: l.title,
        tags: l.tags,
        createdAt: l.createdAt,
        visitCount: l.visitCount,
        lastVisitAt: l.lastVisitAt,
        expiresAt: l.expiresAt,
      },
    ]),
  );
}

test('--from yourls reads a mysqldump: keywords, titles with escapes, UTC times, click counts and the last click from the log', async (t) => {
  const kurz = await kurzOn(t);
  const result = await kurz('import', '--from', 'yourls', fixture('yourls.sql'));
  t.deepEqual(result, { code: 0, stdout: 'imported 3 links, skipped 0\n', stderr: '' });
  t.deepEqual(await links(kurz), {
    's.example/1': {
      url: 'https://yourls.org/',
      title: 'YOURLS: Your Own URL Shortener',
      tags: [],
      createdAt: '2024-01-05T09:30:00.000Z',
      visitCount: 0,
      lastVisitAt: null,
      expiresAt: null,
    },
    's.example/ozh': {
      // The URL as kurz normalises a new link's; the title's line break becomes a space (a title is one line).
      url: 'https://ozh.org/?q=it%27s',
      title: 'Ozh\'s "blog"\\archive second line',
      tags: [],
      createdAt: '2024-02-01T12:00:00.000Z',
      visitCount: 3,
      lastVisitAt: '2024-03-04T19:40:12.000Z',
      expiresAt: null,
    },
    's.example/Release_2': {
      url: 'https://example.com/releases/2.0',
      title: null,
      tags: [],
      createdAt: '2024-04-30T23:59:59.000Z',
      visitCount: 41,
      lastVisitAt: '2024-05-01T00:00:01.000Z',
      expiresAt: null,
    },
  });
  t.regex((await kurz('stats', 'Release_2')).stdout, /Visits +41\n/);

  const again = await kurz('import', '--from', 'yourls', fixture('yourls.sql'));
  t.is(
    again.stdout,
    [
      'imported 0 links, skipped 3',
      'line 97: skipped "1": code "1" already exists here with the same URL',
      'line 97: skipped "ozh": code "ozh" already exists here with the same URL',
      'line 97: skipped "Release_2": code "Release_2" already exists here with the same URL',
      '',
    ].join('\n'),
    'importing twice is harmless, and says why each line was skipped',
  );
});

test("--from yourls puts yourls_log's clicks in each link's figures by day, referrer and country, its count staying the url's", async (t) => {
  const kurz = await kurzOn(t);
  t.is((await kurz('import', '--from', 'yourls', fixture('yourls.sql'))).code, 0);
  const ozh = await statsOf(kurz, 'ozh', '2024-03-01', '2024-03-05');
  t.is(ozh.visitCount, 3);
  t.like(ozh.stats, {
    visits: { total: 3, humans: 3, bots: 0, uniqueVisitors: 0 },
    series: [
      { t: '2024-03-01T00:00:00.000Z', humans: 0, bots: 0 },
      { t: '2024-03-02T00:00:00.000Z', humans: 1, bots: 0 },
      { t: '2024-03-03T00:00:00.000Z', humans: 1, bots: 0 },
      { t: '2024-03-04T00:00:00.000Z', humans: 1, bots: 0 },
    ],
    referrers: [
      { name: 'direct', count: 2 },
      { name: 'news.example', count: 1 },
    ],
    countries: [
      { name: 'DE', count: 1 },
      { name: 'FR', count: 1 },
      { name: 'unknown', count: 1 },
    ],
  });
  t.is(ozh.stats.series.length, 4);
  // YOURLS counted 41 clicks but its log kept one (pruned): the count is the url's, the days show the log's.
  const release = await statsOf(kurz, 'Release_2', '2024-04-30', '2024-05-02');
  t.is(release.visitCount, 41);
  t.like(release.stats, { visits: { humans: 1 }, countries: [{ name: 'US', count: 1 }] });
  const rows = await figureRows(kurz);
  t.true(rows > 0);
  t.is((await kurz('import', '--from', 'yourls', fixture('yourls.sql'))).stdout.split('\n')[0], 'imported 0 links, skipped 3');
  t.is(await figureRows(kurz), rows, 'a skipped link adds no figures: importing twice counts nothing twice');
  t.like((await statsOf(kurz, 'ozh', '2024-03-01', '2024-03-05')).stats, { visits: { humans: 3 } });
});

test('a YOURLS dump with a log line kurz cannot read imports nothing, neither links nor figures; a rehearsal stores none', async (t) => {
  const kurz = await kurzOn(t);
  const file = join(kurz.dir, 'bad-log.sql');
  writeFileSync(
    file,
    [
      "INSERT INTO `yourls_url` VALUES ('a','https://a.example/','t','2024-01-01 00:00:00','ip',2);",
      "INSERT INTO `yourls_log` VALUES (1,'2024-03-02 08:15:00','a','direct','UA','ip','FR'),",
      "(2,'2024-02-30 08:15:00','a','direct','UA','ip','FR');",
      '',
    ].join('\n'),
  );
  const refused = await kurz('import', '--from', 'yourls', file);
  t.is(refused.code, 1);
  t.regex(refused.stderr, /^kurz: line 3: click_time is not a date and time/);
  t.deepEqual(await links(kurz), {});
  t.is(await figureRows(kurz), 0);
  t.is((await kurz('import', '--from', 'yourls', fixture('yourls.sql'), '--dry-run')).code, 0);
  t.is(await figureRows(kurz), 0, 'a dry run stores no figures');
});

test('a code kurz already has with another URL is reported by line and never overwritten; the rest is imported', async (t) => {
  const kurz = await kurzOn(t);
  t.is((await kurz('create', 'https://example.com/mine', '--alias', 'ozh')).code, 0);
  const result = await kurz('import', '--from', 'yourls', fixture('yourls.sql'), '--json');
  t.is(result.code, 0);
  t.deepEqual(JSON.parse(result.stdout), {
    imported: 2,
    skipped: 1,
    skips: [{ line: 97, code: 'ozh', reason: 'code "ozh" already exists here with another URL (https://example.com/mine)' }],
    notes: [],
  });
  t.like((await links(kurz))['s.example/ozh'], { url: 'https://example.com/mine', visitCount: 0 });
});

test('a member importing a code someone else has is told it is taken, never shown the other link', async (t) => {
  const kurz = await kurzOn(t);
  t.is((await kurz('create', 'https://example.com/admins-secret', '--alias', 'ozh')).code, 0);
  t.is((await kurz('users', 'add', 'alice')).code, 0);
  const result = await kurz('import', '--from', 'yourls', fixture('yourls.sql'), '--as', 'alice', '--json');
  t.is(result.code, 0);
  t.like(JSON.parse(result.stdout), { imported: 2, skipped: 1, skips: [{ line: 97, code: 'ozh', reason: 'code "ozh" is taken here' }] });
  t.false(result.stdout.includes('admins-secret'));
  const alices = JSON.parse((await kurz('list', '--json', '--as', 'alice')).stdout) as Listed[];
  t.deepEqual(alices.map((l) => l.code).sort(), ['1', 'Release_2']);
});

test('--dry-run says what would become of each line and stores nothing', async (t) => {
  const kurz = await kurzOn(t);
  await kurz('create', 'https://example.com/mine', '--alias', 'ozh');
  const rehearsed = await kurz('import', '--from', 'yourls', fixture('yourls.sql'), '--dry-run');
  t.deepEqual(rehearsed, {
    code: 0,
    stdout:
      'would import 2 links, skip 1\nline 97: skipped "ozh": code "ozh" already exists here with another URL (https://example.com/mine)\n',
    stderr: '',
  });
  t.deepEqual(Object.keys(await links(kurz)), ['s.example/ozh']);
  t.is((await kurz('import', '--from', 'yourls', fixture('yourls.sql'))).stdout.split('\n')[0], 'imported 2 links, skipped 1');
});

test('--from shlink reads the web client export: each code on its domain, tags, quoted titles, offsets read as UTC, visits', async (t) => {
  const kurz = await kurzOn(t);
  const missing = await kurz('import', '--from', 'shlink', fixture('shlink-export.csv'));
  t.is(missing.code, 1);
  t.is(
    missing.stderr,
    'kurz: line 5: domain "go.example" is not one of this kurz\'s domains: add it first (kurz domains add HOST)\n',
    'a domain kurz lacks refuses the file, as for kurz’s own export',
  );
  t.deepEqual(await links(kurz), {}, 'nothing was stored');

  t.is((await kurz('domains', 'add', 'go.example')).code, 0);
  const result = await kurz('import', '--from', 'shlink', fixture('shlink-export.csv'));
  t.deepEqual(result, {
    code: 0,
    // "docs" is one of kurz's own paths: that link cannot move, the others do.
    stdout: 'imported 3 links, skipped 1\nline 3: skipped "docs": cannot be a code here: "docs" is reserved for kurz\'s own pages\n',
    stderr: '',
  });
  t.deepEqual(await links(kurz), {
    's.example/abc123': {
      url: 'https://example.com/launch?utm_source=shlink',
      title: 'Launch, day one',
      tags: ['launch', 'press'],
      createdAt: '2023-11-20T09:15:30.000Z',
      visitCount: 128,
      lastVisitAt: '2023-11-20T09:15:30.000Z',
      expiresAt: null,
    },
    's.example/Kept-Case_9': {
      url: 'https://example.com/case',
      title: 'He said "hi"',
      tags: [],
      createdAt: '2024-02-03T04:05:06.000Z',
      visitCount: 0,
      lastVisitAt: null,
      expiresAt: null,
    },
    'go.example/guide': {
      url: 'https://docs.example.com/guide',
      title: 'Guide',
      tags: ['docs'],
      createdAt: '2024-01-03T00:00:00.000Z',
      visitCount: 1,
      lastVisitAt: '2024-01-03T00:00:00.000Z',
      expiresAt: null,
    },
  });
});

test('--from shlink reads the CSV Shlink’s importer reads: ";" between cells, names with spaces, a missing code generated', async (t) => {
  const kurz = await kurzOn(t);
  t.deepEqual(await kurz('import', '--from', 'shlink', fixture('shlink-importer.csv')), {
    code: 0,
    stdout: 'imported 2 links, skipped 0\n',
    stderr: '',
  });
  const list = JSON.parse((await kurz('list', '--json')).stdout) as Listed[];
  const imported = list.find((l) => l.code === 'imp-1');
  t.like(imported, { url: 'https://example.com/from-importer', title: 'Imported', tags: ['one', 'two'], isAlias: true });
  const generated = list.find((l) => l.url === 'https://example.com/no-code');
  t.like(generated, { isAlias: false, title: null });
  t.regex(generated?.code ?? '', /^[0-9A-Za-z]{6}$/);
});

/** A Kutt v3 SQLite database as its knex models create it (server/models/*.model.js), with the rows given. */
function kuttDatabase(file: string, wal: boolean): void {
  const db = new Sqlite(file);
  if (wal) db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE users (id integer PRIMARY KEY AUTOINCREMENT, email varchar(255) NOT NULL);
    CREATE TABLE domains (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, banned boolean NOT NULL DEFAULT '0', banned_by_id integer,
      address varchar(255) NOT NULL UNIQUE, homepage varchar(255), user_id integer, uuid char(36) NOT NULL,
      created_at datetime NOT NULL DEFAULT CURRENT_TIMESTAMP, updated_at datetime NOT NULL DEFAULT CURRENT_TIMESTAMP);
    CREATE TABLE links (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, address varchar(255) NOT NULL, description varchar(255),
      banned boolean NOT NULL DEFAULT '0', banned_by_id integer, domain_id integer REFERENCES domains(id), password varchar(255),
      expire_in datetime, target varchar(2040) NOT NULL, user_id integer, visit_count integer NOT NULL DEFAULT '0',
      uuid char(36) NOT NULL, created_at datetime NOT NULL DEFAULT CURRENT_TIMESTAMP, updated_at datetime NOT NULL DEFAULT CURRENT_TIMESTAMP);
    INSERT INTO users (email) VALUES ('me@example.com');
    INSERT INTO domains (address, user_id, uuid) VALUES ('go.example', 1, 'd1');
  `);
  const insert = db.prepare(
    `INSERT INTO links (address, description, banned, domain_id, password, expire_in, target, user_id, visit_count, uuid, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`,
  );
  insert.run('home', 'Home page', 0, null, null, null, 'https://example.com/', 9, 'u1', '2024-02-10 08:00:00');
  insert.run('promo', null, 0, 1, null, Date.UTC(2030, 0, 1), 'https://example.com/promo', 0, 'u2', Date.UTC(2024, 2, 1, 12));
  insert.run('locked', null, 0, null, '$2a$12$abcdefghijklmnopqrstuv', null, 'https://example.com/locked', 0, 'u3', '2024-03-01 00:00:00');
  db.close();
}

for (const wal of [false, true]) {
  test(`--from kutt reads Kutt's SQLite file${wal ? ' in WAL mode' : ''} without writing to it`, async (t) => {
    const kurz = await kurzOn(t);
    await kurz('domains', 'add', 'go.example');
    const file = join(kurz.dir, 'kutt.db');
    kuttDatabase(file, wal);
    const before = createHash('sha256').update(readFileSync(file)).digest('hex');
    const result = await kurz('import', '--from', 'kutt', file);
    t.deepEqual(result, {
      code: 0,
      stdout:
        'imported 2 links, skipped 1\nline 3: skipped "locked": has a password on Kutt, whose hash kurz cannot check: create it again with its password\n',
      stderr: '',
    });
    t.deepEqual(await links(kurz), {
      's.example/home': {
        url: 'https://example.com/',
        title: 'Home page',
        tags: [],
        createdAt: '2024-02-10T08:00:00.000Z',
        visitCount: 9,
        lastVisitAt: '2024-02-10T08:00:00.000Z',
        expiresAt: null,
      },
      'go.example/promo': {
        url: 'https://example.com/promo',
        title: null,
        tags: [],
        createdAt: '2024-03-01T12:00:00.000Z',
        visitCount: 0,
        lastVisitAt: null,
        expiresAt: '2030-01-01T00:00:00.000Z',
      },
    });
    t.is(createHash('sha256').update(readFileSync(file)).digest('hex'), before, 'the Kutt file is unchanged');
  });
}

test('--from kutt reads a dump of its tables: sqlite3 .dump (with replace(…, char(10))) and pg_dump --column-inserts', async (t) => {
  const kurz = await kurzOn(t);
  await kurz('domains', 'add', 'go.example');
  t.deepEqual(await kurz('import', '--from', 'kutt', fixture('kutt-links.sql')), {
    code: 0,
    stdout: [
      'imported 2 links, skipped 2',
      'line 8: skipped "secret": has a password on Kutt, whose hash kurz cannot check: create it again with its password',
      'line 9: skipped "spam": banned on Kutt',
      '',
    ].join('\n'),
    stderr: '',
  });
  t.deepEqual(await kurz('import', '--from', 'kutt', fixture('kutt-links.pg.sql')), {
    code: 0,
    stdout: 'imported 2 links, skipped 0\n',
    stderr: '',
  });
  const all = await links(kurz);
  t.like(all['s.example/kUtT7'], { url: 'https://kutt.it/', title: "Kutt's home", visitCount: 15, createdAt: '2024-02-10T08:00:00.000Z' });
  t.like(all['go.example/notes'], {
    url: 'https://notes.example/?a=1&b=2',
    title: 'Line one line two',
    createdAt: '2024-02-27T02:13:20.000Z',
    expiresAt: '2026-01-01T00:00:00.000Z',
  });
  t.like(all['s.example/pg-1'], { title: "A backslash \\ stays, a quote ' too", visitCount: 4, createdAt: '2024-05-06T07:08:09.123Z' });
  t.like(all['s.example/pg-2'], { createdAt: '2024-05-06T22:00:00.000Z' });
});

test('--from kutt reads a mysqldump of its links too, with MySQL’s backslash escapes', async (t) => {
  const kurz = await kurzOn(t);
  const file = join(kurz.dir, 'kutt-mysql.sql');
  writeFileSync(
    file,
    [
      '-- MySQL dump 10.13  Distrib 8.0.40, for Linux (x86_64)',
      'LOCK TABLES `links` WRITE;',
      "INSERT INTO `links` (`id`, `address`, `description`, `banned`, `domain_id`, `password`, `target`, `visit_count`, `created_at`) VALUES (1,'my-sql','It\\'s \\\\ fine',0,NULL,NULL,'https://example.com/mysql',3,'2024-06-01 10:00:00');",
      'UNLOCK TABLES;',
      '',
    ].join('\n'),
  );
  t.is((await kurz('import', '--from', 'kutt', file)).stdout, 'imported 1 links, skipped 0\n');
  t.like((await links(kurz))['s.example/my-sql'], { title: "It's \\ fine", visitCount: 3, createdAt: '2024-06-01T10:00:00.000Z' });
});

test('--from bitly recognises its usual columns, names the ones it left out, and takes a --map for others', async (t) => {
  const kurz = await kurzOn(t);
  t.deepEqual(await kurz('import', '--from', 'bitly', fixture('bitly.csv')), {
    code: 0,
    stdout: [
      'imported 2 links, skipped 0',
      'note: columns read: code=Bitlink, url=Long URL, title=Title, tags=Tags, createdAt=Created, visits=Clicks',
      'note: columns not imported: Hidden',
      '',
    ].join('\n'),
    stderr: '',
  });
  t.like((await links(kurz))['s.example/3SpRiNg'], {
    url: 'https://shop.example/spring',
    title: 'Spring sale',
    tags: ['sale', 'spring'],
    createdAt: '2023-03-01T10:00:00.000Z',
    visitCount: 1200,
  });

  const unmapped = await kurz('import', '--from', 'bitly', fixture('bitly-other.csv'));
  t.deepEqual(unmapped, {
    code: 1,
    stdout: '',
    stderr: 'kurz: no column is the code: name it with --map code=COLUMN (the file has: link_name, destination_address, when)\n',
  });
  const mapped = await kurz(
    'import',
    '--from',
    'bitly',
    fixture('bitly-other.csv'),
    '--map',
    'code=link_name,url=destination_address,createdAt=when',
  );
  t.is(mapped.stdout, 'imported 1 links, skipped 0\nnote: columns read: code=link_name, url=destination_address, createdAt=when\n');
  t.like((await links(kurz))['s.example/xYz1'], { url: 'https://example.com/xyz', createdAt: '2022-01-01T00:00:00.000Z' });

  const wrong = await kurz('import', '--from', 'bitly', fixture('bitly-other.csv'), '--map', 'code=Nope');
  t.is(wrong.code, 1);
  t.regex(wrong.stderr, /^kurz: map: code=Nope, but the file has no such column/);
  t.is(
    (await kurz('import', '--from', 'bitly', fixture('bitly.csv'), '--map', 'shortcode=Bitlink')).code,
    2,
    'an unknown field is bad usage',
  );
  t.is((await kurz('import', '--from', 'yourls', fixture('yourls.sql'), '--map', 'code=x')).code, 2, '--map is for bitly only');
});

test('--from csv reads a text file of URLs (codes generated, a URL shortened before skipped) and a CSV with code, title and tags', async (t) => {
  const kurz = await kurzOn(t);
  const text = await kurz('import', '--from', 'csv', fixture('urls.txt'), '--json');
  const report = JSON.parse(text.stdout) as {
    imported: number;
    skipped: number;
    skips: Array<{ line: number; code: string; reason: string }>;
  };
  t.is(report.imported, 2);
  const list = JSON.parse((await kurz('list', '--json')).stdout) as Listed[];
  const one = list.find((l) => l.url === 'https://example.com/one');
  t.deepEqual(report.skips, [{ line: 4, code: one?.code ?? '?', reason: `already shortened here as "${one?.code}"` }]);
  t.is((await kurz('import', '--from', 'csv', fixture('urls.txt'))).stdout.split('\n')[0], 'imported 0 links, skipped 3');

  t.is((await kurz('import', '--from', 'csv', fixture('urls.csv'))).stdout, 'imported 2 links, skipped 0\n');
  const after = JSON.parse((await kurz('list', '--json')).stdout) as Listed[];
  t.like(
    after.find((l) => l.code === 'alpha'),
    { url: 'https://example.com/alpha', title: 'Alpha', tags: ['a', 'b'] },
  );
  t.like(
    after.find((l) => l.url === 'https://example.com/beta'),
    { title: 'Beta', isAlias: false },
  );
});

const BAD: Array<[string, string, string, string]> = [
  [
    'yourls',
    'bad.sql',
    "INSERT INTO `yourls_url` VALUES ('a','https://a.example/','t','2024-01-01 00:00:00','ip',1),\n('b','https://b.example/','t','2024-13-01 00:00:00','ip',1);",
    'kurz: line 2: timestamp is not a date and time: "2024-13-01 00:00:00"\n',
  ],
  [
    'yourls',
    'unclosed.sql',
    "INSERT INTO `yourls_url` VALUES ('a','https://a.example/,'t');\n",
    'kurz: line 1: a string is never closed\n',
  ],
  ['yourls', 'none.sql', '-- MySQL dump\nSELECT 1;\n', 'kurz: the dump has no yourls_url table: dump the YOURLS database with mysqldump\n'],
  [
    'yourls',
    'expression.sql',
    "INSERT INTO yourls_url VALUES ('a', CONCAT('x','y'), NULL, NOW(), '', 0);\n",
    'kurz: line 1: cannot read the value "CONCAT": only literals and NULL are read\n',
  ],
  [
    'kutt',
    'copy.sql',
    'COPY public.links (id, address) FROM stdin;\n1\tabc\n\\.\n',
    'kurz: line 1: the dump holds its rows as COPY data; dump them as INSERTs instead (pg_dump --inserts)\n',
  ],
  [
    'shlink',
    'dup.csv',
    'longUrl,shortCode\nhttps://a.example/,same\nhttps://b.example/,same\n',
    'kurz: line 3: code "same" is on line 2 too\n',
  ],
  ['shlink', 'nolong.csv', 'url,shortCode\nhttps://a.example/,x\n', 'kurz: line 1: a Shlink CSV needs a longUrl column\n'],
  [
    'csv',
    'cols.csv',
    'url,colour\nhttps://a.example/,red\n',
    'kurz: line 1: unknown column colour: a list has url, code, title and tags\n',
  ],
  [
    'kutt',
    'garbage.db',
    'SQLite format 3\u0000 and then nothing a database has',
    'kurz: SQLite cannot read the file: file is not a database\n',
  ],
];
for (const [source, name, content, message] of BAD) {
  test(`--from ${source} refuses ${name} naming the problem, storing nothing`, async (t) => {
    const kurz = await kurzOn(t);
    await kurz('create', 'https://example.com/kept', '--alias', 'kept');
    const file = join(kurz.dir, name);
    writeFileSync(file, content);
    t.deepEqual(await kurz('import', '--from', source, file), { code: 1, stdout: '', stderr: message });
    t.deepEqual(Object.keys(await links(kurz)), ['s.example/kept']);
  });
}

test('a target kurz refuses is skipped with the reason, never stored', async (t) => {
  const kurz = await kurzOn(t);
  const file = join(kurz.dir, 'hostile.csv');
  writeFileSync(file, 'url,code\njavascript:alert(1),js\nhttps://s.example/loop,loop\nhttps://fine.example/,fine\n');
  t.deepEqual(await kurz('import', '--from', 'csv', file), {
    code: 0,
    stdout: [
      'imported 1 links, skipped 2',
      'line 2: skipped "js": url must use http or https, not javascript',
      'line 3: skipped "loop": url leads back to this kurz instance (s.example)',
      '',
    ].join('\n'),
    stderr: '',
  });
  t.deepEqual(Object.keys(await links(kurz)), ['s.example/fine']);
});

test('a link whose tags kurz cannot keep is skipped with the reason, not imported without them', async (t) => {
  const kurz = await kurzOn(t);
  const file = join(kurz.dir, 'tags.csv');
  writeFileSync(file, 'longUrl,shortCode,tags\nhttps://a.example/,a,#promo|ok\nhttps://b.example/,b,fine|ok\n');
  const result = await kurz('import', '--from', 'shlink', file);
  t.is(result.code, 0);
  t.regex(result.stdout, /^imported 1 links, skipped 1\nline 2: skipped "a": tags "#promo" /);
  t.deepEqual(Object.keys(await links(kurz)), ['s.example/b']);
});

test('--from names the sources it knows', async (t) => {
  const kurz = await kurzOn(t);
  const result = await kurz('import', '--from', 'tinyurl', fixture('urls.txt'));
  t.is(result.code, 2);
  t.regex(result.stderr, /--from must be one of kurz, yourls, shlink, kutt, bitly, csv, got "tinyurl"/);
});
