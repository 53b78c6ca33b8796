import test, { type ExecutionContext } from 'ava';
import { freshDatabase, runCli } from '../helpers.ts';

async function kurzOn(t: ExecutionContext) {
  const env = { ...(await freshDatabase(t)).env, KURZ_PUBLIC_URL: 'https://s.example' };
  return Object.assign((...args: string[]) => runCli(args, env), { env });
}

interface ListedDomain {
  host: string;
  isDefault: boolean;
  scheme: string | null;
  notFoundRedirect: string | null;
  rootRedirect: string | null;
  links: number;
}

test('domains add, list, edit and remove; the default domain is the publicUrl’s host', async (t) => {
  const kurz = await kurzOn(t);
  t.is((await kurz('domains', 'add', 'S2.Example.', '--scheme', 'http', '--not-found-redirect', 'https://example.com/nf')).code, 0);
  t.is((await kurz('domains', 'add', 'bücher.example')).stdout, 'added the domain xn--bcher-kva.example\n');
  const listed = JSON.parse((await kurz('domains', 'list', '--json')).stdout) as ListedDomain[];
  t.deepEqual(
    listed.map(({ host, isDefault, scheme, notFoundRedirect, links }) => ({ host, isDefault, scheme, notFoundRedirect, links })),
    [
      { host: 's.example', isDefault: true, scheme: null, notFoundRedirect: null, links: 0 },
      { host: 's2.example', isDefault: false, scheme: 'http', notFoundRedirect: 'https://example.com/nf', links: 0 },
      { host: 'xn--bcher-kva.example', isDefault: false, scheme: null, notFoundRedirect: null, links: 0 },
    ],
  );
  const table = (await kurz('domains', 'list')).stdout;
  t.regex(table, /^HOST +LINKS +SCHEME +NOT FOUND +ROOT +OPEN TO\n/);
  t.regex(table, /^s\.example \(default\) +0 +- +- +- +everyone$/m);

  const edited = await kurz(
    'domains',
    'edit',
    's2.example',
    '--not-found-redirect',
    '',
    '--root-redirect',
    'https://example.com/',
    '--json',
  );
  t.is(edited.code, 0, edited.stderr);
  t.like(JSON.parse(edited.stdout), { host: 's2.example', notFoundRedirect: null, rootRedirect: 'https://example.com/', scheme: 'http' });
  // The default domain has settings of its own too.
  t.is((await kurz('domains', 'edit', 's.example', '--root-redirect', 'https://example.com/home')).code, 0);

  t.is((await kurz('domains', 'remove', 'xn--bcher-kva.example')).stdout, 'removed the domain xn--bcher-kva.example\n');
  t.deepEqual(
    (JSON.parse((await kurz('domains', 'list', '--json')).stdout) as ListedDomain[]).map((d) => d.host),
    ['s.example', 's2.example'],
  );
  // A removed host may be added again.
  t.is((await kurz('domains', 'add', 'bücher.example')).code, 0);
});

