// Bundles kurz into one CommonJS file.
//   node scripts/bundle.ts        -> build/kurz.cjs, what `make run` starts; better-sqlite3 stays in node_modules
//   node scripts/bundle.ts --sea  -> build/kurz-sea.cjs, for the single executable; everything inside
import { build } from 'esbuild';

const sea = process.argv.includes('--sea');

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
  define: { 'import.meta.dirname': '__dirname' },
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
