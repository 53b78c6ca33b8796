import test, { type ExecutionContext } from 'ava';
import type { LinkJson } from '../../src/links/link-json.ts';
import { freshDatabase, runCli } from '../helpers.ts';

// A link's social preview on the CLI: set by create, changed part by part by edit, removed by --no-preview.

async function kurzOn(t: ExecutionContext) {
  const env = { ...(await freshDatabase(t)).env, KURZ_PUBLIC_URL: 'https://s.example' };
  return (...args: string[]) => runCli(args, env);
}

const previewOf = (stdout: string) => (JSON.parse(stdout) as LinkJson).preview;

test('create sets the preview; edit changes only the parts it names; --no-preview removes it', async (t) => {
  const kurz = await kurzOn(t);
  const created = await kurz(
    'create',
    'https://example.com/launch',
    '--alias',
    'launch',
    '--preview-title',
    'Launch day',
    '--preview-image',
    'https://cdn.example.com/launch.png',
    '--json',
  );
  t.is(created.code, 0, created.stderr);
  t.deepEqual(previewOf(created.stdout), { title: 'Launch day', description: null, image: 'https://cdn.example.com/launch.png' });

  const edited = await kurz('edit', 'launch', '--preview-description', 'Everything new', '--json');
  t.is(edited.code, 0, edited.stderr);
  t.deepEqual(previewOf(edited.stdout), {
    title: 'Launch day',
    description: 'Everything new',
    image: 'https://cdn.example.com/launch.png',
  });

  const shown = await kurz('edit', 'launch', '--preview-image', '');
  t.regex(shown.stdout, /^Preview {4}Launch day · Everything new$/m);

  const removed = await kurz('edit', 'launch', '--no-preview', '--json');
  t.is(previewOf(removed.stdout), null);
});

test('a bad preview part is refused naming it (exit 1, as every invalid option); --no-preview with a part is a usage error (exit 2)', async (t) => {
  const kurz = await kurzOn(t);
  const bad = await kurz('create', 'https://example.com/x', '--preview-image', 'ftp://example.com/a.png');
  t.is(bad.code, 1);
  t.regex(bad.stderr, /preview\.image must be an absolute http or https URL/);
  await kurz('create', 'https://example.com/y', '--alias', 'y');
  const both = await kurz('edit', 'y', '--no-preview', '--preview-title', 'x');
  t.is(both.code, 2);
  t.regex(both.stderr, /contradict each other/);
});
