import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { VERSION } from '../../src/core/version.ts';
import { freshDatabase, runCli, sqliteOnly, tempDir } from '../helpers.ts';

/** A fresh database; returns a runner bound to it. */
async function kurzOn(t: ExecutionContext) {
  const env = { ...(await freshDatabase(t)).env, KURZ_PUBLIC_URL: 'https://s.example' };
  return (...args: string[]) => runCli(args, env);
}

test('create prints the short URL; the same URL again prints the same one; --json has the details', async (t) => {
  const kurz = await kurzOn(t);
  const first = await kurz('create', 'https://example.com/cli');
  t.is(first.code, 0);
  t.regex(first.stdout, /^https:\/\/s\.example\/[0-9a-zA-Z]{6}\n$/);
  t.is((await kurz('create', '  https://EXAMPLE.com/cli')).stdout, first.stdout);
  const json = JSON.parse((await kurz('create', 'https://example.com/cli', '--json')).stdout) as { shortUrl: string; created: boolean };
  t.is(json.shortUrl + '\n', first.stdout);
  t.false(json.created);
  t.is((await kurz('create', 'https://example.com/mine', '--alias', 'mine')).stdout, 'https://s.example/mine\n');
});

test('create refuses bad input with exit code 1 and one clear line', async (t) => {
  const kurz = await kurzOn(t);
  t.deepEqual(await kurz('create', 'javascript:alert(1)'), {
    code: 1,
    stdout: '',
    stderr: 'kurz: url must use http or https, not javascript\n',
  });
  await kurz('create', 'https://example.com/a', '--alias', 'taken');
  t.deepEqual(await kurz('create', 'https://example.com/b', '--alias', 'taken'), {
    code: 1,
    stdout: '',
    stderr: 'kurz: alias "taken" is already taken\n',
  });
  t.is((await kurz('create', 'https://example.com/c', '--alias', 'api')).stderr, 'kurz: alias "api" is reserved for kurz\'s own pages\n');
  t.is((await kurz('list')).stdout.split('\n').length, 3, 'header, one link, final newline');
});

const USAGE: Array<[string[], RegExp]> = [
  [['frobnicate'], /unknown command "frobnicate"/],
  [['create'], /missing argument; usage: kurz create URL/],
  [['create', 'https://a.example', 'extra'], /unexpected argument "extra"/],
  [['list', '--colour'], /Unknown option '--colour'/],
  [['list', '--limit', 'ten'], /--limit must be a whole number from 1 to 100000, got "ten"/],
  [['prune', '--unvisited-for', 'forever'], /--unvisited-for must be a positive duration like 180d/],
  [['export', '--format', 'xml'], /--format must be one of csv, ndjson, got "xml"/],
  [['list', '--code-length', '99'], /invalid configuration: codeLength \(flag --code-length\)/],
  [['list', '--sort', 'name'], /--sort must be one of created, visits, got "name"/],
  [['keys'], /keys needs a subcommand: "keys create", "keys list", "keys revoke"/],
  [['keys', 'rotate'], /keys: unknown subcommand "rotate"/],
  [['keys', 'create'], /keys create needs --name NAME/],
  [['keys', 'revoke'], /keys revoke needs the key's name/],
  [['keys', 'list', '--name', 'x'], /--name is for "keys create"/],
  [['admin'], /admin needs a subcommand: "admin password"/],
  [['admin', 'password', 'hunter2'], /unexpected argument "hunter2"/],
  [['edit', 'abc'], /edit: give at least one change/],
  [['edit'], /missing argument; usage: kurz edit CODE/],
  // parseArgs would keep the last of a flag given twice, silently.
  [['create', 'https://a.example/', '--title', 'one', '--title', 'two'], /create: --title is given more than once/],
  [['edit', 'abc', '--url', 'https://a.example/', '--url', 'javascript:alert(1)'], /edit: --url is given more than once/],
  // What bytes that are not UTF-8 become when the system decodes the arguments.
  [['create', 'https://a.example/caf\ufffd'], /create: the argument "https:\/\/a\.example\/caf\ufffd" is not valid UTF-8/],
];
for (const [args, message] of USAGE) {
  test(`usage error: kurz ${args.join(' ')} exits 2`, async (t) => {
    const result = await (await kurzOn(t))(...args);
    t.is(result.code, 2);
    t.regex(result.stderr, message);
    t.false(result.stderr.includes('    at '), 'no stack trace');
  });
}

test('every command has --help, exiting 0', async (t) => {
  const kurz = await kurzOn(t);
  const help = await kurz('help');
  t.is(help.code, 0);
  const names = [...help.stdout.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1] ?? '');
  t.deepEqual(names, [
    'serve',
    'create',
    'edit',
    'list',
    'stats',
    'delete',
    'domains',
    'users',
    'keys',
    'admin',
    'backup',
    'check',
    'export',
    'import',
    'migrate',
    'prune',
    'audit',
    'review',
    'rules',
    'answers',
    'version',
    'completion',
    'healthcheck',
  ]);
  for (const name of names) {
    const result = await kurz(name, '--help');
    t.is(result.code, 0, name);
    t.true(result.stdout.startsWith(`Usage: kurz ${name}`), name);
  }
});

