import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { LinkJson } from '../../src/links/link-json.ts';
import { freshDatabase, runCli, tempDir } from '../helpers.ts';

async function kurzOn(t: ExecutionContext) {
  const dir = tempDir(t);
  const env = { ...(await freshDatabase(t)).env, KURZ_PUBLIC_URL: 'https://s.example' };
  return Object.assign((args: string[], input?: string) => runCli(args, env, { input }), { env, dir });
}

const EVERY_OPTION = [
  '--title',
  'Launch page',
  '--note',
  'for the\nnewsletter',
  '--tags',
  'promo, 2026',
  '--tags',
  'mail',
  '--expires',
  '2099-06-30T12:00:00+02:00',
  '--max-visits',
  '100',
  '--password',
  'open sesame',
  '--redirect-status',
  '307',
  '--forward-query',
  '--disabled',
];

test('create takes every option as a flag and --json shows them', async (t) => {
  const kurz = await kurzOn(t);
  const result = await kurz(['create', 'https://example.com/launch', '--alias', 'launch', ...EVERY_OPTION, '--json']);
  t.is(result.code, 0);
  t.like(JSON.parse(result.stdout) as LinkJson, {
    code: 'launch',
    title: 'Launch page',
    note: 'for the\nnewsletter',
    tags: ['2026', 'mail', 'promo'],
    expiresAt: '2099-06-30T10:00:00.000Z',
    maxVisits: 100,
    visitsLeft: 100,
    passwordProtected: true,
    redirectStatus: 307,
    forwardQuery: true,
    enabled: false,
  });
  t.false(result.stdout.includes('open sesame'), 'the password is never shown');
});

test('create --password-stdin reads the password from the first line of standard input', async (t) => {
  const kurz = await kurzOn(t);
  const result = await kurz(['create', 'https://example.com/secret', '--password-stdin', '--json'], 'from stdin\n');
  t.is(result.code, 0);
  t.true((JSON.parse(result.stdout) as LinkJson).passwordProtected);
  t.deepEqual(await kurz(['create', 'https://example.com/secret', '--password-stdin'], ''), {
    code: 1,
    stdout: '',
    stderr: 'kurz: no password given: the first line of standard input was empty\n',
  });
});

test('a link created with options is never deduplicated; a bare URL still is', async (t) => {
  const kurz = await kurzOn(t);
  const first = (await kurz(['create', 'https://example.com/same', '--title', 'One'])).stdout;
  const second = (await kurz(['create', 'https://example.com/same', '--title', 'One'])).stdout;
  const bare = (await kurz(['create', 'https://example.com/same'])).stdout;
  t.not(first, second);
  t.not(bare, first);
  t.is((await kurz(['create', 'https://example.com/same'])).stdout, bare);
});

const INVALID_CREATE: Array<[string[], string]> = [
  [['--max-visits', '0'], 'maxVisits must be a whole number from 1 to 1000000000'],
  [['--max-visits', 'ten'], 'maxVisits must be a whole number from 1 to 1000000000'],
  [['--redirect-status', '303'], 'redirectStatus must be one of 301, 302, 307, 308'],
  [['--expires', 'tomorrow'], 'expiresAt must be an RFC 3339 time with an offset, like 2026-12-31T23:59:59Z'],
  [['--expires', '2000-01-01T00:00:00Z'], 'expiresAt must be in the future'],
  [
    ['--tags', 'no;semicolons'],
    'tags "no;semicolons" may only hold letters, digits, spaces and _ . : / + -, starting with a letter or digit',
  ],
  [['--title', 'x'.repeat(201)], 'title must be at most 200 characters'],
];
for (const [flags, message] of INVALID_CREATE) {
  test(`create ${flags.join(' ').slice(0, 30)} exits 1: ${message.slice(0, 30)}…`, async (t) => {
    const kurz = await kurzOn(t);
    t.deepEqual(await kurz(['create', 'https://example.com/x', ...flags]), { code: 1, stdout: '', stderr: `kurz: ${message}\n` });
  });
}

