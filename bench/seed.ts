// Creates a kurz database with N links through kurz's own service, so the rows, codes and indexes are real,
// and writes the codes to a text file, one per line, in creation order (line i holds targetUrl(i)).
// With --options every link carries options (title, tags, a far expiry, its own redirect status), so its
// redirect takes the gated path. With --split every link has its own 2-variant A/B split (the target with ?v=a
// and ?v=b), so its redirect draws a variant from the visitor hash. With --rules every link gets 10 redirect
// rules whose first nine miss every request the bench sends (languages and query parameters it never sends)
// and whose 10th matches all of them. With --domains H2,H3 the links are spread in turn over the default domain
// and those domains (added first): CODES_FILE holds the default domain's codes, CODES_FILE.H2 each other's.
// Also makes an API key for the create scenarios, written to CODES_FILE.key.
// Usage: node bench/seed.ts DB_FILE CODES_FILE N [--options] [--split] [--rules] [--domains H2,H3]   Prints one JSON line: { links, seconds, dbBytes }.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/core/log.ts';
import { createServices } from '../src/services.ts';
import { openSqliteStorage } from '../src/store/sqlite/storage.ts';
import { targetUrl } from './target-url.ts';
import { SERVER_ADMIN } from '../src/auth/actor.ts';

// Creations handed over together: the link store's group commit writes them 1000 to a transaction.
const BATCH = 100_000;

const [dbFile, codesFile, count, ...flags] = process.argv.slice(2);
const withOptions = flags.includes('--options');
const withSplit = flags.includes('--split');
const withRules = flags.includes('--rules');
/** Five languages and four query parameters no bench request has, then a condition every one meets. */
const RULES = [
  ...['sw', 'yo', 'zu', 'mt', 'cy'].map((language) => ({
    conditions: [{ type: 'language', matchValue: language }],
    target: 'https://example.com/missed',
  })),
  ...['utm_a', 'utm_b', 'utm_c', 'utm_d'].map((key) => ({
    conditions: [{ type: 'query-param', matchKey: key, matchValue: 'x' }],
    target: 'https://example.com/missed',
  })),
  { conditions: [{ type: 'after-date', matchValue: '2000-01-01T00:00:00Z' }], target: 'https://example.com/matched' },
];
const domainsAt = flags.indexOf('--domains');
const hosts = domainsAt === -1 ? [] : (flags[domainsAt + 1] ?? '').split(',').filter(Boolean);
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
for (const host of hosts) await services.domains.addDomain(SERVER_ADMIN, host, {});
// The default domain (undefined) and each other one, in turn.
const domains = [undefined, ...hosts];
const files = domains.map((host) => openSync(host === undefined ? codesFile : `${codesFile}.${host}`, 'w'));
try {
  for (let first = 0; first < links; first += BATCH) {
    const last = Math.min(first + BATCH, links);
    const created = await Promise.all(
      Array.from({ length: last - first }, (_, k) =>
        services.creation.createLink(SERVER_ADMIN, {
          url: targetUrl(first + k),
          domain: domains[(first + k) % domains.length],
          ...(withOptions ? OPTIONS : {}),
          ...(withSplit ? { split: ['a', 'b'].map((v) => ({ url: `${targetUrl(first + k)}?v=${v}`, weight: 1 })) } : {}),
        }),
      ),
    );
    if (withRules) await Promise.all(created.map((c) => services.links.setRules(SERVER_ADMIN, c.link.code, RULES, c.link.domain)));
    files.forEach((file, d) => {
      const own = created.filter((_, k) => (first + k) % domains.length === d);
      if (own.length > 0) writeSync(file, own.map((c) => c.link.code).join('\n') + '\n');
    });
  }
  writeFileSync(`${codesFile}.key`, (await services.access.createKey(1, 'bench')).secret);
  // Counted, not read off the last id: a generated code that spells one of kurz's paths is skipped with its id.
  const stored = await storage.links.countLinks({ limit: 1 });
  if (stored !== links) throw new Error(`seeded ${stored} links, expected ${links}`);
} finally {
  for (const file of files) closeSync(file);
  await storage.close();
}
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ links, seconds: Number(seconds.toFixed(2)), dbBytes: statSync(dbFile).size }));
