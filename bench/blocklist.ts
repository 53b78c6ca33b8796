// What a large blocklist costs (make bench-blocklist): reading and parsing 500,000 lines of each format,
// the memory the parsed list keeps, a reload read between other work, and a target's lookup.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { matchBlocklist } from '../src/blocklist/blocklist.ts';
import { loadBlocklistFiles, readBlocklistFiles } from '../src/blocklist/files.ts';
import { NODE_FLAGS } from '../src/node-flags.ts';

const LINES = 500_000;
const LOOKUPS = 200_000;
const FORMATS = ['hosts', 'domains', 'urls'] as const;
type Format = (typeof FORMATS)[number];

/** Names shaped like real lists': a few labels, many second-level domains. */
function line(format: Format, i: number): string {
  const host = `h${i.toString(36)}.${(i % 9973).toString(36)}-cdn.example${i % 97}.com`;
  if (format === 'hosts') return `0.0.0.0 ${host}`;
  if (format === 'domains') return host;
  return `http://${host}/${(i * 7919).toString(36)}/payload.exe`;
}

/** Writes the generated list; in a function of its own, so that no frame still running keeps its text from the collector. */
function writeList(format: Format, dir: string): string {
  const path = join(dir, `${format}.txt`);
  writeFileSync(path, ['# generated', ...Array.from({ length: LINES }, (_, i) => line(format, i))].join('\n') + '\n');
  return path;
}

/** One format measured in a process of its own (a clean heap), with kurz's Node options. */
async function measureInChild(format: Format, dir: string): Promise<void> {
  const path = writeList(format, dir);
  const gc = () => (globalThis as { gc?: () => void }).gc?.();
  gc();
  const before = process.memoryUsage();
  const cpu = process.cpuUsage();
  const loaded = readBlocklistFiles([path]);
  const used = process.cpuUsage(cpu);
  const peakRss = process.memoryUsage().rss;
  gc();
  const after = process.memoryUsage();
  const list = loaded.list;
  const targets = Array.from({ length: LOOKUPS }, (_, i) =>
    i % 2 ? `https://www.${line('domains', i * 2)}/a?b=${i}` : format === 'urls' ? line('urls', i) : `https://${line('domains', i)}/x`,
  );
  let hits = 0;
  // CPU time, not wall time: on a shared machine the lookups' own cost.
  const lookupCpu = process.cpuUsage();
  for (const target of targets) if (matchBlocklist(list, target)) hits++;
  const lookupUsed = process.cpuUsage(lookupCpu);
  const lookupUs = (lookupUsed.user + lookupUsed.system) / LOOKUPS;
  {
    // A reload of the same file with one more line: parsed between turns of the event loop.
    writeFileSync(path, `0.0.0.0 one-more.example\n`, { flag: 'a' });
    let longestTurn = 0;
    let last = performance.now();
    const ticking = setInterval(() => {
      const now = performance.now();
      longestTurn = Math.max(longestTurn, now - last);
      last = now;
    }, 0);
    const reloadStart = performance.now();
    await loadBlocklistFiles([path], loaded.digest);
    const reloadMs = performance.now() - reloadStart;
    clearInterval(ticking);
    const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    process.stdout.write(
      JSON.stringify({
        format,
        entries: list.files[0]!.hosts.size + list.files[0]!.domains.size + list.files[0]!.urls.size,
        loadMs: Math.round(loaded.ms),
        loadCpuMs: Math.round((used.user + used.system) / 1000),
        // The list's entries are in typed arrays, outside V8's heap.
        heapKeptMiB: mib(after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers),
        rssKeptMiB: mib(after.rss - before.rss),
        rssPeakMiB: mib(peakRss - before.rss),
        lookupUs: lookupUs.toFixed(2),
        hits,
        reloadMs: Math.round(reloadMs),
        longestTurnMs: Math.round(longestTurn),
      }) + '\n',
    );
  }
}

const [, , child, childDir] = process.argv;
if (child) {
  await measureInChild(child as Format, childDir ?? '');
} else {
  const dir = mkdtempSync(join(tmpdir(), 'kurz-bench-blocklist-'));
  try {
    console.log(`${LINES.toLocaleString('en-US')} lines per list, ${LOOKUPS.toLocaleString('en-US')} lookups (half of them listed)\n`);
    console.log('| list | entries | load (wall / CPU) | heap and arrays kept | RSS kept (peak) | lookup (CPU) | reload (longest turn) |');
    console.log('| ---- | ------: | ----------------: | -------------------: | --------------: | -----------: | --------------------: |');
    for (const format of FORMATS) {
      const run = spawnSync(process.execPath, [...NODE_FLAGS, '--expose-gc', import.meta.filename, format, dir], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`${format}: exit ${run.status}, signal ${run.signal}: ${run.stderr}`);
      const r = JSON.parse(run.stdout) as Record<string, string | number>;
      console.log(
        `| ${r['format']} | ${r['entries']} | ${r['loadMs']} / ${r['loadCpuMs']} ms | ${r['heapKeptMiB']} MiB | ${r['rssKeptMiB']} (${r['rssPeakMiB']}) MiB | ${r['lookupUs']} µs | ${r['reloadMs']} ms (${r['longestTurnMs']} ms) |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