/** Each edit, from the link EVERY_OPTION made, and what --json shows after it. */
const EDITS: Array<[string[], Partial<LinkJson>]> = [
  [['--url', 'https://EXAMPLE.com/moved'], { url: 'https://example.com/moved' }],
  [['--title', 'Renamed'], { title: 'Renamed' }],
  [['--title', ''], { title: null }],
  [['--note', 'new note'], { note: 'new note' }],
  [['--tags', 'b,a', '--tags', 'c'], { tags: ['a', 'b', 'c'] }],
  [['--tags', ''], { tags: [] }],
  [['--expires', '2098-01-01T00:00:00Z'], { expiresAt: '2098-01-01T00:00:00.000Z' }],
  [['--no-expires'], { expiresAt: null }],
  [['--max-visits', '5'], { maxVisits: 5, visitsLeft: 5 }],
  [['--no-max-visits'], { maxVisits: null, visitsLeft: null }],
  [['--no-password'], { passwordProtected: false }],
  [['--redirect-status', '301'], { redirectStatus: 301 }],
  [['--default-redirect-status'], { redirectStatus: 302 }],
  [['--no-forward-query'], { forwardQuery: false }],
  [['--default-forward-query'], { forwardQuery: false }],
  [['--enable'], { enabled: true }],
  [['--enable', '--title', 'Both', '--no-max-visits'], { enabled: true, title: 'Both', maxVisits: null, visitsLeft: null }],
];
for (const [flags, expected] of EDITS) {
  test(`edit ${flags.join(' ')} changes only that`, async (t) => {
    const kurz = await kurzOn(t);
    const before = JSON.parse(
      (await kurz(['create', 'https://example.com/e', '--alias', 'e', ...EVERY_OPTION, '--json'])).stdout,
    ) as LinkJson;
    const result = await kurz(['edit', 'e', ...flags, '--json']);
    t.is(result.code, 0, result.stderr);
    const after = JSON.parse(result.stdout) as LinkJson;
    const { created: _created, updatedAt: _before, ...unchanged } = before as LinkJson & { created: boolean };
    t.deepEqual({ ...after, updatedAt: undefined }, { ...unchanged, ...expected, updatedAt: undefined });
  });
}

test('edit --password and --password-stdin protect a link that had no password', async (t) => {
  const kurz = await kurzOn(t);
  await kurz(['create', 'https://example.com/p', '--alias', 'p']);
  const protect = await kurz(['edit', 'p', '--password-stdin', '--json'], 'from stdin\n');
  t.true((JSON.parse(protect.stdout) as LinkJson).passwordProtected);
  await kurz(['edit', 'p', '--no-password']);
  t.true((JSON.parse((await kurz(['edit', 'p', '--password', 'on the line', '--json'])).stdout) as LinkJson).passwordProtected);
});

test('edit prints the link in a few lines', async (t) => {
  const kurz = await kurzOn(t);
  await kurz(['create', 'https://example.com/t', '--alias', 't']);
  const result = await kurz(['edit', 't', '--title', 'Shown', '--tags', 'x,y', '--max-visits', '3', '--disable']);
  t.deepEqual(result, {
    code: 0,
    stderr: '',
    stdout: [
      'Short URL  https://s.example/t',
      'Target     https://example.com/t',
      'Title      Shown',
      'Tags       x, y',
      'Expires    never',
      'Visits     at most 3 (3 left)',
      'Password   no',
      'Redirect   302',
      'Enabled    no: answers 410',
      '',
    ].join('\n'),
  });
});

test('edit of an unknown code, a deleted link or with an invalid value exits 1 with the reason', async (t) => {
  const kurz = await kurzOn(t);
  await kurz(['create', 'https://example.com/d', '--alias', 'd']);
  await kurz(['create', 'https://example.com/k', '--alias', 'k']);
  await kurz(['delete', 'd']);
  t.deepEqual(await kurz(['edit', 'nope', '--title', 'x']), { code: 1, stdout: '', stderr: 'kurz: no link with code "nope"\n' });
  t.deepEqual(await kurz(['edit', 'd', '--title', 'x']), {
    code: 1,
    stdout: '',
    stderr: 'kurz: the link "d" was deleted; its code is not reused\n',
  });
  t.deepEqual(await kurz(['edit', 'k', '--max-visits', '1.5']), {
    code: 1,
    stdout: '',
    stderr: 'kurz: maxVisits must be a whole number from 1 to 1000000000\n',
  });
  t.deepEqual(await kurz(['edit', 'k', '--url', 'javascript:alert(1)']), {
    code: 1,
    stdout: '',
    stderr: 'kurz: url must use http or https, not javascript\n',
  });
});

