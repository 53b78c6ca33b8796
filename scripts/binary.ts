// Builds dist/kurz: Node's single-executable application with the bundle, the views and the SQLite addon inside.
// Usage: node scripts/binary.ts NODE_BINARY   (the Node 24 binary to embed into; it also prepares the blob)
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_FLAGS } from '../src/node-flags.ts';

const nodeBinary = process.argv[2];
if (!nodeBinary) throw new Error('usage: node scripts/binary.ts NODE_BINARY');

const assets: Record<string, string> = { 'better_sqlite3.node': 'node_modules/better-sqlite3/prebuilds/linux-x64.node' };
for (const file of readdirSync('views')) assets[`views/${file}`] = join('views', file);

mkdirSync('dist', { recursive: true });
const seaConfig = {
  main: 'build/kurz-sea.cjs',
  output: 'build/kurz.blob',
  disableExperimentalSEAWarning: true,
  useCodeCache: true,
  execArgv: NODE_FLAGS,
  assets,
};
writeFileSync('build/sea-config.json', JSON.stringify(seaConfig, null, 2));
// With the options the executable runs with: V8 rejects a code cache made under other flags (some of them,
// such as --heap-growing-percent, are part of the cache's check).
execFileSync(nodeBinary, [...NODE_FLAGS, '--experimental-sea-config', 'build/sea-config.json'], { stdio: 'inherit' });

const output = 'dist/kurz';
rmSync(output, { force: true });
copyFileSync(nodeBinary, output);
chmodSync(output, 0o755);
execFileSync(
  process.execPath,
  [
    'node_modules/postject/dist/cli.js',
    output,
    'NODE_SEA_BLOB',
    'build/kurz.blob',
    '--sentinel-fuse',
    'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
console.log(`built ${output} (${(statSync(output).size / 1024 / 1024).toFixed(1)} MiB)`);
