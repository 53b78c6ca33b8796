import test from 'ava';
import type { LinkJson } from '../../src/links/link-json.ts';
import { freshDatabase, runCli } from '../helpers.ts';

// A link's A/B split from the command line: kurz create/edit --split, kurz edit --no-split, kurz stats.

test('create --split, edit --split with a paused variant, edit --no-split; a malformed split exits 1 naming the field, as every invalid option value', async (t) => {
  const env = { ...(await freshDatabase(t)).env, KURZ_PUBLIC_URL: 'https://s.example' };
  const kurz = (args: string[]) => runCli(args, env);
  const made = await kurz([
    'create',
    'https://example.com/',
    '--alias',
    'ab',
    '--split',
    'https://example.com/a=3, https://example.com/b=1',
    '--json',
  ]);
  t.is(made.code, 0, made.stderr);
  t.deepEqual((JSON.parse(made.stdout) as LinkJson).split, [
    { url: 'https://example.com/a', weight: 3 },
    { url: 'https://example.com/b', weight: 1 },
  ]);
  const paused = await kurz(['edit', 'ab', '--split', 'https://example.com/a=3!,https://example.com/c=2']);
  t.is(paused.code, 0, paused.stderr);
  t.regex(paused.stdout, /Split {6}https:\/\/example\.com\/a ×3 \(paused\), https:\/\/example\.com\/c ×2/);
  const removed = await kurz(['edit', 'ab', '--no-split', '--json']);
  t.is((JSON.parse(removed.stdout) as LinkJson).split, null);

  const bad = await kurz(['edit', 'ab', '--split', 'https://example.com/a=3,https://example.com/b=0']);
  t.is(bad.code, 1);
  t.regex(bad.stderr, /split\[1\]\.weight must be at least 1/);
  const noWeight = await kurz(['edit', 'ab', '--split', 'https://example.com/a=3,https://example.com/b']);
  t.is(noWeight.code, 1);
  t.regex(noWeight.stderr, /split\[1\]\.weight/);
  const both = await kurz(['edit', 'ab', '--split', 'https://example.com/a=1,https://example.com/b=1', '--no-split']);
  t.is(both.code, 2, 'contradicting flags are a usage error');
  const stats = await kurz(['stats', 'ab', '--json']);
  t.deepEqual((JSON.parse(stats.stdout) as { stats: { variants: unknown[] } }).stats.variants, []);
});
