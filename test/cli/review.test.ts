import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { BROWSER_UA, runCli, startKurz, tempDir, waitFor } from '../helpers.ts';

// kurz review: the queue of a server's database (reviewNewLinks), approve and reject; bad input exits 1 or 2,
// and the server drops what it cached of a link the CLI decided (the change log, as for any edit).

async function seeded(t: Parameters<typeof startKurz>[0]) {
  const k = await startKurz(t, { reviewNewLinks: 'members' });
  t.is((await k.postJson('/api/v1/users', { name: 'alice' })).status, 201);
  const env = { ...k.database.env, KURZ_REVIEW_NEW_LINKS: 'members' };
  const kurz = (...args: string[]) => runCli(args, env);
  for (const [alias, url] of [
    ['held', 'https://example.com/held'],
    ['spam', 'https://spam.example/x'],
  ] as const) {
    const created = await kurz('create', url, '--alias', alias, '--as', 'alice', '--json');
    t.is(created.code, 0, created.stderr);
    t.like(JSON.parse(created.stdout), { code: alias, owner: 'alice', review: 'pending' });
  }
  const visit = (code: string) => fetch(`${k.base}/${code}`, { headers: { 'user-agent': BROWSER_UA }, redirect: 'manual' });
  return { k, kurz, visit };
}

test('kurz review lists the waiting links; approve and reject decide, and the server follows at once', async (t) => {
  const { kurz, visit } = await seeded(t);
  const listed = await kurz('review');
  t.is(listed.code, 0, listed.stderr);
  const lines = listed.stdout.trimEnd().split('\n');
  t.regex(lines[0]!, /^CODE +CREATED +CREATOR +BLOCKLIST +URL$/);
  t.regex(lines[1]!, /^spam +\d{4}-\d\d-\d\d \d\d:\d\d +alice +- +https:\/\/spam\.example\/x$/);
  t.regex(lines[2]!, /^held .* alice .*https:\/\/example\.com\/held$/);
  const json = await kurz('review', 'list', '--json');
  t.deepEqual(
    (JSON.parse(json.stdout) as Array<{ code: string; review: string; listed: unknown }>).map((l) => [l.code, l.review, l.listed]),
    [
      ['spam', 'pending', null],
      ['held', 'pending', null],
    ],
  );

  // The server has both in its cache ("being reviewed"); the CLI's verdicts reach it through the change log.
  for (const code of ['held', 'held', 'spam', 'spam']) t.is((await visit(code)).status, 403);
  const approved = await kurz('review', 'approve', 'held');
  t.is(approved.code, 0, approved.stderr);
  t.is(approved.stdout, 'approved held: it redirects now\n');
  const rejected = await kurz('review', 'reject', 'spam', '--json');
  t.is(rejected.code, 0, rejected.stderr);
  t.like(JSON.parse(rejected.stdout), { code: 'spam', review: 'rejected' });
  await waitFor(async () => (await visit('held')).status === 302 && (await visit('spam')).status === 410);
  t.is((await kurz('review')).stdout, 'CODE  CREATED  CREATOR  BLOCKLIST  URL\n');
  const list = await kurz('list', '--review', 'rejected');
  t.regex(list.stdout, /spam .*\(rejected\) https:\/\/spam\.example\/x/);
  t.notRegex(list.stdout, /held/);
  const audit = await kurz('audit', '--action', 'link', '--json');
  t.deepEqual(
    audit.stdout
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { action: string }).action)
      .filter((a) => a === 'link.approve' || a === 'link.reject'),
    ['link.reject', 'link.approve'],
  );
});

test('kurz review: wrong states and unknown codes exit 1 saying why; bad usage exits 2; a member may not decide', async (t) => {
  const { kurz } = await seeded(t);
  const member = await kurz('review', 'approve', 'held', '--as', 'alice');
  t.is(member.code, 1);
  t.regex(member.stderr, /only an admin reviews links/);
  t.is((await kurz('review', '--as', 'alice')).code, 1);
  t.is((await kurz('review', 'approve', 'held')).code, 0);
  const twice = await kurz('review', 'approve', 'held');
  t.is(twice.code, 1);
  t.regex(twice.stderr, /the link "held" is not waiting for review/);
  t.is((await kurz('review', 'reject', 'spam')).code, 0);
  const retired = await kurz('review', 'approve', 'spam');
  t.is(retired.code, 1);
  t.regex(retired.stderr, /rejected already; a rejected link stays retired/);
  const unknown = await kurz('review', 'reject', 'nosuch');
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /no link with code "nosuch"/);
  t.is((await kurz('review', 'reject', 'held', '--domain', 'nowhere.example')).code, 1);
  for (const args of [
    ['review', 'approve'],
    ['review', 'frob'],
    ['review', 'list', 'x'],
    ['review', '--domain', 'a.example'],
    ['list', '--review', 'maybe'],
  ]) {
    const result = await kurz(...args);
    t.is(result.code, 2, args.join(' '));
  }
});

test('links a member imports wait for review as their new links would; the first admin’s do not', async (t) => {
  const { kurz } = await seeded(t);
  const exported = await kurz('export', '--format', 'ndjson');
  t.is(exported.code, 0, exported.stderr);
  const file = join(tempDir(t), 'links.ndjson');
  const renamed = (suffix: string) =>
    exported.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.stringify({ ...(JSON.parse(line) as object), code: `${(JSON.parse(line) as { code: string }).code}-${suffix}` }))
      .join('\n') + '\n';
  writeFileSync(file, renamed('alice'));
  t.is((await kurz('import', file, '--as', 'alice')).code, 0);
  writeFileSync(file, renamed('admin'));
  t.is((await kurz('import', file)).code, 0);
  const waiting = (await kurz('review', '--json')).stdout;
  const codes = (JSON.parse(waiting) as Array<{ code: string }>).map((l) => l.code).sort();
  t.deepEqual(codes, ['held', 'held-alice', 'spam', 'spam-alice']);
});
