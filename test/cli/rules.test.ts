import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { BROWSER_UA, runCli, startKurz, tempDir, waitFor } from '../helpers.ts';

// kurz rules: a link's redirect rules from the command line, on a running server's database: the server drops
// what it cached of the link through the change log (a second process on the same database, as any edit);
// bad input exits 2 naming the rule and the field.

const PLAIN = 'https://example.com/plain';

async function seeded(t: Parameters<typeof startKurz>[0]) {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/links', { url: PLAIN, alias: 'promo' })).status, 201);
  const kurz = (...args: string[]) => runCli(args, k.database.env);
  const visit = (language: string) =>
    fetch(`${k.base}/promo`, { headers: { 'user-agent': BROWSER_UA, 'accept-language': language }, redirect: 'manual' });
  return { k, kurz, visit };
}

test('kurz rules: --add, --list, --set FILE, --clear; the server follows each through the change log', async (t) => {
  const { k, kurz, visit } = await seeded(t);
  // Twice, so that the server's cache holds the plain link.
  for (let i = 0; i < 2; i++) t.is((await visit('de')).headers.get('location'), PLAIN);
  const none = await kurz('rules', 'promo');
  t.is(none.code, 0, none.stderr);
  t.is(none.stdout, 'promo: no rules: it redirects to its own target\n');

  const added = await kurz(
    'rules',
    'promo',
    '--add',
    '{"conditions":[{"type":"language","matchValue":"de"}],"target":"https://example.de/"}',
  );
  t.is(added.code, 0, added.stderr);
  t.is(added.stdout, 'promo: 1 rule set\n 1. if language de → https://example.de/\n');
  await waitFor(async () => (await visit('de')).headers.get('location') === 'https://example.de/');

  const more = await kurz(
    'rules',
    'promo',
    '--add',
    '{"conditions":[{"type":"query-param","matchKey":"src","matchValue":"x"}],"refuse":451}',
  );
  t.is(more.code, 0, more.stderr);
  const listed = await kurz('rules', 'promo', '--list');
  t.is(listed.stdout, ' 1. if language de → https://example.de/\n 2. if query-param src x refuse 451\n');
  const json = await kurz('rules', 'promo', '--json');
  t.deepEqual(JSON.parse(json.stdout), (await (await k.get('/api/v1/links/promo/rules')).json()) as unknown);

  const file = join(tempDir(t), 'rules.json');
  writeFileSync(file, JSON.stringify({ rules: [{ conditions: [{ type: 'language', matchValue: 'fr' }], refuse: 403 }] }));
  const set = await kurz('rules', 'promo', '--set', file);
  t.is(set.code, 0, set.stderr);
  await waitFor(async () => (await visit('fr')).status === 403 && (await visit('de')).headers.get('location') === PLAIN);

  const cleared = await kurz('rules', 'promo', '--clear');
  t.is(cleared.code, 0, cleared.stderr);
  await waitFor(async () => (await visit('fr')).status === 302);
  t.is((await kurz('rules', 'promo')).stdout, 'promo: no rules: it redirects to its own target\n');
});

test('kurz rules: bad input exits 2 naming the rule and the field; another member’s link is not found', async (t) => {
  const { k, kurz } = await seeded(t);
  const cases: Array<[string[], RegExp]> = [
    [
      ['--add', '{"conditions":[{"type":"ip-address","matchValue":"300.1.1.1"}],"target":"https://example.com/"}'],
      /rules\[0\]\.conditions\[0\]\.matchValue "300\.1\.1\.1" is not a CIDR range/,
    ],
    [['--add', '{"conditions":'], /--add is not JSON/],
    [
      ['--add', '{"conditions":[{"type":"language","matchValue":"de"}],"page":"notice"}'],
      /rules\[0\]\.page: the link has no notice to show/,
    ],
    [['--set', '/nonexistent/rules.json'], /cannot read \/nonexistent\/rules\.json: ENOENT/],
    [['--clear', '--list'], /give one of --list, --clear, --set, --add, not --list and --clear/],
  ];
  for (const [args, message] of cases) {
    const result = await kurz('rules', 'promo', ...args);
    t.is(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    t.regex(result.stderr, message);
  }
  const file = join(tempDir(t), 'many.json');
  writeFileSync(
    file,
    JSON.stringify([
      { conditions: [{ type: 'language', matchValue: 'de' }], refuse: 403 },
      { conditions: [{ type: 'language', matchValue: 'de' }] },
    ]),
  );
  const many = await kurz('rules', 'promo', '--set', file);
  t.is(many.code, 2);
  t.regex(many.stderr, /rules\[1\] has no action/);
  t.is((await kurz('rules', 'promo')).stdout, 'promo: no rules: it redirects to its own target\n', 'nothing was stored');

  t.is((await k.postJson('/api/v1/users', { name: 'alice' })).status, 201);
  const theirs = await kurz('rules', 'promo', '--as', 'alice', '--clear');
  t.is(theirs.code, 1);
  t.regex(theirs.stderr, /no link with code "promo"/);
  t.is((await kurz('rules', 'nosuch')).code, 1);
});