test('short URLs carry their domain and scheme; the same alias lives on two domains; a link moves only where its code is free', async (t) => {
  const kurz = await kurzOn(t);
  await kurz('domains', 'add', 's2.example', '--scheme', 'http');
  await kurz('domains', 'add', 's3.example');
  t.is((await kurz('create', 'https://example.com/a', '--alias', 'go')).stdout, 'https://s.example/go\n');
  t.is((await kurz('create', 'https://example.com/b', '--alias', 'go', '--domain', 's2.example')).stdout, 'http://s2.example/go\n');
  const taken = await kurz('create', 'https://example.com/c', '--alias', 'go', '--domain', 's2.example');
  t.is(taken.code, 1);
  t.is(taken.stderr, 'kurz: alias "go" is already taken on s2.example\n');
  const generated = (await kurz('create', 'https://example.com/d', '--domain', 's3.example')).stdout;
  t.regex(generated, /^https:\/\/s3\.example\/\w+\n$/);

  const onS2 = JSON.parse((await kurz('list', '--domain', 's2.example', '--json')).stdout) as Array<{
    code: string;
    url: string;
    domain: string;
  }>;
  t.deepEqual(
    onS2.map((l) => [l.domain, l.code, l.url]),
    [['s2.example', 'go', 'https://example.com/b']],
  );
  t.is((await kurz('list', '--json')).stdout.match(/"code"/g)?.length, 3, 'without --domain: every domain');

  const blocked = await kurz('edit', 'go', '--domain', 's2.example', '--move-to', 's.example');
  t.is(blocked.code, 1);
  t.regex(blocked.stderr, /the code "go" is already taken on the domain it would move to/);
  const moved = await kurz('edit', 'go', '--domain', 's2.example', '--move-to', 's3.example', '--json');
  t.is(moved.code, 0, moved.stderr);
  t.like(JSON.parse(moved.stdout), { domain: 's3.example', code: 'go', shortUrl: 'https://s3.example/go', url: 'https://example.com/b' });
  t.is((await kurz('stats', 'go', '--domain', 's2.example')).code, 1, 'no longer on s2');
  t.is((await kurz('stats', 'go', '--domain', 's3.example')).code, 0);

  const removal = await kurz('domains', 'remove', 's3.example');
  t.is(removal.code, 1);
  t.regex(removal.stderr, /2 live links are on s3\.example: move them to another domain/);
  t.is((await kurz('delete', 'go', '--domain', 's3.example')).stdout, 'deleted go\n');
  t.is((await kurz('delete', generated.trim().split('/').at(-1)!, '--domain', 's3.example')).code, 0);
  t.is((await kurz('domains', 'remove', 's3.example')).code, 0, 'deleted links do not hold a domain');
});

