import { request, type IncomingHttpHeaders } from 'node:http';
import test, { type ExecutionContext } from 'ava';
import { parse as parseCsv } from 'csv-parse/sync';
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { BROWSER_UA, runCli, startKurz, type TestKurz } from '../helpers.ts';

type Problem = { status: number; code: string; detail: string; field?: string };

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const SLACKBOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';
const HOUR = 3_600_000;

const COLUMNS = ['at', 'code', 'bot', 'referrer', 'browser', 'os', 'device', 'country', 'language'] as const;
type VisitRow = Record<(typeof COLUMNS)[number], string | null>;

/** GET over node:http, to see the response's headers as sent (fetch hides Transfer-Encoding handling). */
function rawGet(k: TestKurz, path: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${k.base}${path}`, { headers: { authorization: `Bearer ${k.key}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function create(k: TestKurz, body: Record<string, unknown>): Promise<string> {
  const res = await k.postJson('/api/v1/links', body);
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { code: string }).code;
}

async function follow(k: TestKurz, code: string, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(`${k.base}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA, ...headers } });
  if (res.status !== 302) throw new Error(`follow: ${res.status}`);
}

/** The raw visits kept, as the export should show them, oldest first. */
async function storedVisits(k: TestKurz, from = 0, to = 8.64e15): Promise<VisitRow[]> {
  const rows = await k.sql<Omit<VisitRow, 'at'> & { at: number }>(
    `SELECT at, code, bot, referrer, browser, os, device, country, language FROM visits JOIN links ON links.id = visits.link_id
     WHERE at >= ? AND at < ? ORDER BY at, visits.id`,
    from,
    to,
  );
  return rows.map((r) => ({ ...r, at: new Date(r.at).toISOString() }));
}

/** A CSV cell as kurz writes it: '' for null, and a leading ' before what a spreadsheet would run. */
const cell = (value: string | null): string => (value === null ? '' : /^[=+\-@\t\r']/.test(value) ? `'${value}` : value);

/** Kurz with visits of two links over three hours, from people and bots, one referrer host a spreadsheet formula. */
async function withVisits(t: ExecutionContext): Promise<TestKurz> {
  const k = await startKurz(t, { visitFlushInterval: '60s' });
  const first = await create(k, { url: 'https://example.com/first', alias: 'first' });
  const second = await create(k, { url: 'https://example.com/second', alias: 'second' });
  await follow(k, first, { referer: 'https://www.news.example/a', 'accept-language': 'de-DE' });
  await follow(k, second, { 'user-agent': SLACKBOT });
  k.clock.advance(HOUR);
  await follow(k, first, { 'user-agent': IPHONE, referer: 'http://=cmd.example/x' });
  await follow(k, second, { referer: 'https://+1.example/', 'accept-language': 'fr, "quoted"' });
  k.clock.advance(HOUR);
  await follow(k, second, { referer: 'https://-2.example/' });
  await k.flushVisits();
  return k;
}

test('the visit export in CSV is streamed as an attachment and matches the visits stored, cell by cell', async (t) => {
  const k = await withVisits(t);
  // A bot name cannot start with "@" from a real user agent; planted, to see it defused too.
  await k.sql(`INSERT INTO visits (link_id, at, bot) VALUES ((SELECT id FROM links WHERE code = 'first'), ?, '@SUM(A1)')`, k.clock.now());
  const res = await rawGet(k, '/api/v1/export?what=visits&format=csv');
  t.is(res.status, 200);
  t.is(res.headers['transfer-encoding'], 'chunked');
  t.is(res.headers['content-length'], undefined);
  t.is(res.headers['content-type'], 'text/csv; charset=utf-8');
  t.is(res.headers['content-disposition'], 'attachment; filename="kurz-visits.csv"');
  t.is(res.headers['cache-control'], 'no-store');

  const stored = await storedVisits(k);
  t.is(stored.length, 6);
  t.deepEqual(
    stored.map((v) => v.referrer),
    ['news.example', null, '=cmd.example', '+1.example', '-2.example', null],
    'the formula-like hosts are really stored',
  );
  const rows = parseCsv(res.body) as string[][];
  t.deepEqual(rows[0], [...COLUMNS]);
  t.deepEqual(
    rows.slice(1),
    stored.map((v) => COLUMNS.map((c) => cell(v[c]))),
  );
  t.is(rows[3]![3], "'=cmd.example");
  t.is(rows[6]![2], "'@SUM(A1)");
  t.false(
    rows.flat().some((c) => /^[=+\-@\t\r]/.test(c)),
    'no cell starts a formula',
  );
});

test('the visit export in NDJSON matches the visits stored, row by row', async (t) => {
  const k = await withVisits(t);
  const res = await rawGet(k, '/api/v1/export?what=visits&format=ndjson');
  t.is(res.status, 200);
  t.is(res.headers['transfer-encoding'], 'chunked');
  t.is(res.headers['content-length'], undefined);
  t.is(res.headers['content-type'], 'application/x-ndjson; charset=utf-8');
  t.is(res.headers['content-disposition'], 'attachment; filename="kurz-visits.ndjson"');
  t.true(res.body.endsWith('\n'));
  const lines = res.body.trimEnd().split('\n');
  const stored = await storedVisits(k);
  t.is(lines.length, stored.length);
  t.deepEqual(
    lines.map((l) => JSON.parse(l) as VisitRow),
    stored,
  );
  t.deepEqual(Object.keys(JSON.parse(lines[0]!) as object), [...COLUMNS], 'the columns, in order');
  t.like(JSON.parse(lines[0]!) as VisitRow, { code: 'first', bot: null, referrer: 'news.example', browser: 'Chrome', language: 'de' });
});

test('from and to pick the visits of a period: from included, to not', async (t) => {
  const k = await withVisits(t);
  const start = Date.UTC(2026, 0, 15, 12);
  const period = async (query: string) => {
    const res = await rawGet(k, `/api/v1/export?what=visits&format=ndjson&${query}`);
    t.is(res.status, 200, query);
    return res.body === ''
      ? []
      : res.body
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l) as VisitRow);
  };
  t.deepEqual(await period('from=2026-01-15T13:00:00Z'), await storedVisits(k, start + HOUR));
  t.is((await period('from=2026-01-15T13:00:00Z')).length, 3);
  t.deepEqual(await period('to=2026-01-15T13:00:00Z'), await storedVisits(k, 0, start + HOUR));
  t.is((await period('to=2026-01-15T13:00:00Z')).length, 2);
  t.deepEqual(await period('from=2026-01-15T13:00:00Z&to=2026-01-15T14:00:00Z'), await storedVisits(k, start + HOUR, start + 2 * HOUR));
  t.deepEqual(await period('from=2026-01-16'), []);
  const csv = await rawGet(k, '/api/v1/export?what=visits&from=2026-01-16');
  t.is(csv.body, `${COLUMNS.join(',')}\n`, 'an empty CSV export is its header');
});

