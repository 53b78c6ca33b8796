import { join } from 'node:path';
import test from 'ava';
import { runSoak, soakReport, SOAK_DEFAULTS } from '../../bench/soak-run.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'build', 'kurz.cjs');

// The last window's p99 may be this many times the first's, plus the slack: loose, so that another process
// taking the machine for a moment does not fail it, but a server slowing down as it runs does.
const P99_GROWTH = 10;
const P99_SLACK_MS = 50;

test('a minute of redirects, creations and stats reads at fixed rates: no errors, nothing lost, p99 steady', async (t) => {
  const result = await runSoak({ ...SOAK_DEFAULTS, bundle: BUNDLE, minutes: 1, windowSeconds: 15 });
  t.log(soakReport(result));

  t.deepEqual(result.errors, []);
  t.is(result.windows.length, 4);
  t.is(result.answered['redirect'], SOAK_DEFAULTS.redirectsPerSecond * 60);
  t.is(result.answered['create'], SOAK_DEFAULTS.creationsPerSecond * 60);
  t.is(result.answered['stats'], SOAK_DEFAULTS.statsPerSecond * 60);
  // Every acknowledged creation stored, no other link, and as many visits as 302s (raw and counted).
  t.is(result.checks.length, 4);
  for (const kind of ['redirect', 'create']) {
    const first = result.windows[0]!.kinds[kind]!.p99;
    const last = result.windows.at(-1)!.kinds[kind]!.p99;
    t.true(last <= first * P99_GROWTH + P99_SLACK_MS, `${kind} p99 went from ${first.toFixed(1)} ms to ${last.toFixed(1)} ms`);
  }
});
