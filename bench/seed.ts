// Creates a kurz database with N links through kurz's own service, so the rows, codes and indexes are real,
// and writes the codes to a text file, one per line, in creation order (line i holds targetUrl(i)).
// Usage: node bench/seed.ts DB_FILE CODES_FILE N   Prints one JSON line: { links, seconds, dbBytes }.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { createCore } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { targetUrl } from './target-url.ts';

// One transaction per batch: as fast as a single one, and the WAL is checkpointed between batches
// instead of growing to the size of the whole database.
const BATCH = 100_000;

const [dbFile, codesFile, count] = process.argv.slice(2);
const links = Number(count);
if (!dbFile || !codesFile || !Number.isSafeInteger(links) || links < 1) {
  throw new Error('usage: node bench/seed.ts DB_FILE CODES_FILE N');
}

const started = performance.now();
// Dedupe off: the URLs are unique, so seeding skips the probe that the create runs (default settings) pay.
const config = loadConfig({ env: { KURZ_DB: dbFile, KURZ_DEDUPE_WINDOW: 'off' } });
const core = createCore(config, { now: Date.now, random: randomBytes, log: createLogger({ write: () => true }) });
// A page cache large enough for the code index: random codes otherwise spill pages to the WAL on every batch.
core.db.pragma('cache_size = -1048576');
const codes = openSync(codesFile, 'w');
try {
  for (let first = 0; first < links; first += BATCH) {
    const last = Math.min(first + BATCH, links);
    const batch: string[] = [];
    core.db.transaction(() => {
      for (let i = first; i < last; i++) batch.push(core.services.links.createLink({ url: targetUrl(i) }).link.code);
    })();
    writeSync(codes, batch.join('\n') + '\n');
  }
  const { n } = core.db.prepare('SELECT count(*) AS n FROM links').get() as { n: number };
  if (n !== links) throw new Error(`seeded ${n} links, expected ${links}`);
} finally {
  closeSync(codes);
  core.close();
}
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ links, seconds: Number(seconds.toFixed(2)), dbBytes: statSync(dbFile).size }));
