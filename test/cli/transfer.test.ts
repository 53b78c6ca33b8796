import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import test, { type ExecutionContext } from 'ava';
import { runCli, startServe, tempDir } from '../helpers.ts';

function kurzOn(t: ExecutionContext, dir = tempDir(t), name = 'kurz.db') {
  const env = { KURZ_DB: join(dir, name), KURZ_PUBLIC_URL: 'https://s.example' };
  return Object.assign((...args: string[]) => runCli(args, env), { env, dir });
}

const OLD = {
  code: 'old-promo',
  url: 'https://example.com/2020',
  isAlias: true,
  createdAt: '2020-03-01T10:00:00.000Z',
  updatedAt: '2020-03-01T10:00:00.000Z',
  visitCount: 12,
  lastVisitAt: '2020-04-01T08:30:00.123Z',
  deletedAt: null,
};

/** A database with generated, alias, visited, deleted and spreadsheet-hostile links. */
async function seeded(t: ExecutionContext) {
  const kurz = kurzOn(t);
  await kurz('create', 'https://example.com/plain');
  await kurz('create', 'https://example.com/q?a=1&b="two",three', '--alias', 'quoted');
  await kurz('create', 'https://example.com/formula', '--alias=-12');
  await kurz('create', 'https://example.com/deleted', '--alias', 'gone');
  await kurz('delete', 'gone');
  writeFileSync(join(kurz.dir, 'old.ndjson'), JSON.stringify(OLD) + '\n');
  t.is((await kurz('import', join(kurz.dir, 'old.ndjson'))).code, 0);
  return kurz;
}

for (const format of ['csv', 'ndjson']) {
  test(`export --format ${format} and import round-trip losslessly, codes kept`, async (t) => {
    const source = await seeded(t);
    const exported = await source('export', '--format', format);
    t.is(exported.code, 0);
    const file = join(source.dir, `links.${format}`);
    writeFileSync(file, exported.stdout);

    const target = kurzOn(t, tempDir(t));
    const imported = await target('import', file, '--format', format);
    t.is(imported.stdout, 'imported 5 links, skipped 0 already present\n');
    t.is((await target('export', '--format', format)).stdout, exported.stdout);
    t.regex((await target('stats', 'old-promo')).stdout, /Visits {6}12\nLast visit {2}2020-04-01T08:30:00\.123Z/);
    t.is((await target('create', 'https://example.com/new', '--alias', 'gone')).code, 1, 'a deleted code stays reserved');

    const again = await target('import', file, '--format', format);
    t.is(again.stdout, 'imported 0 links, skipped 5 already present\n', 'importing twice is harmless');
  });
}

