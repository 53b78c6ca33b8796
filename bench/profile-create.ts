// Where a created link's server time goes (make bench-profile-create): seeds LINKS links, starts build/kurz.cjs
// with --cpu-prof pinned to core 0 as the bench does, sends the create scenario's requests (bench/wrk/create.lua,
// 50 connections, wrk on core 1) for a warm-up and SECONDS more, stops kurz and prints its main thread's
// CPU per created link by stage, from the profile's self time: each sample goes to the innermost frame on its
// stack that a stage names (the bundle's source map gives the src/ file and line). Starting and stopping are
// left out. The fsync of a group commit runs on the thread pool, but on kurz's core: its kernel time shows
// on the main thread's stack at the call, as "sync".
// Usage: node bench/profile-create.ts [SECONDS] [LINKS] [BUNDLE]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import Sqlite from 'better-sqlite3';
import { NODE_FLAGS } from '../src/node-flags.ts';
import { inheritedEnv, killAll } from './children.ts';
import { DEFAULT_HOST } from './scenarios.ts';
import { LIMITS_OUT_OF_REACH, startServer } from './server-process.ts';
import { runWrk } from './wrk.ts';

const [secondsArg = '10', linksArg = '100000', bundleArg] = process.argv.slice(2);
const seconds = Number(secondsArg);
const seeded = Number(linksArg);
const bundle = bundleArg ?? join(import.meta.dirname, '..', 'build', 'kurz.cjs');
const WARM_UP_SECONDS = 2;

