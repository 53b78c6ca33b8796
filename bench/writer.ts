// How many visits a second the background writer's path sustains: node bench/writer.ts [--links N]
// [--flush N] [--flushes N] (make bench-writer). Visit events as the redirect records them (a browser's
// headers, one in twenty a bot's, client addresses that differ) go through kurz's own recorder
// (classification, visitor hashes, rollups, link-ordered chunks) into a fresh SQLite file, a flush of a
// second's visits at a time, as the writer gets them. Two spreads: a hot set of 10k links, and every link
// alike. Writes bench/results/writer-latest.md.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../src/core/log.ts';
import { openDatabase } from '../src/store/sqlite/database.ts';
import { createSqliteVisitStore } from '../src/store/sqlite/visit-store.ts';
import { watchWrites } from '../src/store/sqlite/write-health.ts';
import { cachedClassifier } from '../src/visits/classify.ts';
import { noCountry } from '../src/visits/geo.ts';
import { VisitLog } from '../src/visits/visit-events.ts';
import { createVisitRecorder } from '../src/visits/visit-recorder.ts';
import { visitorSalts } from '../src/visits/visitor-salts.ts';
import { count } from './scenarios.ts';

const RESULTS = join(import.meta.dirname, 'results');
const HOT_LINKS = 10_000;
const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
];
const BOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';
const REFERRERS = ['', 'https://www.google.com/', 'https://t.co/x', 'https://news.ycombinator.com/', 'https://www.reddit.com/r/x'];
const LANGUAGES = ['en-US,en;q=0.9', 'de-DE,de;q=0.9', 'fr-FR,fr;q=0.8', 'es-ES'];

const { values: flags } = parseArgs({
  options: {
    links: { type: 'string', default: '100000' },
    flush: { type: 'string', default: '60000' },
    flushes: { type: 'string', default: '8' },
  },
});
const links = Number(flags.links);
const flushSize = Number(flags.flush);
const flushes = Number(flags.flushes);
for (const [name, n] of Object.entries({ links, flush: flushSize, flushes })) {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a whole number above 0`);
}

const dir = mkdtempSync(join(tmpdir(), 'kurz-writer-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

const rows: string[] = [];
for (const spread of ['hot', 'uniform'] as const) {
  const { visitsPerSecond, microseconds } = await measure(spread);
  const over = spread === 'hot' ? `${count(Math.min(HOT_LINKS, links))} of ${count(links)} links` : `all ${count(links)} links alike`;
  rows.push(`| ${over} | ${Math.round(visitsPerSecond).toLocaleString('en')} | ${microseconds.toFixed(1)} |`);
  console.log(`${spread}: ${Math.round(visitsPerSecond)} visits/s, ${microseconds.toFixed(1)} µs a visit`);
}
const markdown = [
  `# kurz background writer: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  '',
  `${count(flushSize)} visits a flush, ${flushes} flushes (the first not counted), one process on one core; ` +
    'events through the visit recorder into a fresh SQLite file with the links seeded.',
  '',
  '| visits spread over | visits/s | µs a visit |',
  '| --- | ---: | ---: |',
  ...rows,
  '',
].join('\n');
mkdirSync(RESULTS, { recursive: true });
writeFileSync(join(RESULTS, 'writer-latest.md'), markdown);
console.log('\n' + markdown);

async function measure(spread: 'hot' | 'uniform'): Promise<{ visitsPerSecond: number; microseconds: number }> {
  const db = openDatabase(join(dir, `${spread}.db`));
  const insert = db.prepare('INSERT INTO links (id, code, url, created_at, updated_at) VALUES (?, ?, ?, 0, 0)');
  db.transaction(() => {
    for (let id = 1; id <= links; id++) insert.run(id, `s${id.toString(36)}`, `https://www.example.com/articles/${id}`);
  })();
  const store = createSqliteVisitStore(db, watchWrites(db, createLogger(process.stderr)));
  const recorder = createVisitRecorder({
    store: { ...store, offload: () => false },
    classify: cachedClassifier(1000),
    countryOf: noCountry,
    retentionDays: 90,
    now: Date.now,
    salts: visitorSalts({ store, now: Date.now, random: randomBytes, makes: true }),
    log: createLogger(process.stderr),
  });
  let visits = 0;
  let seconds = 0;
  for (let f = 0; f < flushes; f++) {
    const events = new VisitLog();
    const at = Date.now();
    for (let i = 0; i < flushSize; i++) {
      const linkId = spread === 'hot' ? 1 + ((f * flushSize + i) % Math.min(HOT_LINKS, links)) : 1 + Math.floor(Math.random() * links);
      const n = f * flushSize + i;
      const client = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
      const userAgent = i % 20 === 0 ? BOT : BROWSERS[i % BROWSERS.length]!;
      events.record(linkId, at, client, userAgent, REFERRERS[i % REFERRERS.length]!, LANGUAGES[i % LANGUAGES.length]!);
    }
    const flush = events.take();
    const started = performance.now();
    recorder.add(flush);
    await recorder.idle();
    await store.idle();
    if (f === 0) continue;
    seconds += (performance.now() - started) / 1000;
    visits += flushSize;
  }
  db.close();
  return { visitsPerSecond: visits / seconds, microseconds: (seconds * 1e6) / visits };
}
