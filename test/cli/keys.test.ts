import test, { type ExecutionContext } from 'ava';
import { freshDatabase, runCli, startServe, waitFor } from '../helpers.ts';

async function kurzOn(t: ExecutionContext) {
  const env = { ...(await freshDatabase(t)).env, KURZ_PUBLIC_URL: 'https://s.example' };
  return Object.assign((...args: string[]) => runCli(args, env), { env });
}

interface ListedKey {
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

test('keys create prints the key alone; keys list shows its name and prefix, never the key', async (t) => {
  const kurz = await kurzOn(t);
  const created = await kurz('keys', 'create', '--name', 'deploy bot');
  t.is(created.code, 0);
  t.regex(created.stdout, /^kurz_[\w-]{43}\n$/);
  const key = created.stdout.trim();
  const json = JSON.parse((await kurz('keys', 'create', '--name', 'ci', '--json')).stdout) as Record<string, string>;
  t.deepEqual(Object.keys(json), ['name', 'key', 'prefix', 'createdAt', 'yourlsToken']);
  t.regex(json['yourlsToken'] ?? '', /^[0-9a-f]{32}$/, "the key's YOURLS signature token, shown this once too");
  t.is(json['name'], 'ci');
  t.true(json['key']?.startsWith(json['prefix'] ?? '-'));

  const listed = await kurz('keys', 'list');
  t.is(listed.code, 0);
  t.regex(listed.stdout, /^NAME {8}USER {3}PREFIX {8}SCOPES {29}CREATED {11}EXPIRES {2}LAST USED {2}FROM {2}REVOKED\n/);
  t.regex(
    listed.stdout,
    new RegExp(
      `^deploy bot  admin  ${key.slice(0, 11)}… +links:read,links:write,stats:read +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +never +never +- +-$`,
      'm',
    ),
  );
  t.false(listed.stdout.includes(key), 'the key is never listed');
  const listedJson = (await kurz('keys', 'list', '--json')).stdout;
  t.false(listedJson.includes(key));
  t.false(listedJson.includes(json['key'] ?? '-'));
  t.deepEqual((JSON.parse(listedJson) as ListedKey[]).map((k) => [k.name, k.prefix]).sort(), [
    ['ci', json['prefix']],
    ['deploy bot', key.slice(0, 11)],
  ]);
});

test('keys create refuses a bad or taken name with exit 1', async (t) => {
  const kurz = await kurzOn(t);
  t.is((await kurz('keys', 'create', '--name', 'ci')).code, 0);
  t.deepEqual(await kurz('keys', 'create', '--name', 'ci'), {
    code: 1,
    stdout: '',
    stderr: 'kurz: an API key named "ci" exists already; revoke it first or pick another name\n',
  });
  t.regex((await kurz('keys', 'create', '--name', 'no/slash')).stderr, /^kurz: name must be 1-64 letters/);
});

test('a created key works as "Authorization: Bearer"; once revoked it does not, and revoking again exits 1', async (t) => {
  const kurz = await kurzOn(t);
  const key = (await kurz('keys', 'create', '--name', 'ci')).stdout.trim();
  const server = await startServe(t, kurz.env);
  const create = (bearer: string) =>
    fetch(`${server.url}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/by-key' }),
    });
  t.is((await create(key)).status, 201);
  t.is((await fetch(`${server.url}/api/v1/links`)).status, 401, 'no key, no API');
  const used = JSON.parse((await kurz('keys', 'list', '--json')).stdout) as ListedKey[];
  t.regex(used[0]?.lastUsedAt ?? '', /^\d{4}-/, 'its use is recorded');

  t.deepEqual(await kurz('keys', 'revoke', 'ci'), { code: 0, stdout: 'revoked the API key "ci"\n', stderr: '' });
  // A running server rechecks a key it has seen at most once a second (README): refused within that second and a margin.
  await waitFor(async () => (await create(key)).status === 401, 1_500);
  t.is((await create(key)).status, 401, 'and from then on');
  t.deepEqual(await kurz('keys', 'revoke', 'ci'), { code: 1, stdout: '', stderr: 'kurz: no API key named "ci"\n' });
  t.deepEqual(await kurz('keys', 'revoke', 'never-made'), { code: 1, stdout: '', stderr: 'kurz: no API key named "never-made"\n' });
  const revoked = JSON.parse((await kurz('keys', 'list', '--json')).stdout) as ListedKey[];
  t.regex(revoked[0]?.revokedAt ?? '', /^\d{4}-/);
  t.regex((await kurz('keys', 'list')).stdout, /^ci .* \d{4}-\d\d-\d\d \d\d:\d\d$/m, 'the table shows when');
});

test('keys create --scope takes comma-separated lists and may be repeated; --expires sets the expiry; keys list shows both', async (t) => {
  const kurz = await kurzOn(t);
  const made = await kurz(
    'keys',
    'create',
    '--name',
    'reports',
    '--scope',
    'stats:read,links:read',
    '--scope',
    'export',
    '--expires',
    '90d',
  );
  t.is(made.code, 0, made.stderr);
  t.is((await kurz('keys', 'create', '--name', 'plain')).code, 0);
  const listed = JSON.parse((await kurz('keys', 'list', '--json')).stdout) as Array<
    ListedKey & { scopes: string[]; expiresAt: string | null }
  >;
  const reports = listed.find((k) => k.name === 'reports');
  t.deepEqual(reports?.scopes, ['links:read', 'stats:read', 'export']);
  t.is(Date.parse(reports?.expiresAt ?? '') - Date.parse(reports?.createdAt ?? ''), 90 * 86_400_000);
  const plain = listed.find((k) => k.name === 'plain');
  t.deepEqual(plain?.scopes, ['links:read', 'links:write', 'stats:read'], 'a key made without scopes');
  t.is(plain?.expiresAt, null);
  t.regex(
    (await kurz('keys', 'list')).stdout,
    /^reports +admin +kurz_\S+… +links:read,stats:read,export +\S+ \S+ +\d{4}-\d\d-\d\d \d\d:\d\d +never +- +-$/m,
  );
});

test('keys create refuses an unknown scope, an empty one and a bad duration with exit 2, naming them; nothing is made', async (t) => {
  const kurz = await kurzOn(t);
  t.is((await kurz('keys', 'create', '--name', 'first')).code, 0);
  t.deepEqual(await kurz('keys', 'create', '--name', 'x', '--scope', 'links:read,links:delete'), {
    code: 2,
    stdout: '',
    stderr:
      'kurz: --scope: unknown scope "links:delete"; the scopes are links:read, links:write, stats:read, export, domains, admin\n' +
      'Run "kurz help" for usage.\n',
  });
  const empty = await kurz('keys', 'create', '--name', 'x', '--scope', 'links:read,');
  t.is(empty.code, 2);
  t.regex(empty.stderr, /^kurz: --scope must list scopes separated by commas, got "links:read,"/);
  const bad = await kurz('keys', 'create', '--name', 'x', '--expires', 'soon');
  t.is(bad.code, 2);
  t.regex(bad.stderr, /^kurz: --expires must be a positive duration like 180d, 12h, 30m, 10s or 500ms, got "soon"/);
  const misplaced = await kurz('keys', 'list', '--scope', 'export');
  t.is(misplaced.code, 2);
  t.regex(misplaced.stderr, /^kurz: --scope is for "keys create"/);
  t.deepEqual(
    (JSON.parse((await kurz('keys', 'list', '--json')).stdout) as ListedKey[]).map((k) => k.name),
    ['first'],
  );
});