test('CSV export is safe to open in a spreadsheet and still reads back exactly', async (t) => {
  const kurz = await seeded(t);
  const csv = (await kurz('export')).stdout;
  t.true(csv.startsWith('code,url,isAlias,createdAt,updatedAt,visitCount,lastVisitAt,deletedAt\n'));
  t.regex(csv, /^'-12,https:\/\/example\.com\/formula,true,/m, 'a cell starting with - is defused');
  t.regex(csv, /^quoted,"https:\/\/example\.com\/q\?a=1&b=%22two%22,three",true,/m);
  t.false(/^[=+\-@]/m.test(csv), 'no line starts a formula');
  const ndjson = (await kurz('export', '--format', 'ndjson')).stdout;
  t.true(ndjson.includes('"code":"-12"'));
});

test('import is all or nothing: one conflicting code imports none', async (t) => {
  const kurz = kurzOn(t);
  await kurz('create', 'https://example.com/mine', '--alias', 'clash');
  const file = join(kurz.dir, 'in.ndjson');
  writeFileSync(
    file,
    [JSON.stringify({ ...OLD, code: 'fresh' }), JSON.stringify({ ...OLD, code: 'clash', url: 'https://example.com/theirs' })].join('\n'),
  );
  const result = await kurz('import', file);
  t.is(result.code, 1);
  t.is(result.stderr, 'kurz: line 2: code "clash" already exists here with another URL (https://example.com/mine)\n');
  t.is((await kurz('stats', 'fresh')).code, 1, 'the first record was rolled back');
});

const BAD_FILES: Array<[string, string, RegExp]> = [
  ['in.ndjson', '{"code":"a"', /line 1: not valid JSON/],
  ['in.ndjson', JSON.stringify({ ...OLD, code: 'has space' }), /line 1: code is not usable: may only contain letters/],
  ['in.ndjson', JSON.stringify({ ...OLD, code: 'links' }), /line 1: code is not usable: "links" is reserved/],
  ['in.ndjson', JSON.stringify({ ...OLD, visitCount: -1 }), /line 1: visitCount must be a whole number/],
  ['in.ndjson', JSON.stringify({ ...OLD, createdAt: 'yesterday' }), /line 1: createdAt must be an ISO 8601 UTC time, got "yesterday"/],
  ['in.ndjson', JSON.stringify({ ...OLD, extra: 1 }), /line 1: extra is not a known field/],
  ['in.ndjson', JSON.stringify({ ...OLD, url: 'javascript:alert(1)' }), /line 1: url must use http or https/],
  ['in.ndjson', JSON.stringify({ ...OLD, url: 'https://EXAMPLE.com' }), /line 1: url is not in normalised form/],
  ['in.csv', 'code,url\n"unterminated,https://x.example\n', /not valid CSV/],
  [
    'in.csv',
    'code,url,isAlias,createdAt,updatedAt,visitCount,lastVisitAt,deletedAt\nabc,https://x.example/,maybe,,,,,\n',
    /line 2: isAlias must be true or false/,
  ],
];
for (const [name, content, message] of BAD_FILES) {
  test(`import refuses ${name} with ${String(message).slice(1, 40)}…, storing nothing`, async (t) => {
    const kurz = kurzOn(t);
    await kurz('create', 'https://example.com/kept', '--alias', 'kept');
    const file = join(kurz.dir, name);
    writeFileSync(file, content);
    const result = await kurz('import', file);
    t.is(result.code, 1);
    t.regex(result.stderr, message);
    t.deepEqual(
      JSON.parse((await kurz('list', '--deleted', '--json')).stdout).map((l: { code: string }) => l.code),
      ['kept'],
    );
  });
}

test('import errors name the line of the file, also for a conflict after blank lines and a CSV header', async (t) => {
  const kurz = kurzOn(t);
  await kurz('create', 'https://example.com/mine', '--alias', 'clash');
  const file = join(kurz.dir, 'in.csv');
  const row = (code: string, url: string) => `${code},${url},true,2025-01-01T00:00:00.000Z,2025-01-01T00:00:00.000Z,0,,`;
  writeFileSync(
    file,
    [
      'code,url,isAlias,createdAt,updatedAt,visitCount,lastVisitAt,deletedAt',
      row('one', 'https://example.com/1'),
      '',
      row('two', 'https://example.com/2'),
      row('clash', 'https://example.com/theirs'),
    ].join('\n'),
  );
  const result = await kurz('import', file);
  t.is(result.code, 1);
  t.regex(result.stderr, /^kurz: line 5: code "clash" already exists here/);
});

test('import of a missing file names it', async (t) => {
  const kurz = kurzOn(t);
  t.deepEqual(await kurz('import', join(kurz.dir, 'nope.csv')), {
    code: 1,
    stdout: '',
    stderr: `kurz: cannot read ${join(kurz.dir, 'nope.csv')}: ENOENT\n`,
  });
});

test('prune --dry-run lists links unvisited for that long; prune deletes them and their codes answer 410', async (t) => {
  const kurz = await seeded(t);
  const dry = await kurz('prune', '--unvisited-for', '180d', '--dry-run');
  t.is(dry.code, 0);
  t.regex(
    dry.stdout,
    /^CODE {7}LAST VISIT {2}URL\nold-promo {2}2020-04-01 {2}https:\/\/example\.com\/2020\nwould delete 1 links not visited for 180d\n$/,
  );
  t.is((await kurz('stats', 'old-promo', '--json')).stdout.includes('"deletedAt":null'), true, 'dry run deletes nothing');

  t.regex((await kurz('prune', '--unvisited-for', '180d')).stdout, /deleted 1 links not visited for 180d\n$/);
  t.regex((await kurz('prune', '--unvisited-for', '180d')).stdout, /^deleted 0 links/);
  const server = await startServe(t, kurz.env);
  t.is((await fetch(`${server.url}/old-promo`, { redirect: 'manual' })).status, 410);
  t.is((await fetch(`${server.url}/quoted`, { redirect: 'manual' })).status, 302, 'recent links are kept');
});

test('backup while kurz serves gives a consistent copy that opens and holds the links', async (t) => {
  const kurz = kurzOn(t);
  const server = await startServe(t, kurz.env);
  for (let i = 0; i < 50; i++) {
    await fetch(`${server.url}/api/v1/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `https://example.com/${i}` }),
    });
  }
  const file = join(kurz.dir, 'backup.db');
  const result = await kurz('backup', file);
  t.is(result.code, 0);
  t.regex(result.stdout, /^backed up \d+ pages to /);
  const copy = new Sqlite(file, { readonly: true });
  t.teardown(() => copy.close());
  t.is(copy.pragma('integrity_check', { simple: true }), 'ok');
  t.is(copy.prepare('SELECT count(*) FROM links').pluck().get(), 50);
  t.false(existsSync(`${file}-wal`), 'the copy is a single self-contained file');

  const refused = await kurz('backup', file);
  t.deepEqual(refused, { code: 1, stdout: '', stderr: `kurz: ${file} exists; pass --force to replace it\n` });
  const before = readFileSync(file);
  t.is((await kurz('backup', file, '--force')).code, 0);
  t.true(readFileSync(file).length >= before.length);
  t.is((await kurz('backup', join(kurz.dir, 'no', 'such', 'dir.db'))).code, 1);
});
