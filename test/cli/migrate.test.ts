import { join } from 'node:path';
import test from 'ava';
import { COPIED_TABLES } from '../../src/store/copy.ts';
import { backend, freshDatabase, runCli, startServe, tempDir } from '../helpers.ts';
import { createThrough, freshRequest } from '../support/fresh-connection.ts';

// SQLite to PostgreSQL: the PostgreSQL pass of the test matrix runs it (its fresh databases are PostgreSQL's).
const migrateTest = backend === 'postgres' ? test.serial : test.skip;

migrateTest('kurz migrate copies a SQLite database into an empty PostgreSQL one; codes, keys and counts keep working', async (t) => {
  const sqlite = { KURZ_DB: join(tempDir(t), 'kurz.db') };
  const key = JSON.parse((await runCli(['keys', 'create', '--name', 'carried over', '--json'], sqlite)).stdout) as { key: string };
  const source = await startServe(t, { ...sqlite, KURZ_VISIT_FLUSH_INTERVAL: '60s' });
  const links = new Map<string, string>();
  for (let i = 0; i < 30; i++) {
    const url = `https://example.com/moved/${i}`;
    links.set(await createThrough(source.url, key.key, url), url);
  }
  const alias = await freshRequest(`${source.url}/api/v1/links`, {
    method: 'POST',
    body: { url: 'https://example.com/aliased', alias: 'moved-alias', tags: ['a', 'b'], title: 'Kept' },
    key: key.key,
  });
  t.is(alias.status, 201);
  links.set('moved-alias', 'https://example.com/aliased');
  const [visited] = [...links.keys()];
  for (let i = 0; i < 7; i++) t.is((await freshRequest(`${source.url}/${visited}`)).status, 302);
  t.is(await source.stop(), 0);

  const target = await freshDatabase(t);
  const url = target.env['KURZ_DATABASE_URL']!;
  const migrated = await runCli(['migrate', '--to', url], sqlite);
  t.is(migrated.code, 0, migrated.stderr);
  const counts = new Map(
    migrated.stdout
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((cells) => cells.length === 3 && /^\d+$/.test(cells[1]!))
      .map(([table, from, to]) => [table!, [Number(from), Number(to)]]),
  );
  t.deepEqual(counts.get('links'), [31, 31]);
  t.deepEqual(counts.get('link_tags'), [2, 2]);
  t.deepEqual(counts.get('visits'), [7, 7]);
  t.deepEqual(counts.get('api_keys'), [1, 1]);
  t.is(counts.size, COPIED_TABLES.length, 'every table is counted');
  for (const [table, [from, to]] of counts) t.is(from, to, table);
  t.regex(migrated.stdout, /copied every row/);

  // The copy serves: the same counts, the same codes, the same key; a new link takes a new id.
  const stats = await runCli(['stats', visited!, '--json'], target.env);
  t.like(JSON.parse(stats.stdout), { visitCount: 7, stats: { visits: { humans: 7 } } });
  const copy = await startServe(t, target.env);
  for (const [code, to] of links) t.is((await freshRequest(`${copy.url}/${code}`)).location, to, code);
  const listed = await freshRequest(`${copy.url}/api/v1/links/moved-alias`, { key: key.key });
  t.like(JSON.parse(listed.body), { title: 'Kept', tags: ['a', 'b'] });
  const fresh = await createThrough(copy.url, key.key, 'https://example.com/after-the-move');
  t.false(links.has(fresh));
  t.is(await copy.stop(), 0);

  const again = await runCli(['migrate', '--to', url], sqlite);
  t.is(again.code, 1);
  t.regex(again.stderr, /the target database already holds kurz data; migrate copies into an empty one/);
});

test('kurz migrate refuses a target that is not a PostgreSQL URL, and a missing --to', async (t) => {
  const sqlite = { KURZ_DB: join(tempDir(t), 'kurz.db') };
  t.is((await runCli(['create', 'https://example.com/'], sqlite)).code, 0);
  const wrong = await runCli(['migrate', '--to', 'mysql://u:secret@db/kurz'], sqlite);
  t.is(wrong.code, 2);
  t.regex(wrong.stderr, /^kurz: migrate: --to must be a URL like postgres:/);
  t.false(wrong.stderr.includes('secret'));
  const missing = await runCli(['migrate'], sqlite);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /migrate: --to postgres:\/\/… is required/);
});