const CONTRADICTIONS: string[][] = [
  ['--enable', '--disable'],
  ['--expires', '2099-01-01T00:00:00Z', '--no-expires'],
  ['--max-visits', '3', '--no-max-visits'],
  ['--password', 'secret pw', '--no-password'],
  ['--password', 'secret pw', '--password-stdin'],
  ['--redirect-status', '301', '--default-redirect-status'],
  ['--forward-query', '--no-forward-query'],
  ['--forward-query', '--default-forward-query'],
];
for (const flags of CONTRADICTIONS) {
  test(`edit ${flags.filter((f) => f.startsWith('--')).join(' ')} contradict each other: exit 2`, async (t) => {
    const kurz = await kurzOn(t);
    const created = JSON.parse((await kurz(['create', 'https://example.com/c', '--alias', 'c', '--json'])).stdout) as LinkJson;
    const result = await kurz(['edit', 'c', ...flags]);
    t.is(result.code, 2);
    t.regex(result.stderr, /^kurz: --[a-z-]+ and --[a-z-]+ contradict each other: give one\n/);
    const after = JSON.parse((await kurz(['stats', 'c', '--json'])).stdout) as LinkJson;
    t.is(after.updatedAt, created.updatedAt, 'nothing was changed');
  });
}

test('list filters by --tag, sorts by --sort visits, and shows titles and tags', async (t) => {
  const kurz = await kurzOn(t);
  const record = (code: string, visitCount: number) => ({
    code,
    url: `https://example.com/${code}`,
    isAlias: true,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    visitCount,
    lastVisitAt: visitCount > 0 ? '2025-02-01T00:00:00.000Z' : null,
    deletedAt: null,
  });
  const file = join(kurz.dir, 'seed.ndjson');
  writeFileSync(file, [record('few', 2), record('many', 40), record('none', 0)].map((r) => JSON.stringify(r)).join('\n'));
  t.is((await kurz(['import', file])).code, 0);
  await kurz(['edit', 'few', '--title', 'A rather long title that the table has to cut short', '--tags', 'news,promo']);
  await kurz(['edit', 'many', '--tags', 'promo']);

  const codes = async (...args: string[]) =>
    (JSON.parse((await kurz(['list', ...args, '--json'])).stdout) as LinkJson[]).map((l) => l.code);
  t.deepEqual(await codes('--sort', 'visits'), ['many', 'few', 'none']);
  t.deepEqual(await codes('--tag', 'promo'), ['many', 'few']);
  t.deepEqual(await codes('--tag', 'news', '--sort', 'visits'), ['few']);
  t.deepEqual(await codes('--tag', 'promo', '--limit', '1', '--sort', 'visits'), ['many']);
  t.deepEqual(await codes('--tag', 'nothing'), []);

  const table = (await kurz(['list', '--sort', 'visits'])).stdout;
  t.is(
    table,
    [
      'CODE  VISITS  CREATED     TITLE                           TAGS        URL',
      'many  40      2025-01-01                                  promo       https://example.com/many',
      'few   2       2025-01-01  A rather long title that the …  news,promo  https://example.com/few',
      'none  0       2025-01-01                                              https://example.com/none',
      '',
    ].join('\n'),
  );
});

test('edit --default-forward-query hands the choice back to the instance setting', async (t) => {
  const kurz = await kurzOn(t);
  await kurz(['create', 'https://example.com/q', '--alias', 'q', '--no-forward-query']);
  const edited = await kurz(['edit', 'q', '--default-forward-query', '--json'], undefined);
  t.is(edited.code, 0, edited.stderr);
  // With the setting on, the link now forwards: it no longer says otherwise.
  const shown = await runCli(['stats', 'q', '--json'], { ...kurz.env, KURZ_FORWARD_QUERY: 'true' });
  t.is((JSON.parse(shown.stdout) as LinkJson).forwardQuery, true);
});
