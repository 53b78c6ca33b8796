import test from 'ava';
import { freshDatabase, runCli } from '../helpers.ts';

// kurz answers: the answers to a link's form (a page before the redirect, issue 26) as CSV, formula-safe,
// newest first; --delete removes them; another member's link is not found.

test('kurz answers prints the answers as formula-safe CSV, newest first; --delete removes them', async (t) => {
  const database = await freshDatabase(t);
  const kurz = (...args: string[]) => runCli(args, { ...database.env, KURZ_PUBLIC_URL: 'https://s.example' });
  t.is((await kurz('create', 'https://example.com/target', '--alias', 'survey')).code, 0);
  const [link] = await database.sql<{ id: number }>("SELECT id FROM links WHERE code = 'survey'");
  const at = Date.UTC(2026, 10, 27, 9, 0, 0);
  await database.sql(
    'INSERT INTO form_answers (link_id, at, answers) VALUES (?, ?, ?), (?, ?, ?)',
    link!.id,
    at,
    JSON.stringify({ name: 'Ana', email: 'ana@example.org', consent: true }),
    link!.id,
    at + 60_000,
    JSON.stringify({ name: '=cmd|"/c calc"!A1', text: 'line one\nline two', consent: false }),
  );

  const listed = await kurz('answers', 'survey');
  t.is(listed.code, 0, listed.stderr);
  t.is(
    listed.stdout,
    'at,name,email,phone,text,consent\n' +
      '2026-11-27T09:01:00.000Z,"\'=cmd|""/c calc""!A1",,,"line one\nline two",no\n' +
      '2026-11-27T09:00:00.000Z,Ana,ana@example.org,,,yes\n',
  );

  t.is((await kurz('users', 'add', 'alice')).code, 0);
  const theirs = await kurz('answers', 'survey', '--as', 'alice');
  t.is(theirs.code, 1);
  t.regex(theirs.stderr, /no link with code "survey"/);

  const deleted = await kurz('answers', 'survey', '--delete');
  t.is(deleted.stdout, 'survey: deleted 2 answers\n');
  t.is((await kurz('answers', 'survey')).stdout, 'at,name,email,phone,text,consent\n');
  t.is((await kurz('answers', 'nosuch')).code, 1);
});
