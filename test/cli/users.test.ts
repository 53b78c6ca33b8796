import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { exportedLink, freshDatabase, runCli, tempDir } from '../helpers.ts';

async function kurzOn(t: ExecutionContext) {
  const env = { ...(await freshDatabase(t)).env, KURZ_PUBLIC_URL: 'https://s.example' };
  return Object.assign((...args: string[]) => runCli(args, env), { env });
}

interface ListedUser {
  name: string;
  role: string;
  state: string;
  links: number;
  hasPassword: boolean;
}

test('users add prints a one-time link; list, role, disable, enable and reset change what they say', async (t) => {
  const kurz = await kurzOn(t);
  const added = await kurz('users', 'add', 'alice', '--email', 'alice@example.com');
  t.is(added.code, 0);
  t.regex(added.stdout, /^added alice; they set their password at \(valid until \S+, once\):\nhttps:\/\/s\.example\/welcome\/[\w-]{43}\n$/);
  const json = JSON.parse((await kurz('users', 'add', 'bob', '--role', 'admin', '--json')).stdout) as ListedUser & { link: string };
  t.like(json, { name: 'bob', role: 'admin', state: 'active', hasPassword: false });
  t.regex(json.link, /^https:\/\/s\.example\/welcome\//);
  t.is((await kurz('users', 'role', 'bob', 'member')).stdout, 'bob is now a member\n');
  t.is((await kurz('users', 'disable', 'alice')).stdout, 'alice is now disabled\n');
  const listed = JSON.parse((await kurz('users', 'list', '--json')).stdout) as ListedUser[];
  t.deepEqual(
    listed.map(({ name, role, state }) => [name, role, state]),
    [
      ['admin', 'admin', 'active'],
      ['alice', 'member', 'disabled'],
      ['bob', 'member', 'active'],
    ],
  );
  t.regex((await kurz('users', 'list')).stdout, /^alice +member +disabled +0 +alice@example\.com +link until /m);
  t.is((await kurz('users', 'enable', 'alice')).stdout, 'alice is now active\n');
  const reset = await kurz('users', 'reset', 'alice');
  t.regex(reset.stdout, /^a new link for alice; .*\nhttps:\/\/s\.example\/welcome\//);
  t.not(reset.stdout.split('\n')[1], added.stdout.split('\n')[1], 'a new link, not the old one again');
});

test('users refuses bad input with a message and exit code, and changes nothing', async (t) => {
  const kurz = await kurzOn(t);
  await kurz('users', 'add', 'alice');
  for (const [args, code, message] of [
    [['users', 'add', 'Alice'], 1, 'a user named "Alice" exists already'],
    [['users', 'add', 'a b'], 1, 'name must be 1-64 letters'],
    [['users', 'add', 'carol', '--role', 'owner'], 1, 'role must be admin or member'],
    [['users', 'add', 'carol', '--email', 'not-mail'], 1, 'email must be an e-mail address'],
    [['users', 'role', 'alice'], 2, 'users role needs the new role'],
    [['users', 'role', 'alice', 'king'], 1, 'role must be admin or member'],
    [['users', 'disable', 'nobody'], 1, 'no user named "nobody"'],
    [['users', 'disable', 'admin'], 1, 'you cannot take your own admin role or disable yourself'],
    [['users', 'list', 'extra'], 2, 'unexpected argument'],
    [['users', 'enable', 'alice', '--role', 'admin'], 2, '--role is for "users add"'],
  ] as const) {
    const result = await kurz(...args);
    t.is(result.code, code, args.join(' '));
    t.true(result.stderr.includes(message), `${args.join(' ')}: ${result.stderr}`);
  }
  const listed = JSON.parse((await kurz('users', 'list', '--json')).stdout) as ListedUser[];
  t.deepEqual(
    listed.map((u) => u.name),
    ['admin', 'alice'],
  );
});

test('--as acts for a user: they see and change only their own links; keys --user makes a key that acts as them', async (t) => {
  const kurz = await kurzOn(t);
  await kurz('users', 'add', 'alice');
  await kurz('users', 'add', 'bob');
  t.is((await kurz('create', 'https://example.com/alice', '--alias', 'alices', '--as', 'alice')).code, 0);
  t.is((await kurz('create', 'https://example.com/bob', '--alias', 'bobs', '--as', 'bob')).code, 0);
  const codes = async (...as: string[]) =>
    (JSON.parse((await kurz('list', '--json', ...as)).stdout) as Array<{ code: string; owner: string }>).map((l) => `${l.code}:${l.owner}`);
  t.deepEqual(await codes('--as', 'bob'), ['bobs:bob']);
  t.deepEqual(await codes(), ['bobs:bob', 'alices:alice'], 'the first admin sees all');
  for (const args of [
    ['edit', 'alices', '--title', 'mine now', '--as', 'bob'],
    ['delete', 'alices', '--as', 'bob'],
    ['stats', 'alices', '--as', 'bob'],
  ]) {
    const result = await kurz(...args);
    t.is(result.code, 1, args.join(' '));
    t.true(result.stderr.includes('no link'), result.stderr);
  }
  t.false((await kurz('export', '--as', 'bob')).stdout.includes('example.com/alice'));
  t.is((await kurz('export', '--visits', '--as', 'bob')).code, 2);
  t.is((await kurz('prune', '--unvisited-for', '30d', '--as', 'bob')).code, 2);
  t.is((await kurz('list', '--as', 'nobody')).code, 2);
  t.deepEqual(await codes('--as', 'alice'), ['alices:alice']);
  t.is((await kurz('edit', 'alices', '--owner', 'bob', '--as', 'alice')).code, 1, 'a member cannot give a link away');
  t.is((await kurz('edit', 'alices', '--owner', 'bob')).code, 0);
  t.deepEqual(await codes('--as', 'bob'), ['bobs:bob', 'alices:bob']);
  // An import --as bob is his. A code he holds is named with its URL; one another holds, never shown.
  const file = join(tempDir(t), 'in.ndjson');
  const record = (code: string, url = `https://example.com/${code}`) => JSON.stringify(exportedLink(code, url));
  writeFileSync(file, `${record('imported')}\n`);
  t.is((await kurz('import', file, '--as', 'bob')).code, 0);
  t.deepEqual(await codes('--as', 'bob'), ['imported:bob', 'bobs:bob', 'alices:bob']);
  writeFileSync(file, `${record('bobs')}\n`);
  t.regex(
    (await kurz('import', file, '--as', 'bob')).stderr,
    /line 1: code "bobs" already exists here with another URL \(https:\/\/example\.com\/bob\)/,
  );
  await kurz('create', 'https://example.com/hers', '--alias', 'hers', '--as', 'alice');
  writeFileSync(file, `${record('hers', 'https://example.com/x')}\n`);
  const theirs = await kurz('import', file, '--as', 'bob');
  t.is(theirs.code, 1);
  t.is(theirs.stderr, 'kurz: line 1: code "hers" is taken here\n');
  // Every link of bob's to alice at once; --to is required and names a user.
  t.is((await kurz('users', 'handover', 'bob')).code, 2);
  const nobody = await kurz('users', 'handover', 'bob', '--to', 'nobody');
  t.is(nobody.code, 1);
  t.is(nobody.stderr, 'kurz: to must name one of kurz\'s users, got "nobody"\n');
  t.is((await kurz('users', 'handover', 'nobody', '--to', 'alice')).code, 1);
  const handed = await kurz('users', 'handover', 'bob', '--to', 'alice', '--json');
  t.is(handed.code, 0, handed.stderr);
  t.deepEqual(JSON.parse(handed.stdout), { from: 'bob', to: 'alice', links: 3 });
  t.deepEqual(await codes('--as', 'bob'), []);
  t.is((await kurz('users', 'handover', 'alice', '--to', 'bob')).stdout, "4 links of alice are now bob's\n");
  // A key made for bob on the server acts as bob.
  t.is((await kurz('keys', 'create', '--name', 'bots', '--user', 'bob')).code, 0);
  t.regex((await kurz('keys', 'list', '--user', 'bob')).stdout, /^bots +bob +kurz_/m);
  t.is((await kurz('keys', 'create', '--name', 'x', '--user', 'nobody')).code, 2);
});