test('list shows newest first, searches code and URL, limits, and prints JSON', async (t) => {
  const kurz = await kurzOn(t);
  await kurz('create', 'https://example.com/alpha', '--alias', 'first');
  await kurz('create', 'https://example.com/beta_100%', '--alias', 'second');
  await kurz('create', 'https://other.example/gamma', '--alias', 'third');
  const text = await kurz('list');
  t.regex(
    text.stdout,
    /^CODE {4}VISITS {2}CREATED {5}TITLE {2}TAGS {2}URL\nthird {3}0 {7}\d{4}-\d\d-\d\d {15}https:\/\/other\.example\/gamma\nsecond .*\nfirst .*\n$/,
  );
  const search = JSON.parse((await kurz('list', '--search', 'example.com', '--json')).stdout) as Array<{ code: string }>;
  t.deepEqual(
    search.map((l) => l.code),
    ['second', 'first'],
  );
  const literal = JSON.parse((await kurz('list', '--search', '_100%', '--json')).stdout) as Array<{ code: string }>;
  t.deepEqual(
    literal.map((l) => l.code),
    ['second'],
    '% and _ are matched literally',
  );
  const limited = JSON.parse((await kurz('list', '--limit', '1', '--json')).stdout) as Array<{ code: string }>;
  t.deepEqual(
    limited.map((l) => l.code),
    ['third'],
  );
});

test('stats shows a link; an unknown code exits 1', async (t) => {
  const kurz = await kurzOn(t);
  await kurz('create', 'https://example.com/s', '--alias', 'st');
  const text = await kurz('stats', 'st');
  t.regex(
    text.stdout,
    /^Short URL {3}https:\/\/s\.example\/st\nTarget {6}https:\/\/example\.com\/s\nCreated .*\nVisits {6}0\nLast visit {2}never\nPeriod {6}\d{4}-\d{2}-\d{2} 00:00 to \d{4}-\d{2}-\d{2} 00:00 UTC, by day\nIn period {3}0 human visits, 0 unique visitors, 0 bot hits\nHumans {6}▁{45} peak 0 per day\n$/,
  );
  const json = JSON.parse((await kurz('stats', 'st', '--json')).stdout) as { visitCount: number; lastVisitAt: null };
  t.like(json, { visitCount: 0, lastVisitAt: null });
  t.deepEqual(await kurz('stats', 'nope'), { code: 1, stdout: '', stderr: 'kurz: no link with code "nope"\n' });
});

test('delete keeps the code reserved; deleting again is harmless; an unknown code exits 1', async (t) => {
  const kurz = await kurzOn(t);
  await kurz('create', 'https://example.com/d', '--alias', 'gone');
  t.is((await kurz('delete', 'gone')).stdout, 'deleted gone\n');
  t.is((await kurz('delete', 'gone')).stdout, 'gone was already deleted\n');
  t.regex((await kurz('stats', 'gone')).stdout, /Deleted {5}\d{4}-/);
  t.is((await kurz('create', 'https://example.com/e', '--alias', 'gone')).code, 1);
  t.is((await kurz('list')).stdout, 'CODE  VISITS  CREATED  TITLE  TAGS  URL\n', 'deleted links are hidden by default');
  t.regex((await kurz('list', '--deleted')).stdout, /gone .* \(deleted\) https:\/\/example\.com\/d/);
  t.is((await kurz('delete', 'nope')).code, 1);
});