test('export carries the domain and import needs it to exist', async (t) => {
  const kurz = await kurzOn(t);
  await kurz('domains', 'add', 's2.example');
  await kurz('create', 'https://example.com/a', '--alias', 'go');
  await kurz('create', 'https://example.com/b', '--alias', 'go', '--domain', 's2.example');
  const csv = (await kurz('export')).stdout;
  const [header = '', ...rows] = csv.trim().split('\n');
  const domainAt = header.split(',').indexOf('domain');
  t.true(domainAt > 0, header);
  const domainOf = (url: string) => rows.find((row) => row.startsWith(`go,${url},`))?.split(',')[domainAt];
  t.is(domainOf('https://example.com/a'), '', 'the default domain is left empty: the importing instance’s own');
  t.is(domainOf('https://example.com/b'), 's2.example');
  t.is((await kurz('export', '--domain', 's2.example')).stdout.split('\n').filter(Boolean).length, 2, 'a header and the one link');

  const other = await kurzOn(t);
  const refused = await runCli(['import', '-'], other.env, { input: csv });
  t.is(refused.code, 1);
  t.regex(refused.stderr, /line 3: domain "s2\.example" is not one of this kurz's domains: add it first/);
  t.is((await other('list', '--json')).stdout, '[]\n', 'all or nothing');
  await other('domains', 'add', 's2.example');
  t.is((await runCli(['import', '-'], other.env, { input: csv })).stdout, 'imported 2 links, skipped 0 already present\n');
});

test('bad domain input gets a precise refusal and changes nothing', async (t) => {
  const kurz = await kurzOn(t);
  const cases: Array<[string[], RegExp]> = [
    [['domains', 'add', 'http://s2.example'], /host must be a bare host name \(no scheme, port or path\)/],
    [['domains', 'add', 's2.example:8080'], /no scheme, port or path/],
    [['domains', 'add', '127.0.0.1'], /host must be a host name, not an IP address/],
    [['domains', 'add', 'localhost'], /host is not a valid host name/],
    [['domains', 'add', 'bad-.example'], /host is not a valid host name/],
    [['domains', 'add', `${'a'.repeat(64)}.example`], /host is not a valid host name/],
    [['domains', 'add', 's.example'], /s\.example is the default domain already/],
    [['domains', 'add', 's2.example', '--scheme', 'ftp'], /scheme must be http or https/],
    [['domains', 'add', 's2.example', '--not-found-redirect', 'javascript:alert(1)'], /notFoundRedirect must be an http or https URL/],
    [['domains', 'add', 's2.example', '--root-redirect', 'https://s.example/loop'], /rootRedirect leads back to kurz/],
    [['domains', 'edit', 'nope.example', '--scheme', 'http'], /no domain "nope\.example"/],
    [['domains', 'edit', 's.example'], /give at least one change/],
    [['domains', 'remove', 's.example'], /is the default domain .* it cannot be removed/],
    [['domains', 'list', 'extra'], /unexpected argument "extra"/],
    [['domains', 'remove', 'x.example', '--scheme', 'http'], /--scheme is for "domains add" and "domains edit"/],
    [['create', 'https://example.com/', '--domain', 'nope.example'], /domain "nope\.example" is not one of kurz's domains/],
    [['list', '--domain', 'bad host'], /domain must be a bare host name/],
  ];
  for (const [args, message] of cases) {
    const result = await kurz(...args);
    t.not(result.code, 0, args.join(' '));
    t.regex(result.stderr, message, args.join(' '));
    t.false(result.stderr.includes('    at '), 'no stack trace');
  }
  const listed = JSON.parse((await kurz('domains', 'list', '--json')).stdout) as ListedDomain[];
  t.deepEqual(
    listed.map((d) => d.host),
    ['s.example'],
    'nothing was added',
  );
});

test('domains limited to some users: --users and --all-users, listed; a member creates, moves and imports only onto those they may use', async (t) => {
  const kurz = await kurzOn(t);
  for (const name of ['ana', 'bo']) t.is((await kurz('users', 'add', name)).code, 0);
  t.is((await kurz('domains', 'add', 'club.example', '--users', 'Ana, ')).code, 0);
  t.is((await kurz('domains', 'add', 'staff.example', '--users', '')).code, 0);
  const table = (await kurz('domains', 'list')).stdout;
  t.regex(table, /^club\.example +0 +- +- +- +ana$/m);
  t.regex(table, /^staff\.example +0 +- +- +- +admins only$/m);
  t.regex(table, /^s\.example \(default\) +0 +- +- +- +everyone$/m);
  t.like(JSON.parse((await kurz('domains', 'list', '--json')).stdout)[1], { host: 'club.example', users: ['ana'] });

  const created = await kurz('create', 'https://example.com/ana', '--alias', 'mine', '--domain', 'club.example', '--as', 'ana');
  t.is(created.code, 0, created.stderr);
  const refused = await kurz('create', 'https://example.com/bo', '--domain', 'club.example', '--as', 'bo');
  t.is(refused.code, 1);
  t.regex(refused.stderr, /domain "club\.example" is not open to you: an admin names the users who may create links on it/);
  t.is((await kurz('create', 'https://example.com/admin', '--domain', 'staff.example')).code, 0, 'the admin may use every domain');
  t.is((await kurz('create', 'https://example.com/bo', '--alias', 'bos', '--as', 'bo')).code, 0);
  const move = await kurz('edit', 'bos', '--move-to', 'club.example', '--as', 'bo');
  t.is(move.code, 1);
  t.regex(move.stderr, /domain "club\.example" is not open to you/);
  const csv = (await kurz('export', '--domain', 'club.example')).stdout;
  const imported = await runCli(['import', '-', '--format', 'csv', '--as', 'bo'], kurz.env, { input: csv });
  t.is(imported.code, 1);
  t.regex(imported.stderr, /line 2: domain "club\.example" is not open to you/);

  t.is((await kurz('domains', 'edit', 'club.example', '--users', 'bo')).code, 0);
  t.is((await kurz('create', 'https://example.com/bo', '--domain', 'club.example', '--as', 'bo')).code, 0);
  t.like(
    JSON.parse((await kurz('list', '--json', '--as', 'ana')).stdout)[0],
    { code: 'mine', shortUrl: 'https://club.example/mine' },
    'ana keeps her link',
  );
  t.is((await kurz('domains', 'edit', 'club.example', '--all-users', '--json')).stdout.includes('"users":null'), true);

  const unknown = await kurz('domains', 'edit', 'club.example', '--users', 'ana,nobody');
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /users: no user named "nobody"/);
  t.is((await kurz('domains', 'edit', 'club.example', '--users', 'ana', '--all-users')).code, 2);
  t.is((await kurz('domains', 'remove', 'club.example', '--users', 'ana')).code, 2);

  const audit = (await kurz('audit', '--action', 'domain')).stdout;
  t.regex(audit, /^\S+ \S+ +admin +cli +domain\.edit +domain club\.example +users=everyone$/m);
  t.regex(audit, /domain\.add +domain staff\.example +users=admins only$/m);
});
