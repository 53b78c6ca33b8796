// The load benchmark: node bench/run.ts smoke|full|large [SCENARIO…] (make bench-smoke, bench, bench-large;
// build first). Naming scenarios runs only those (and the one a half-load scenario takes its rate from).
// Seeds one database per size, runs every scenario against kurz and the bare-Node baseline, interleaved,
// and writes bench/results/. Exits 1 when any scenario has problems: no numbers, unexpected statuses,
// socket errors, errors in kurz's log, or a database that disagrees with what wrk counted.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants, cpus, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, killAll, spawnTracked } from './children.ts';
import { runScenario, type ScenarioResult, type Seed } from './compare.ts';
import { problemsOf, writeReport, type Environment, type Report } from './report.ts';
import { count, DEFAULT_HOST, HOT_CODES, PROFILES, seedKey, type Profile, type ProfileName } from './scenarios.ts';

const ROOT = join(import.meta.dirname, '..');
const BUNDLE = join(ROOT, 'build', 'kurz.cjs');
const RESULTS = join(import.meta.dirname, 'results');

const profile = selected(PROFILES[process.argv[2] as ProfileName], process.argv.slice(3));
if (!profile) {
  console.error(`usage: node bench/run.ts ${Object.keys(PROFILES).join('|')} [SCENARIO…]`);
  process.exit(2);
}
const missing = prerequisitesMissing();
if (missing) {
  console.error(missing);
  process.exit(2);
}
// Another `make build` during the run would mix two versions of kurz in one report.
const bundleAtStart = bundleHash();

