// Bundles kurz into one CommonJS file, build/kurz.cjs: what `make run` starts and the single executable embeds.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/main.ts'],
  outfile: 'build/kurz.cjs',
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  // better-sqlite3 finds its native addon relative to its own files, so it stays in node_modules here.
  external: ['better-sqlite3'],
  // src/assets.ts locates views/ from its own folder; in the bundle that folder is build/.
  define: { 'import.meta.dirname': '__dirname' },
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
});