/** Stages in the order they are tried against each frame, innermost frame first. */
const STAGES: Array<[stage: string, frame: RegExp]> = [
  ['start and stop', /serveHttp|createServices|openSqliteStorage|migrate |compileForInternalLoader|wrapSafe|close wrappers\.js|__init /],
  ['garbage collection', /^\(garbage collector\)/],
  ['sync (fdatasync)', /^fdatasync |syncWal /],
  ['begin (BEGIN IMMEDIATE)', /beginWithoutSync|waitingForLock|^pragma /],
  ['dedupe (hash, probe)', /linkByUrlHash|hashUrl /],
  [
    'insert (row, indexes, triggers)',
    /insertLink src\/store|unlessTaken|newLinkParams|optionParams|creatorColumns|checkDomain|link-store\.ts:18\d/,
  ],
  ['code (id, FF1)', /takeLinkId|codes\/|insertWithGeneratedCode/],
  ['savepoints, commit', /commitJobs /],
  ['group commit', /group-commit\.ts/],
  ['blocklist', /refuseListed|blocklist\//],
  [
    'validation (URL, options)',
    /url-rules|link-options|alias-rules|domains\/registry|review-rules|splitOf|page-settings|text-rules|link-fields|links\/times| url:\d/,
  ],
  ['create use case (rest)', /links\/create\.ts/],
  [
    'body, JSON, zod',
    /http\/body\.ts|raw-body|bourne|request-schema|zod|type-is|content-type|strict-json|iconv|unpipe|bytes\/|http-errors/,
  ],
  ['API key, actor, limit', /authenticate\.ts|auth\/|web\/session\.ts|creation-limit|access-store|user-store|^hash hash/],
  ['answer (JSON, headers, write)', /link-json|http\/respond\.ts|_http_outgoing|writeUtf8|stream_base|node:net|writable|presenters/],
  [
    'Koa, router',
    /node_modules\/koa|koa-compose|@koa\/router|web\/methods\.ts|shlink-edge|review-count|web\/errors\.ts|on-finished|ee-first|delegates|path-to-regexp/,
  ],
  ['HTTP in (parser, edge, pipeline)', /_http_server|_http_common|_http_incoming|edge\/edge\.ts|http\/pipeline\.ts|readable/],
  ['event loop, promises', /task_queues|processTicks|runMicrotasks|timers|node:events|^emit /],
];
const OTHER = 'other';
const IDLE = /^\(idle\)/;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

const dir = mkdtempSync(join(tmpdir(), 'kurz-profile-'));
process.on('exit', () => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const db = join(dir, 'kurz.db');
const codes = join(dir, 'codes.txt');
console.log(`seeding ${seeded} links…`);
execFileSync(process.execPath, [join(import.meta.dirname, 'seed.ts'), db, codes, String(seeded)], { stdio: 'ignore' });
const key = readFileSync(`${codes}.key`, 'utf8').trim();
const profiles = join(dir, 'profiles');
const kurz = await startServer({
  name: 'kurz',
  command: [process.execPath, ...NODE_FLAGS, '--cpu-prof', `--cpu-prof-dir=${profiles}`, bundle, 'serve'],
  env: {
    ...inheritedEnv(),
    ...LIMITS_OUT_OF_REACH,
    KURZ_DB: db,
    KURZ_HOST: '127.0.0.1',
    KURZ_PORT: '0',
    KURZ_PUBLIC_URL: `https://${DEFAULT_HOST}`,
    KURZ_WORKERS: '1',
  },
  cores: '0',
  logFile: join(dir, 'kurz.log'),
});
const wrk = (prefix: string, s: number) =>
  runWrk({ url: `${kurz.url}/`, script: 'create.lua', args: [prefix, key], connections: 50, seconds: s, core: 1 });
await wrk('warm-up', WARM_UP_SECONDS);
const cpuBefore = kurz.cpuSeconds();
const run = await wrk('profiled', seconds);
const cpuPercent = ((kurz.cpuSeconds() - cpuBefore) / run.seconds) * 100;
await kurz.stop();

const created = countLinks(db) - seeded;
const [file] = readdirSync(profiles).filter((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error('kurz wrote no CPU profile');
const byStage = stageTimes(join(profiles, file), `${bundle}.map`);
const perLink = (us: number): string => (us / created).toFixed(1);
const busy = [...byStage].filter(([stage]) => stage !== 'start and stop').reduce((sum, [, us]) => sum + us, 0);

console.log(
  `\n${run.requestsPerSecond.toFixed(0)} links/s in the profiled ${run.seconds.toFixed(0)} s (kurz at ${cpuPercent.toFixed(0)}% of its core, profiler on);`,
);
console.log(`${created} links created in all, ${perLink(busy)} µs of main-thread CPU each, starting and stopping left out\n`);
console.log('| stage | µs per link | share |');
console.log('| --- | ---: | ---: |');
for (const stage of [...STAGES.map(([name]) => name), OTHER]) {
  if (stage === 'start and stop') continue;
  const us = byStage.get(stage) ?? 0;
  console.log(`| ${stage} | ${perLink(us)} | ${((100 * us) / busy).toFixed(1)}% |`);
}

function countLinks(path: string): number {
  const file = new Sqlite(path, { readonly: true });
  try {
    return (file.prepare('SELECT count(*) AS n FROM links').get() as { n: number }).n;
  } finally {
    file.close();
  }
}

/** Microseconds of self time by stage. */
function stageTimes(profileFile: string, mapFile: string): Map<string, number> {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const map = new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const names = new Map<number, string>();
  const nameOf = (id: number): string => {
    let name = names.get(id);
    if (name === undefined) names.set(id, (name = frameName(nodes.get(id)!, map)));
    return name;
  };
  const times = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    if (IDLE.test(nameOf(id))) return;
    let stage = OTHER;
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const found = STAGES.find(([, frame]) => frame.test(nameOf(at!)));
      if (found) {
        stage = found[0];
        break;
      }
    }
    times.set(stage, (times.get(stage) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return times;
}

/** "function src/file.ts:line" through the bundle's source map; Node's own frames by their module. */
function frameName({ callFrame: frame }: ProfileNode, map: SourceMap): string {
  let where = `${frame.url.replace(/.*\//, '')}:${frame.lineNumber + 1}`;
  if (frame.url.endsWith('.cjs') && frame.lineNumber >= 0) {
    const entry = map.findEntry(frame.lineNumber, frame.columnNumber);
    if ('originalSource' in entry && entry.originalSource)
      where = `${entry.originalSource.replace(/.*\/(src|node_modules)\//, '$1/')}:${entry.originalLine + 1}`;
  }
  return `${frame.functionName || '(anonymous)'} ${where}`;
}
