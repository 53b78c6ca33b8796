// How fast the busiest pages render on a big database, as the server measures it (the access log's
// durationMs): node bench/pages.ts --db FILE [--runs N] (make bench-pages seeds FILE first, with
// bench/stats.ts: 100k links and 1M visits through kurz's own write path). kurz runs in this process, without
// its background writer; each page is asked for 3 times to warm up, then --runs times: the list in every
// order, filtered, searched and paged, the dashboard (14 days and 24 hours), a link's page and its stats, the
// comparison and the tags; then the bulk form disabling and enabling a page of 100 links (this changes the
// database). Writes bench/results/pages-latest.md; the target is 50 ms (p95) for each page.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/core/log.ts';

const RESULTS = join(import.meta.dirname, 'results');
const TARGET_MS = 50;
const WARM_UP_RUNS = 3;
const PASSWORD = 'pages bench password';
const accept = 'text/html';

const { values: flags } = parseArgs({ options: { db: { type: 'string' }, runs: { type: 'string', default: '20' } } });
if (flags.db === undefined) throw new Error('--db FILE: a database bench/stats.ts seeded');
const runs = Number(flags.runs);

const config = loadConfig({
  env: { KURZ_DB: flags.db },
  file: { port: 0, publicUrl: 'https://kurz.test', accessLog: true, logFormat: 'json' },
});
/** The durations of the requests for `measured` (method and path) the access log has written. */
const durations: number[] = [];
let measured = '';
const logStream = {
  write: (text: string) => {
    for (const line of text.trimEnd().split('\n')) {
      const entry = JSON.parse(line) as { durationMs?: number; method?: string; path?: string };
      if (entry.durationMs !== undefined && `${entry.method} ${entry.path}` === measured) durations.push(entry.durationMs);
    }
    return true;
  },
};
const kurz = await createApp(
  config,
  { now: Date.now, random: randomBytes, log: createLogger({ write: () => true }), logStream },
  { backgroundWriter: false },
);
const server = createServer(kurz.callback).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/**
 * Waits until the access log has handed over `n` requests' lines: it writes them in batches, up to 100 ms
 * after a request, so the durations of a page's requests are all in only after its last answer.
 */
async function logged(n: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (durations.length < n) {
    if (Date.now() > deadline) throw new Error(`the access log gave ${durations.length} of ${n} request lines`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The cookies of a response's Set-Cookie headers, as a Cookie header. */
const cookiesOf = (res: Response, jar = ''): string =>
  [jar, ...res.headers.getSetCookie().map((line) => line.split(';')[0])].filter(Boolean).join('; ');

const rows: string[] = [];
try {
  await kurz.services.access.setPassword(PASSWORD);
  const form = await fetch(`${base}/login`, { headers: { accept } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const login = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { cookie: cookiesOf(form), 'content-type': 'application/x-www-form-urlencoded', accept },
    body: new URLSearchParams({ _csrf: csrf, user: config.adminUser, password: PASSWORD, next: '/' }),
    redirect: 'manual',
  });
  if (login.status !== 303) throw new Error(`login failed: ${login.status}`);
  const cookie = cookiesOf(login, cookiesOf(form));
  const get = async (path: string) => (await fetch(base + path, { headers: { cookie, accept } })).text();
  const byVisits = await get('/links?sort=visits');
  const [top, second] = [...byVisits.matchAll(/<a href="\/links\/([^"?/#]+)" class="mono/g)].map((m) => m[1]);
  const next = /href="([^"]+)" rel="next"/.exec(await get('/links'))?.[1]?.replaceAll('&amp;', '&');
  const pages: Array<[string, string]> = [
    ['/links', 'the list, newest first'],
    ['/links?limit=100', 'the list, 100 a page'],
    ...(next ? [[next, 'its second page'] as [string, string]] : []),
    ['/links?sort=visits', 'most visited first'],
    ['/links?sort=visits&order=asc', 'least visited first'],
    ['/links?sort=url', 'by target'],
    ['/links?sort=title', 'by title'],
    ['/links?sort=code', 'by code'],
    ['/links?q=example', 'a search'],
    ['/links?tag=bench', 'a tag'],
    ['/links?state=disabled', 'a state'],
    ['/', 'the dashboard, 14 days'],
    ['/?period=24h', 'the dashboard, 24 hours'],
    ['/?period=90d', 'the dashboard, 90 days'],
    [`/links/${top}`, "the most visited link's page"],
    [`/links/${top}/stats`, 'its stats, 30 days'],
    [`/links/${top}/stats?period=90d`, 'its stats, 90 days'],
    [`/stats/compare?code=${top}&code=${second}`, 'a comparison of two'],
    ['/tags', 'the tags'],
  ];
  for (const [path, what] of pages) {
    durations.length = 0;
    measured = `GET ${path}`;
    let bytes = 0;
    for (let run = 0; run < WARM_UP_RUNS + runs; run++) {
      const res = await fetch(base + path, { headers: { cookie, accept } });
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      bytes = (await res.arrayBuffer()).byteLength;
    }
    await logged(WARM_UP_RUNS + runs);
    const times = durations.slice(WARM_UP_RUNS).sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)] ?? NaN;
    rows.push(
      `| ${what} | \`${path.replaceAll('|', '\\|')}\` | ${at(0.5).toFixed(1)} | ${at(0.95).toFixed(1)} | ${Math.round(bytes / 1024)} KB | ${at(0.95) <= TARGET_MS ? 'yes' : '**no**'} |`,
    );
    console.log(rows.at(-1));
  }
  // The bulk form on a full page: 100 links disabled, then enabled again, one request each.
  const full = await get('/links?limit=100');
  const token = /name="_csrf" value="([^"]+)"/.exec(full)?.[1] ?? '';
  const picked = [...full.matchAll(/name="link" value="([^"]+)"/g)].map((m) => ['link', m[1] ?? ''] as [string, string]);
  for (const action of ['disable', 'enable']) {
    durations.length = 0;
    measured = 'POST /links';
    const res = await fetch(`${base}/links`, {
      method: 'POST',
      headers: { cookie, accept, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([['_csrf', token], ['action', action], ...picked]),
      redirect: 'manual',
    });
    if (res.status !== 303) throw new Error(`bulk ${action}: ${res.status}`);
    await logged(1);
    rows.push(`| the bulk form: ${action} ${picked.length} links | \`POST /links\` | ${durations[0]?.toFixed(1)} | | | |`);
    console.log(rows.at(-1));
  }
} finally {
  server.close();
  await kurz.close();
}
const markdown = [
  `# Page render times, ${new Date().toISOString().slice(0, 16)}Z`,
  '',
  `\`${flags.db}\`, kurz in the bench's process; the server's own time (the access log's durationMs), ${runs} requests per page after ${WARM_UP_RUNS}. Target: p95 ≤ ${TARGET_MS} ms.`,
  '',
  '| page | path | p50 ms | p95 ms | HTML | ≤ 50 ms |',
  '|---|---|---:|---:|---:|---|',
  ...rows,
  '',
].join('\n');
mkdirSync(RESULTS, { recursive: true });
writeFileSync(join(RESULTS, 'pages-latest.md'), markdown);
console.log(`written: ${join(RESULTS, 'pages-latest.md')}`);
