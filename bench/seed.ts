// Creates a kurz database with N links through kurz's own service, so the rows, codes and indexes are real,
// and writes the codes to a text file, one per line, in creation order (line i holds targetUrl(i)).
// With --options every link carries options (title, tags, a far expiry, its own redirect status), so its
// redirect takes the gated path. Also makes an API key for the create scenarios, written to CODES_FILE.key.
// Usage: node bench/seed.ts DB_FILE CODES_FILE N [--options]   Prints one JSON line: { links, seconds, dbBytes }.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/core/log.ts';
import { createServices } from '../src/services.ts';
import { openSqliteStorage } from '../src/store/sqlite/storage.ts';
import { targetUrl } from './target-url.ts';

// Creations handed over together: the link store's group commit writes them 1000 to a transaction.
const BATCH = 100_000;

const [dbFile, codesFile, count, flag] = process.argv.slice(2);
const withOptions = flag === '--options';
const OPTIONS = { title: 'A link with options', tags: ['bench', 'options'], expiresAt: '2999-01-01T00:00:00Z', redirectStatus: 302 };
const links = Number(count);
if (!dbFile || !codesFile || !Number.isSafeInteger(links) || links < 1) {
  throw new Error('usage: node bench/seed.ts DB_FILE CODES_FILE N');
}

const started = performance.now();
// Dedupe off: the URLs are unique, so seeding skips the probe that the create runs (default settings) pay.
const config = loadConfig({ env: { KURZ_DB: dbFile, KURZ_DEDUPE_WINDOW: 'off' } });
const log = createLogger({ write: () => true });
const storage = openSqliteStorage(config, { log });
const services = await createServices(config, { now: Date.now, random: randomBytes, log }, storage);
const codes = openSync(codesFile, 'w');
try {
  for (let first = 0; first < links; first += BATCH) {
    const last = Math.min(first + BATCH, links);
    const created = await Promise.all(
      Array.from({ length: last - first }, (_, k) =>
        services.creation.createLink({ url: targetUrl(first + k), ...(withOptions ? OPTIONS : {}) }),
      ),
    );
    writeSync(codes, created.map((c) => c.link.code).join('\n') + '\n');
  }
  writeFileSync(`${codesFile}.key`, (await services.access.createKey('bench')).secret);
  const listed = await storage.links.listLinks({ limit: 1 });
  if (listed[0]?.id !== links) throw new Error(`seeded up to id ${listed[0]?.id}, expected ${links}`);
} finally {
  closeSync(codes);
  await storage.close();
}
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ links, seconds: Number(seconds.toFixed(2)), dbBytes: statSync(dbFile).size }));