test('version names kurz, Node and SQLite; with --json also the commit and the architecture', async (t) => {
  const kurz = await kurzOn(t);
  const text = await kurz('version');
  t.is(text.code, 0, text.stderr);
  t.regex(
    text.stdout,
    new RegExp(`^kurz ${VERSION.replaceAll('.', '\\.')}\nnode 24\\.\\d+\\.\\d+( \\(--[^\\n]+\\))?\nsqlite 3\\.\\d+\\.\\d+\n$`),
  );

  const result = await kurz('version', '--json');
  t.is(result.code, 0, result.stderr);
  const versions = JSON.parse(result.stdout) as Record<string, unknown>;
  t.deepEqual(Object.keys(versions), ['kurz', 'commit', 'node', 'nodeOptions', 'sqlite', 'arch']);
  t.is(versions['kurz'], VERSION);
  t.regex(String(versions['node']), /^24\./);
  t.regex(String(versions['sqlite']), /^3\.\d+\.\d+$/);
  t.is(versions['arch'], process.arch);
  t.regex(String(versions['commit']), /^[0-9a-f]{12}(-dirty)?$/, 'the commit the bundle was built from (below)');

  t.regex((await kurz('version', '--help')).stdout, /--json +print JSON, which also names the commit .* and the CPU architecture/);
  for (const args of [
    ['version', 'extra'],
    ['version', '--json', '--arch'],
  ]) {
    const refused = await kurz(...args);
    t.is(refused.code, 2, args.join(' '));
    t.is(refused.stdout, '', args.join(' '));
    t.regex(refused.stderr, /^kurz: .*\nRun "kurz help" for usage\.\n$/, args.join(' '));
  }
});

test('the bundle names the commit it was built from', async (t) => {
  const result = await runCli(['version', '--json'], { HOME: tempDir(t) });
  t.is(result.code, 0, result.stderr);
  const built = String((JSON.parse(result.stdout) as { commit: unknown }).commit);
  // A commit of this repository (the bundle may be older than HEAD), "-dirty" when its sources had changes.
  const [, commit] = /^([0-9a-f]{12})(-dirty)?$/.exec(built) ?? [];
  t.truthy(commit, `commit ${built}`);
  t.notThrows(() => execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { stdio: 'ignore' }));
});

const ON_EXISTING: string[][] = [
  ['list'],
  ['stats', 'abc'],
  ['edit', 'abc', '--title', 'x'],
  ['export'],
  ['delete', 'abc'],
  ['keys', 'list'],
  ['keys', 'revoke', 'ci'],
  ['prune', '--unvisited-for', '1d'],
  ['backup', 'copy.db'],
];
for (const args of ON_EXISTING) {
  sqliteOnly(
    `${args.slice(0, 2).join(' ')} on a database path that does not exist says so, exits 1 and creates nothing`,
    'a missing file; kurz never creates a PostgreSQL database',
    async (t) => {
      const dir = tempDir(t);
      const db = join(dir, 'typo', 'kurz.db');
      const result = await runCli(args, { KURZ_DB: db }, { cwd: dir });
      t.is(result.code, 1);
      t.is(result.stderr, `kurz: there is no database at ${db}; check --db (or KURZ_DB)\n`);
      t.false(existsSync(db));
      t.false(existsSync(join(dir, 'copy.db')));
    },
  );
}

test('configuration flags may come before the command', async (t) => {
  const db = (await freshDatabase(t)).flags;
  t.is((await runCli([...db, 'create', 'https://example.com/first', '--alias', 'first'], {})).code, 0);
  const listed = await runCli([...db, '--public-url', 'https://s.example', 'list', '--json'], {});
  t.is(listed.code, 0);
  t.deepEqual(
    (JSON.parse(listed.stdout) as Array<{ shortUrl: string }>).map((l) => l.shortUrl),
    ['https://s.example/first'],
  );
});

test('prune takes durations in the units of every setting (500ms, 1s, 10m, 12h, 30d)', async (t) => {
  const kurz = await kurzOn(t);
  await kurz('create', 'https://example.com/p', '--alias', 'p');
  for (const age of ['500ms', '1s', '10m', '12h', '30d']) {
    const result = await kurz('prune', '--unvisited-for', age, '--dry-run', '--json');
    t.is(result.code, 0, age);
    t.is((JSON.parse(result.stdout) as { dryRun: boolean }).dryRun, true);
  }
  t.is((await kurz('prune', '--unvisited-for', '0s')).code, 2, 'zero is no age');
});
