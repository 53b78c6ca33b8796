import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScenarioResult, Seed } from './compare.ts';
import { CONNECTIONS, count, type Profile } from './scenarios.ts';

export interface Environment {
  node: string;
  wrk: string;
  cpu: string;
  cores: number;
  kernel: string;
  /** Commit of the checkout, and whether src/ differs from it. */
  commit: string;
  /** sha256 of build/kurz.cjs, first 12 hex digits: which kurz actually ran. */
  bundle: string;
}

export interface Report {
  profile: Omit<Profile, 'scenarios'>;
  startedAt: string;
  finishedAt: string;
  environment: Environment;
  seeds: Omit<Seed, 'db' | 'codes' | 'hotCodes' | 'domains' | 'key'>[];
  scenarios: ScenarioResult[];
  /** Scenarios that stopped with an error before producing numbers. */
  failed: { name: string; title: string; error: string }[];
  /** About the run as a whole; the scenarios have their own. */
  warnings: string[];
}

/** Every problem of the run, each prefixed with its scenario; empty when the run is clean. */
export function problemsOf(report: Report): string[] {
  return [
    ...report.scenarios.flatMap((s) => s.problems.map((p) => `${s.name}: ${p}`)),
    ...report.failed.map((f) => `${f.name}: ${f.error}`),
  ];
}