const dir = mkdtempSync(join(tmpdir(), 'kurz-bench-'));
const cleanUp = (): void => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
};
process.on('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(128 + constants.signals[signal]));

const startedAt = new Date().toISOString();
const seeds = new Map<string, Seed>();
const scenarios: ScenarioResult[] = [];
const failed: Report['failed'] = [];
try {
  const kinds = new Map(profile.scenarios.map((s) => [seedKey(s), s] as const));
  for (const [key, s] of [...kinds].sort(([, a], [, b]) => a.links - b.links)) seeds.set(key, await seed(s));
  for (const scenario of profile.scenarios) {
    console.log(`${scenario.name}: ${profile.rounds} × ${profile.seconds} s per server…`);
    const max = scenarios.find((s) => s.name === scenario.halfLoadOf)?.kurz.requestsPerSecond;
    try {
      const result = await runScenario(scenario, {
        profile,
        dir,
        seed: seeds.get(seedKey(scenario))!,
        bundle: BUNDLE,
        maxRequestsPerSecond: max,
        postgresUrl: process.env['KURZ_TEST_POSTGRES_URL'],
      });
      scenarios.push(result);
      console.log(`  ${summary(result)}`);
      for (const problem of result.problems) console.log(`  PROBLEM ${problem}`);
    } catch (err) {
      // One broken scenario should not hide the numbers of the others.
      failed.push({ name: scenario.name, title: scenario.title, error: (err as Error).message });
      console.log(`  FAILED ${(err as Error).message}`);
    }
  }
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}

const { scenarios: _, ...settings } = profile;
const report: Report = {
  profile: settings,
  startedAt,
  finishedAt: new Date().toISOString(),
  environment: environment(),
  seeds: [...seeds.values()].map(({ links, seconds, dbBytes }) => ({ links, seconds, dbBytes })),
  scenarios,
  failed,
  warnings: bundleHash() === bundleAtStart ? [] : [`${BUNDLE} changed during the run: later scenarios ran another kurz`],
};
const { markdown, files } = writeReport(report, RESULTS);
console.log('\n' + markdown);
console.log(`written: ${files.join(', ')}`);
const problems = problemsOf(report);
if (problems.length > 0) {
  console.error(`\n${problems.length} problem(s): the run is not clean`);
  process.exitCode = 1;
}

/** Seeds a database with the scenario's links (on its domains) through bench/seed.ts and picks the hot codes of each domain. */
async function seed(scenario: Pick<Profile['scenarios'][number], 'links' | 'options' | 'rules' | 'hosts' | 'split'>): Promise<Seed> {
  const { links } = scenario;
  const options = scenario.options ?? false;
  const rules = scenario.rules ?? false;
  const others = (scenario.hosts ?? []).filter((host) => host !== DEFAULT_HOST);
  const name = seedKey(scenario);
  const db = join(dir, `seed-${name}.db`);
  const codes = join(dir, `seed-${name}.codes`);
  process.stdout.write(
    `seeding ${count(links)} links${options ? ' with options' : ''}${rules ? ' with rules' : ''}${scenario.split ? ' with splits' : ''}… `,
  );
  const args = [
    join(import.meta.dirname, 'seed.ts'),
    db,
    codes,
    String(links),
    ...(options ? ['--options'] : []),
    ...(scenario.split ? ['--split'] : []),
    ...(rules ? ['--rules'] : []),
    ...(others.length > 0 ? ['--domains', others.join(',')] : []),
  ];
  const child = spawnTracked(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await exited(child);
  if (code !== 0) throw new Error(`seeding ${links} links failed with exit code ${code}`);
  const { seconds, dbBytes } = JSON.parse(output) as { seconds: number; dbBytes: number };
  /** The codes file's lines, and HOT_CODES of them evenly spread over creation order (which FF1 makes unrelated to the index's order). */
  const pick = (file: string): { lines: number; hotCodes: string } => {
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const step = Math.max(1, Math.floor(lines.length / HOT_CODES));
    const hotCodes = `${file}.hot`;
    writeFileSync(
      hotCodes,
      lines
        .filter((_, i) => i % step === 0)
        .slice(0, HOT_CODES)
        .join('\n') + '\n',
    );
    return { lines: lines.length, hotCodes };
  };
  const own = pick(codes);
  const domains: Seed['domains'] = {};
  let written = own.lines;
  for (const host of others) {
    const file = `${codes}.${host}`;
    const picked = pick(file);
    written += picked.lines;
    domains[host] = { codes: file, hotCodes: picked.hotCodes };
  }
  if (written !== links) throw new Error(`seeding wrote ${written} codes for ${links} links`);
  console.log(`${seconds.toFixed(1)} s`);
  return { links, db, codes, hotCodes: own.hotCodes, domains, key: readFileSync(`${codes}.key`, 'utf8'), seconds, dbBytes };
}

function summary(r: ScenarioResult): string {
  const side = (s: ScenarioResult['kurz']): string =>
    `${Math.round(s.requestsPerSecond).toLocaleString('en')} req/s, p99 ${s.p99.toFixed(2)} ms`;
  return `kurz ${side(r.kurz)} | baseline ${side(r.baseline)} | ratio ${r.ratio.toFixed(2)}`;
}

/** The profile cut down to the named scenarios and what they depend on; undefined for an unknown name. */
function selected(full: Profile | undefined, names: string[]): Profile | undefined {
  if (!full || names.length === 0) return full;
  const wanted = new Set(names);
  for (const s of full.scenarios) {
    if (wanted.has(s.name) && s.halfLoadOf) wanted.add(s.halfLoadOf);
    if (wanted.has(s.name) && s.variant) wanted.add(s.variant.of);
  }
  const scenarios = full.scenarios.filter((s) => wanted.has(s.name));
  if (scenarios.length !== wanted.size) {
    console.error(`scenarios of ${full.name}: ${full.scenarios.map((s) => s.name).join(', ')}`);
    return undefined;
  }
  return { ...full, scenarios };
}

/** What keeps the bench from running, or undefined. */
function prerequisitesMissing(): string | undefined {
  const missing = ['taskset', 'wrk', 'getconf'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
  if (missing.length > 0) return `missing ${missing.join(', ')} (the Makefile's bench targets install wrk)`;
  if (cpus().length < 2) return 'needs 2 cores: the servers run on core 0, wrk on core 1';
  if (!existsSync(BUNDLE)) return `${BUNDLE} is missing: run make build`;
  return undefined;
}

/** sha256 of build/kurz.cjs, first 12 hex digits. */
function bundleHash(): string {
  return createHash('sha256').update(readFileSync(BUNDLE)).digest('hex').slice(0, 12);
}

function environment(): Environment {
  const git = (...args: string[]): string => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' }).trim();
  let commit: string;
  try {
    commit = git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', 'src') ? ' with uncommitted changes in src/' : '');
  } catch {
    commit = 'unknown commit';
  }
  return {
    node: process.version,
    wrk: spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout.split(' ').slice(0, 2).join(' '),
    cpu: cpus()[0]?.model ?? 'unknown CPU',
    cores: cpus().length,
    kernel: release(),
    commit,
    bundle: bundleAtStart,
  };
}
