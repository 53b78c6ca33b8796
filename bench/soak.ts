// The soak (make soak): node bench/soak.ts [--minutes N] [--window SECONDS] [--redirects N] [--creations N]
// [--stats N] [--links N], rates per second; SOAK_MINUTES sets the length too. Build first (make build).
// Writes bench/results/soak-latest.md (and a dated .md and .json); exits 1 on any error.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { killAll } from './children.ts';
import { runSoak, soakReport, SOAK_DEFAULTS } from './soak-run.ts';

const RESULTS = join(import.meta.dirname, 'results');
const BUNDLE = join(import.meta.dirname, '..', 'build', 'kurz.cjs');

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: process.env['SOAK_MINUTES'] ?? String(SOAK_DEFAULTS.minutes) },
    window: { type: 'string', default: String(SOAK_DEFAULTS.windowSeconds) },
    redirects: { type: 'string', default: String(SOAK_DEFAULTS.redirectsPerSecond) },
    creations: { type: 'string', default: String(SOAK_DEFAULTS.creationsPerSecond) },
    stats: { type: 'string', default: String(SOAK_DEFAULTS.statsPerSecond) },
    links: { type: 'string', default: String(SOAK_DEFAULTS.links) },
  },
});
const number = (flag: keyof typeof values): number => {
  const n = Number(values[flag]);
  if (!(n > 0) || !Number.isFinite(n)) {
    console.error(`--${flag} must be a number above 0, got ${JSON.stringify(values[flag])}`);
    process.exit(2);
  }
  return n;
};
const options = {
  bundle: BUNDLE,
  minutes: number('minutes'),
  windowSeconds: number('window'),
  redirectsPerSecond: number('redirects'),
  creationsPerSecond: number('creations'),
  statsPerSecond: number('stats'),
  links: Math.round(number('links')),
};
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

console.log(
  `soak: ${options.minutes} min of ${options.redirectsPerSecond} redirects/s, ${options.creationsPerSecond} creations/s, ` +
    `${options.statsPerSecond} stats reads/s…`,
);
const result = await runSoak(options);
const markdown = soakReport(result);
mkdirSync(RESULTS, { recursive: true });
const stamp = result.startedAt.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
writeFileSync(join(RESULTS, `${stamp}-soak.md`), markdown);
writeFileSync(join(RESULTS, `${stamp}-soak.json`), JSON.stringify(result, null, 2) + '\n');
writeFileSync(join(RESULTS, 'soak-latest.md'), markdown);
console.log('\n' + markdown);
if (result.errors.length > 0) {
  console.error(`${result.errors.length} error(s): the soak is not clean`);
  process.exitCode = 1;
}