test('an export of more visits than one page reads them all, in order', async (t) => {
  const k = await startKurz(t);
  await create(k, { url: 'https://example.com/many', alias: 'many' });
  const [many] = await k.sql<{ id: number }>("SELECT id FROM links WHERE code = 'many'");
  await k.database.insert(
    'visits',
    Array.from({ length: 2500 }, (_, i) => ({ link_id: many?.id, at: Date.UTC(2026, 0, 1) + i * 1000, browser: `b${i}` })),
  );
  const res = await rawGet(k, '/api/v1/export?what=visits&format=ndjson');
  const rows = res.body
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as VisitRow);
  t.is(rows.length, 2500);
  t.deepEqual(
    rows.map((r) => r.browser),
    Array.from({ length: 2500 }, (_, i) => `b${i}`),
  );
});

for (const format of ['csv', 'ndjson'] as const) {
  test(`what=links&format=${format} streams the same links export as kurz export`, async (t) => {
    const k = await withVisits(t);
    await create(k, { url: 'https://example.com/=SUM(A1)', alias: 'third', title: '=HYPERLINK("x")', tags: ['a', 'b'] });
    const res = await rawGet(k, `/api/v1/export?what=links&format=${format}`);
    t.is(res.status, 200);
    t.is(res.headers['transfer-encoding'], 'chunked');
    t.is(res.headers['content-disposition'], `attachment; filename="kurz-links.${format}"`);
    const cli = await runCli(['export', '--format', format], k.database.env);
    t.is(cli.code, 0, cli.stderr);
    // The same but for the password hashes, which only `kurz export` carries: the API says hasPassword.
    t.is(res.body, withoutHashes(cli.stdout, format));
    t.true(res.body.includes('third'));
  });
}

/** A `kurz export` of links, its passwordHash column turned into hasPassword as the API's export has it. */
function withoutHashes(text: string, format: 'csv' | 'ndjson'): string {
  if (format === 'ndjson') return text.replace(/"passwordHash":(null|"[^"]*")/g, (_, hash: string) => `"hasPassword":${hash !== 'null'}`);
  const rows = parseCsv(text) as string[][];
  const column = rows[0]?.indexOf('passwordHash') ?? -1;
  return stringifyCsv(rows.map((row, i) => row.map((cell, c) => (c !== column ? cell : i === 0 ? 'hasPassword' : String(cell !== '')))));
}

test('links are exported as csv unless told', async (t) => {
  const k = await startKurz(t);
  await create(k, { url: 'https://example.com/default', alias: 'default' });
  const res = await rawGet(k, '/api/v1/export?what=links');
  t.is(res.headers['content-type'], 'text/csv; charset=utf-8');
  t.regex(res.body, /^code,url,/);
});

const BAD: Array<[string, string]> = [
  ['', 'what'],
  ['what=clicks', 'what'],
  ['what=visits&format=xml', 'format'],
  ['what=visits&format=json', 'format'],
  ['what=visits&from=yesterday', 'from'],
  ['what=visits&to=2026-02-30T25:00:00Z', 'to'],
  ['what=visits&from=2026-02-31', 'from'],
  ['what=links&from=2026-01-01', 'from'],
  ['what=links&to=2026-01-01', 'to'],
  ['what=visits&what=links', 'what'],
];
for (const [query, field] of BAD) {
  test(`export with "${query}" is a 400 naming ${field}`, async (t) => {
    const k = await startKurz(t);
    const res = await k.get(`/api/v1/export?${query}`);
    t.is(res.status, 400);
    t.regex(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    t.like((await res.json()) as Problem, { status: 400, code: 'invalid', field });
  });
}

test('the export needs an API key', async (t) => {
  const k = await startKurz(t);
  for (const query of ['what=visits', 'what=links&format=ndjson']) {
    const res = await fetch(`${k.base}/api/v1/export?${query}`);
    t.is(res.status, 401, query);
    t.like((await res.json()) as Problem, { code: 'unauthorized' });
  }
});
