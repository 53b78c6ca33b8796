// Bundles kurz into one CommonJS file.
//   node scripts/bundle.ts        -> build/kurz.cjs, what `make run` starts; better-sqlite3 stays in node_modules
//   node scripts/bundle.ts --sea  -> build/kurz-sea.cjs, for the single executable; everything inside
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';

const sea = process.argv.includes('--sea');

/** The commit `kurz version --json` names: HEAD, marked dirty when a file the bundle is made of differs from it. */
function commit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const head = git('rev-parse', '--short=12', 'HEAD');
    return git('status', '--porcelain', '--', 'src', 'views', 'package.json', 'package-lock.json') === '' ? head : `${head}-dirty`;
  } catch {
    // Not a git checkout (a source archive), or no git.
    return 'unknown';
  }
}

await build({
  entryPoints: ['src/main.ts'],
  outfile: sea ? 'build/kurz-sea.cjs' : 'build/kurz.cjs',
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  // From source, better-sqlite3 finds its addon next to its own files; in the executable it is handed the
  // addon object (src/store/native.ts), so its JavaScript can be bundled.
  external: sea ? ['pg-native'] : ['better-sqlite3', 'pg-native'],
  // src/assets.ts locates views/ from its own folder; in the bundle that folder is build/.
  define: { 'import.meta.dirname': '__dirname', KURZ_COMMIT: JSON.stringify(commit()) },
  sourcemap: sea ? false : 'linked',
  minifySyntax: sea,
  // V8 keeps the source in memory, in each process (the server and its background writer): one character past
  // Latin-1 (a "…" in a comment) makes it two bytes a character. ASCII escapes in strings, and in the
  // executable no comments, keep it at one.
  minifyWhitespace: sea,
  charset: 'ascii',
  legalComments: 'none',
  logLevel: 'warning',
});
