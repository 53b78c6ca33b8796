import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { exportedLink, freshStorage, runCli, tempDir, type CliResult, type TestDatabase } from '../helpers.ts';
import { corpus, fieldCases, LEAK, limiter, shown } from '../support/hostile.ts';

/**
 * The hostile-input corpus (test/fixtures/hostile/) replayed against the CLI, as processes: link fields
 * through `create`, `edit` and `import`, hostile command lines, hostile import files. A refused case exits 1
 * (2 for a bad command line) with one line on stderr holding the corpus's message, no stack trace and no
 * control character (a terminal would run it), and stores nothing; a case stored is stored exactly. Each
 * case has a database of its own; a few processes run at a time.
 */

const turn = limiter(3);

interface Kurz {
  (...args: string[]): Promise<CliResult>;
  database: TestDatabase;
  dir: string;
  linkCount(): Promise<number>;
}

/** A CLI runner on a fresh database, its tables made (in this process, which is quicker than a command). */
async function kurzOn(t: ExecutionContext): Promise<Kurz> {
  const { database } = await freshStorage(t);
  const env = { ...database.env, KURZ_PUBLIC_URL: 'https://kurz.test' };
  const run = (...args: string[]) => runCli(args, env);
  return Object.assign(run, {
    database,
    dir: tempDir(t),
    async linkCount() {
      const [row] = await database.sql<{ n: number }>('SELECT count(*) AS n FROM links');
      return row?.n ?? -1;
    },
  });
}

/** A failure as the CLI reports it: exit 1 or 2, one message on stderr and no stack trace, no control character. */
function assertRefused(t: ExecutionContext, result: CliResult, message: string, exit?: number): void {
  if (exit === undefined) t.true(result.code === 1 || result.code === 2, `exit ${result.code}: ${result.stderr}`);
  else t.is(result.code, exit, result.stderr);
  t.true(result.stderr.startsWith('kurz: '), result.stderr);
  t.true(result.stderr.includes(message), `"${result.stderr}" lacks "${message}"`);
  t.false(LEAK.test(result.stderr), result.stderr);
  // eslint-disable-next-line no-control-regex
  t.false(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(result.stderr), 'a control character reached the terminal');
}

/** The flag that sets `field` to `value` (`--alias=VALUE`, so an alias may start with "-"). */
function flagOf(field: string, value: unknown): string[] {
  const text = String(value);
  const flags: Record<string, string[]> = {
    url: ['--url', text],
    alias: [`--alias=${text}`],
    title: ['--title', text],
    note: ['--note', text],
    tags: ['--tags', text],
    password: ['--password', text],
    expiresAt: ['--expires', text],
    maxVisits: ['--max-visits', text],
    redirectStatus: ['--redirect-status', text],
  };
  const flag = flags[field];
  if (!flag) throw new Error(`no flag for ${field}`);
  return flag;
}

function shownField(link: Record<string, unknown>, field: string): unknown {
  return field === 'alias' ? link['code'] : field === 'password' ? link['passwordProtected'] : link[field];
}

for (const [i, c] of fieldCases('cli').entries()) {
  test(`create: ${c.name} (${c.field} ${shown(c.value)}) is ${c.expect}`, (t) =>
    turn(async () => {
      const kurz = await kurzOn(t);
      const target = typeof c.value === 'string' && c.value.startsWith('-') ? ['--', c.value] : [String(c.value)];
      const args = c.field === 'url' ? ['create', ...target] : ['create', `https://example.com/cli/${i}`, ...flagOf(c.field, c.value)];
      const result = await kurz(...args, '--json');
      if (c.expect === 'refused') {
        assertRefused(t, result, c.message ?? '\0');
        t.is(await kurz.linkCount(), 0);
        return;
      }
      t.is(result.code, 0, result.stderr);
      t.deepEqual(shownField(JSON.parse(result.stdout) as Record<string, unknown>, c.field), c.stored);
    }));
}