/** Writes RESULTS/<time>-<profile>.{md,json} and RESULTS/latest[-profile].md; returns the markdown. */
export function writeReport(report: Report, dir: string): { markdown: string; files: string[] } {
  mkdirSync(dir, { recursive: true });
  const stamp = report.startedAt.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const markdown = toMarkdown(report);
  const latest = report.profile.name === 'full' ? 'latest.md' : `latest-${report.profile.name}.md`;
  const files = [`${stamp}-${report.profile.name}.md`, `${stamp}-${report.profile.name}.json`, latest].map((f) => join(dir, f));
  writeFileSync(files[0]!, markdown);
  writeFileSync(files[1]!, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(files[2]!, markdown);
  return { markdown, files };
}

function toMarkdown(report: Report): string {
  const { profile, environment: env } = report;
  const out: string[] = [];
  out.push(`# kurz benchmark: ${profile.name}, ${report.startedAt.slice(0, 16).replace('T', ' ')} UTC`, '');
  out.push(
    `kurz ${env.commit}, bundle ${env.bundle}; Node ${env.node}; ${env.wrk}; ${env.cpu}, ${env.cores} cores; Linux ${env.kernel}.`,
    `Each server pinned to core 0, wrk (1 thread, ${CONNECTIONS} connections unless stated) to core 1, loopback. ` +
      `Per scenario: ${profile.warmUpSeconds} s warm-up per server, then ${profile.rounds} × ${profile.seconds} s per server, ` +
      `interleaved with the baseline; medians. Redirect requests carry a desktop browser's headers (one of three ` +
      `User-Agents with its Accept-Language, Accept, Accept-Encoding and, for half of them, a Referer), so kurz ` +
      `records and classifies people's visits; bots only where a scenario says so. The baseline is a bare node:http server: 302 from a Map of the same codes ` +
      `with kurz's headers, 404 with a small problem+json body, and for creates it parses the JSON and answers 201 without ` +
      `storing anything on disk. Latencies in ms. "unexpected": statuses other than the scenario's expected ones (302; ` +
      `201 for creates; 404 in the scan), and socket errors, over every run of either server. "writer": kurz's background process, which classifies and writes ` +
      `the visits at the lowest priority (nice 19) on kurz's core: its CPU during kurz's runs and its largest ` +
      `memory (with two workers, the workers and the writer together; "kurz" is then the primary alone). "RSS sum": ` +
      `the largest sum of kurz's and the writer's RSS after a run; "together": the largest of kurz's RSS plus the writer's ` +
      `private memory (USS), since most of the rest of the writer's RSS is Node's own code, which kurz maps too: what the ` +
      `two take from the machine. "kurz stop": from SIGTERM to exit at the end of the scenario, which includes writing the visits the ` +
      `writer could not get to while kurz was saturated.`,
    '',
  );

  out.push('## Scenarios', '');
  out.push(
    table(
      [
        'scenario',
        'links',
        'kurz req/s',
        'baseline req/s',
        'kurz/baseline',
        'p50',
        'p99',
        'baseline p99',
        'non-2xx/3xx',
        'unexpected',
        'kurz CPU',
        'writer CPU',
        'kurz RSS',
        'writer RSS',
        'RSS sum',
        'together',
        'kurz stop',
        'DB size',
      ],
      report.scenarios.map((s) => [
        s.title,
        count(s.links),
        rate(s.kurz.requestsPerSecond),
        rate(s.baseline.requestsPerSecond),
        s.pacing ? 'paced' : s.ratio.toFixed(2),
        ms(s.kurz.p50),
        ms(s.kurz.p99),
        ms(s.baseline.p99),
        errorStatuses(s.kurz.statuses),
        unexpected(s.kurz.unexpected, s.baseline.unexpected),
        `${s.kurz.cpuPercent.toFixed(0)}%`,
        `${s.kurz.childCpuPercent.toFixed(0)}%`,
        mib(s.kurz.rssKiB * 1024),
        mib(s.kurz.childRssKiB * 1024),
        mib(s.kurz.sumRssKiB * 1024),
        mib(s.kurz.togetherKiB * 1024),
        `${s.kurzStopSeconds.toFixed(1)} s`,
        mib(s.dbBytes),
      ]),
    ),
  );
  for (const f of report.failed) out.push(`- **${f.title}: no numbers**: ${oneLine(f.error)}`);
  out.push('');

  for (const s of report.scenarios.filter((r) => r.pacing)) {
    const p = s.pacing!;
    out.push(`## ${s.title}`, '');
    out.push(
      `Offered ${rate(p.targetPerSecond)} requests/s, half of kurz's hot-redirect maximum above, to both servers: ` +
        `requests fall due at Poisson arrivals and go out on ${p.connections} connections; latency counts from the send.`,
      '',
    );
    const row = (name: string, r: ScenarioResult['kurz']): string[] => [
      name,
      rate(r.requestsPerSecond),
      `${((r.requestsPerSecond / p.targetPerSecond) * 100).toFixed(0)}%`,
      ms(r.p50),
      ms(r.p90),
      ms(r.p99),
      ms(r.p999),
      `${r.cpuPercent.toFixed(0)}%`,
    ];
    out.push(
      table(
        ['server', 'achieved req/s', 'of target', 'p50', 'p90', 'p99', 'p99.9', 'CPU'],
        [row('kurz', s.kurz), row('baseline', s.baseline)],
      ),
      '',
    );
  }

  const variants = report.scenarios.filter((s) => s.variant);
  if (variants.length > 0) {
    out.push('## Two workers, PostgreSQL, the access log and background work, against the single process on SQLite', '');
    out.push(
      'The same scenario against kurz run differently, each beside the single process on SQLite measured in this run. ' +
        "Two workers get both cores, wrk's included: this machine has no third, so wrk takes its share from them. " +
        "PostgreSQL runs on the same core as kurz (its work is kurz's), seeded by `kurz migrate` from the same file. " +
        'With the access log on (`accessLog`), kurz writes a JSON line per request to its log file: the ratio is its cost. ' +
        'With backups or blocklist scans, kurz does that work all through the run (a backup every second, a scan every 2 s): ' +
        'the p99 beside the single p99 is what it costs the redirects.',
      '',
    );
    out.push(
      table(
        ['scenario', 'kurz req/s', 'single process, SQLite', 'ratio', 'p99', 'single p99', 'kurz CPU', 'kurz RSS (with children)'],
        variants.map((s) => {
          const single = report.scenarios.find((r) => r.name === s.variant?.of);
          return [
            s.title,
            rate(s.kurz.requestsPerSecond),
            single ? rate(single.kurz.requestsPerSecond) : '–',
            single ? (s.kurz.requestsPerSecond / single.kurz.requestsPerSecond).toFixed(2) : '–',
            ms(s.kurz.p99),
            single ? ms(single.kurz.p99) : '–',
            `${(s.kurz.cpuPercent + s.kurz.childCpuPercent).toFixed(0)}%`,
            mib(s.kurz.sumRssKiB * 1024),
          ];
        }),
      ),
      '',
    );
  }

  const scaling = report.scenarios
    .filter((s) => s.name === `hot-redirect-${count(s.links)}` && !s.variant)
    .sort((a, b) => a.links - b.links);
  if (scaling.length > 0) {
    out.push('## Scaling: hot redirect by database size', '');
    out.push(
      table(
        ['links', 'kurz req/s', 'kurz/baseline', 'p50', 'p99', 'kurz RSS', 'baseline RSS', 'DB size'],
        scaling.map((s) => [
          count(s.links),
          rate(s.kurz.requestsPerSecond),
          s.ratio.toFixed(2),
          ms(s.kurz.p50),
          ms(s.kurz.p99),
          mib(s.kurz.rssKiB * 1024),
          mib(s.baseline.rssKiB * 1024),
          mib(s.dbBytes),
        ]),
      ),
      '',
    );
  }

  out.push('## Seeding', '', "Through kurz's own link service (URL rules, FF1 codes, real rows), 100k links per transaction.", '');
  out.push(
    table(
      ['links', 'seconds', 'links/s', 'DB size'],
      report.seeds.map((s) => [count(s.links), s.seconds.toFixed(1), rate(s.links / s.seconds), mib(s.dbBytes)]),
    ),
    '',
  );

  out.push(
    '## Checks',
    '',
    "kurz's database after each scenario against what wrk counted (links, visits, bots), and its visit tables " +
      'against each other: link counts, hourly and daily rollups, breakdowns, raw visits, visitor hashes.',
    '',
  );
  for (const s of report.scenarios)
    out.push(`- ${s.name}${s.checks.length > 0 ? '' : ': none passed'}`, ...s.checks.map((c) => `  - ${c}`));
  out.push('');

  const warnings = [...report.warnings, ...report.scenarios.flatMap((s) => s.warnings.map((w) => `${s.name}: ${w}`))];
  if (warnings.length > 0) out.push('## Warnings', '', ...warnings.map((w) => `- ${w}`), '');
  const problems = problemsOf(report);
  out.push('## Problems', '', ...(problems.length > 0 ? problems.map((p) => `- ${oneLine(p)}`) : ['None.']), '');
  return out.join('\n');
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((h, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

function errorStatuses(statuses: Record<string, number>): string {
  const errors = Object.entries(statuses).filter(([status]) => Number(status) >= 400);
  return errors.length === 0 ? '0' : errors.map(([status, n]) => `${n.toLocaleString('en')} × ${status}`).join(', ');
}

function unexpected(kurz: Record<string, number>, baseline: Record<string, number>): string {
  const list = (side: string, counts: Record<string, number>): string[] =>
    Object.entries(counts).map(([what, n]) => `${side} ${what} ×${n.toLocaleString('en')}`);
  const all = [...list('kurz', kurz), ...list('baseline', baseline)];
  return all.length === 0 ? '0' : `**${all.join(', ')}**`;
}

const rate = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en') : '–');
const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : '–');
const mib = (bytes: number): string => (Number.isFinite(bytes) ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : '–');
// Multi-line errors (a server's log tail) on one line, cut short; the JSON keeps them whole.
const oneLine = (text: string): string =>
  text
    .trim()
    .replace(/\s*\n\s*/g, ' / ')
    .slice(0, 400);
