// Builds a single executable: Node's single-executable application with the bundle, the views and the SQLite
// addon inside.
// Usage: node scripts/binary.ts --node NODE_BINARY --arch x64|arm64 --output FILE [--emulator 'COMMAND ARGS']
//   --node      the Node 24 binary of that architecture to embed into; it also prepares the blob
//   --emulator  how this machine runs that binary when it is of another architecture (qemu-user)
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { NODE_FLAGS } from '../src/node-flags.ts';

const { values } = parseArgs({
  options: { node: { type: 'string' }, arch: { type: 'string' }, output: { type: 'string' }, emulator: { type: 'string' } },
});
const { node: nodeBinary, arch, output } = values;
if (!nodeBinary || !arch || !output) throw new Error('usage: node scripts/binary.ts --node NODE_BINARY --arch x64|arm64 --output FILE');
if (!['x64', 'arm64'].includes(arch)) throw new Error(`--arch must be x64 or arm64, not ${JSON.stringify(arch)}`);
// better-sqlite3's npm package carries a prebuilt addon for each platform it supports.
const addon = `node_modules/better-sqlite3/prebuilds/linux-${arch}.node`;
const [runner = nodeBinary, ...runnerArgs] = values.emulator ? [...values.emulator.split(' '), nodeBinary] : [nodeBinary];

const assets: Record<string, string> = { 'better_sqlite3.node': addon };
for (const file of readdirSync('views')) assets[`views/${file}`] = join('views', file);

const blob = `build/kurz-${arch}.blob`;
const seaConfigFile = `build/sea-config-${arch}.json`;
const seaConfig = {
  main: 'build/kurz-sea.cjs',
  output: blob,
  disableExperimentalSEAWarning: true,
  useCodeCache: true,
  execArgv: NODE_FLAGS,
  assets,
};
writeFileSync(seaConfigFile, JSON.stringify(seaConfig, null, 2));
// By the Node that will run the blob (emulated for another architecture), with the options the executable runs
// with: V8 rejects a code cache made by another build or under other flags (some of them, such as
// --heap-growing-percent, are part of the cache's check).
execFileSync(runner, [...runnerArgs, ...NODE_FLAGS, '--experimental-sea-config', seaConfigFile], { stdio: 'inherit' });

mkdirSync(dirname(output), { recursive: true });
rmSync(output, { force: true });
copyFileSync(nodeBinary, output);
chmodSync(output, 0o755);
execFileSync(
  process.execPath,
  ['node_modules/postject/dist/cli.js', output, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
console.log(`built ${output} (${(statSync(output).size / 1024 / 1024).toFixed(1)} MiB)`);