for (const c of fieldCases('cli-edit')) {
  test(`edit: ${c.name} (${c.field} ${shown(c.value)}) is ${c.expect}`, (t) =>
    turn(async () => {
      const kurz = await kurzOn(t);
      t.is((await kurz('create', 'https://example.com/base', '--alias', 'base', '--title', 'base')).code, 0);
      const before = await kurz.database.sql('SELECT * FROM links');
      const result = await kurz('edit', 'base', ...flagOf(c.field, c.value), '--json');
      if (c.expect === 'refused') {
        assertRefused(t, result, c.message ?? '\0');
        t.deepEqual(await kurz.database.sql('SELECT * FROM links'), before, 'the link is unchanged');
        return;
      }
      t.is(result.code, 0, result.stderr);
      t.deepEqual(shownField(JSON.parse(result.stdout) as Record<string, unknown>, c.field), c.stored);
    }));
}

/** An exported link's fields, for a record of an import file. */
const { code: _code, ...RECORD } = exportedLink('imported', 'https://example.com/imported');

for (const c of fieldCases('import').filter((c) => c.expect === 'refused')) {
  test(`import: ${c.name} (${c.field} ${shown(c.value)}) is refused`, (t) =>
    turn(async () => {
      const kurz = await kurzOn(t);
      const file = join(kurz.dir, 'links.ndjson');
      writeFileSync(file, JSON.stringify({ code: 'imported', ...RECORD, [c.field]: c.value }) + '\n');
      const result = await kurz('import', file);
      assertRefused(t, result, c.message ?? '\0', 1);
      t.true(result.stderr.startsWith('kurz: line 1: '), 'the message names the line');
      t.is(await kurz.linkCount(), 0);
    }));
}

test('import: every value the corpus stores is imported exactly, in one file', (t) =>
  turn(async () => {
    const kurz = await kurzOn(t);
    const cases = fieldCases('import').filter((c) => c.expect === 'stored');
    const file = join(kurz.dir, 'links.ndjson');
    writeFileSync(
      file,
      cases.map((c, i) => JSON.stringify({ code: `f${i}`, ...RECORD, url: `https://example.com/f${i}`, [c.field]: c.value })).join('\n') +
        '\n',
    );
    const result = await kurz('import', file);
    t.is(result.stdout, `imported ${cases.length} links, skipped 0 already present\n`, result.stderr);
    const exported = (await kurz('export', '--format', 'ndjson')).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const [i, c] of cases.entries()) {
      t.deepEqual(exported.find((r) => r['code'] === `f${i}`)?.[c.field], c.stored, c.name);
    }
    t.log(`${cases.length} links in one import`);
  }));

interface CommandCase {
  name: string;
  category: string;
  args: string[];
  exit: number;
  message: string;
}

for (const c of corpus<CommandCase>('cli')) {
  test(`command line: ${c.name} exits ${c.exit}`, (t) =>
    turn(async () => {
      const kurz = await kurzOn(t);
      const junk = join(kurz.dir, 'junk.json');
      writeFileSync(junk, 'not: json');
      if (c.args.includes('{code}')) t.is((await kurz('create', 'https://example.com/base', '--alias', 'base')).code, 0);
      const before = await kurz.database.sql('SELECT * FROM links');
      const result = await kurz(...c.args.map((arg) => arg.replace('{code}', 'base').replace('{junk}', junk)));
      assertRefused(t, result, c.message, c.exit);
      t.deepEqual(await kurz.database.sql('SELECT * FROM links'), before, 'nothing stored or changed');
    }));
}

interface ImportCase {
  name: string;
  category: string;
  format: 'csv' | 'ndjson';
  text?: string;
  base64?: string;
  exit: number;
  message?: string;
  stored?: Record<string, Record<string, unknown>>;
}

for (const c of corpus<ImportCase>('import')) {
  test(`import file: ${c.name} ${c.exit === 0 ? 'is imported as written' : 'imports nothing'}`, (t) =>
    turn(async () => {
      const kurz = await kurzOn(t);
      const file = join(kurz.dir, `links.${c.format}`);
      writeFileSync(file, c.base64 === undefined ? (c.text ?? '') : Buffer.from(c.base64, 'base64'));
      const result = await kurz('import', file);
      if (c.exit !== 0) {
        assertRefused(t, result, c.message ?? '\0', c.exit);
        t.is(await kurz.linkCount(), 0);
        return;
      }
      t.is(result.code, 0, result.stderr);
      for (const [code, fields] of Object.entries(c.stored ?? {})) {
        const [row] = await kurz.database.sql<Record<string, unknown>>('SELECT title, note FROM links WHERE code = ?', code);
        t.like(row, fields, code);
      }
    }));
}
