import test, { type ExecutionContext } from 'ava';
import {
  ADMIN_PASSWORD,
  BROWSER_ACCEPT,
  BROWSER_UA,
  cookiesOf,
  csrfOf,
  freshDatabase,
  runCli,
  startKurz,
  startServe,
  type TestKurz,
} from '../helpers.ts';
import { freshRequest } from '../support/fresh-connection.ts';
import { requestFrom } from '../support/from-address.ts';

/** One scrape: each series (`name{label="value",…}` with labels sorted) and its value, and each family's type. */
interface Scrape {
  values: Map<string, number>;
  types: Map<string, string>;
  /** A series' value, 0 when absent (a counter nothing has moved yet). */
  value(name: string, labels?: Record<string, string | number>): number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(,|$)/y;

/**
 * Parses Prometheus's text exposition format (version 0.0.4) strictly: HELP and TYPE before a family's
 * samples, valid names, quoted and escaped label values, numeric values, a histogram's buckets cumulative
 * and ending in +Inf equal to its _count. Throws, naming the line, on anything else.
 */
function parseExposition(text: string): Scrape {
  const values = new Map<string, number>();
  const types = new Map<string, string>();
  const helped = new Set<string>();
  if (!text.endsWith('\n')) throw new Error('the text must end with a newline');
  for (const [i, line] of text.slice(0, -1).split('\n').entries()) {
    const fail = (why: string) => new Error(`line ${i + 1}: ${why}: ${line}`);
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (comment) {
      const [, kind, name = '', rest = ''] = comment;
      if (!NAME.test(name)) throw fail('bad metric name');
      if (kind === 'HELP') helped.add(name);
      else if (['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) types.set(name, rest);
      else throw fail('unknown type');
      continue;
    }
    if (line.startsWith('#')) throw fail('a comment that is neither HELP nor TYPE');
    const sample = SAMPLE.exec(line);
    if (!sample) throw fail('not a sample');
    const [, name = '', labelText = '', rawValue = ''] = sample;
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(family) || !helped.has(family)) throw fail('a sample before its HELP and TYPE');
    const labels: [string, string][] = [];
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < labelText.length) {
      const at = LABEL.lastIndex;
      const label = LABEL.exec(labelText);
      if (!label || label.index !== at) throw fail('bad labels');
      labels.push([label[1]!, label[2]!]);
    }
    // Prometheus reads values with Go's ParseFloat, which takes NaN and Inf in any case.
    const special = /^([+-]?)(inf|infinity|nan)$/i.exec(rawValue);
    const value = special ? (special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity) : Number(rawValue);
    if (rawValue === '' || (Number.isNaN(value) && !special)) throw fail('bad value');
    const key = seriesKey(name, Object.fromEntries(labels));
    if (values.has(key)) throw fail('a series given twice');
    values.set(key, value);
  }
  // Each histogram series (its labels but le): buckets in order, cumulative, the last +Inf and equal to _count.
  for (const [family, type] of types) {
    if (type !== 'histogram') continue;
    const series = new Map<string, Array<[string, number]>>();
    for (const [key, value] of values) {
      const bucket = new RegExp(`^${family}_bucket\\{(.*?),?le="([^"]*)"\\}$`).exec(key);
      if (bucket) series.set(bucket[1]!, [...(series.get(bucket[1]!) ?? []), [bucket[2]!, value]]);
    }
    for (const [labels, buckets] of series) {
      const counts = buckets.map(([, value]) => value);
      if (buckets.at(-1)?.[0] !== '+Inf') throw new Error(`${family}{${labels}}: the last bucket is not +Inf`);
      if (counts.some((count, i) => i > 0 && count < counts[i - 1]!)) throw new Error(`${family}{${labels}}: buckets not cumulative`);
      const count = values.get(labels === '' ? `${family}_count` : `${family}_count{${labels}}`);
      if (counts.at(-1) !== count) throw new Error(`${family}{${labels}}: the +Inf bucket is not _count`);
    }
  }
  return { values, types, value: (name, labels = {}) => values.get(seriesKey(name, labels)) ?? 0 };
}

function seriesKey(name: string, labels: Record<string, string | number>): string {
  const pairs = Object.entries(labels)
    .filter(([label]) => label !== 'le')
    .sort(([a], [b]) => a.localeCompare(b));
  if ('le' in labels) pairs.push(['le', labels['le']!]);
  return pairs.length === 0 ? name : `${name}{${pairs.map(([k, v]) => `${k}="${v}"`).join(',')}}`;
}

async function scrape(t: ExecutionContext, base: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await fetch(`${base}/metrics`, { headers });
  const text = await res.text();
  t.is(res.status, 200, text);
  t.is(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(text);
}

const KURZ_METRICS: Record<string, string> = {
  kurz_http_requests_total: 'counter',
  kurz_redirect_duration_seconds: 'histogram',
  kurz_redirect_cache_lookups_total: 'counter',
  kurz_redirect_cache_links: 'gauge',
  kurz_links_created_total: 'counter',
  kurz_links_deduplicated_total: 'counter',
  kurz_link_creations_refused_total: 'counter',
  kurz_visit_buffer_events: 'gauge',
  kurz_visit_writes_pending: 'gauge',
  kurz_visit_flush_duration_seconds: 'histogram',
  kurz_database_size_bytes: 'gauge',
  kurz_rate_limited_total: 'counter',
};

test("GET /metrics from this machine: Prometheus text with kurz's metrics and the process's", async (t) => {
  const k = await startKurz(t);
  const first = await scrape(t, k.base);
  for (const [name, type] of Object.entries(KURZ_METRICS)) t.is(first.types.get(name), type, name);
  for (const name of [
    'process_cpu_user_seconds_total',
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_seconds',
    'nodejs_heap_size_used_bytes',
  ])
    t.true(first.types.has(name), name);
  t.true(first.value('process_resident_memory_bytes') > 0);
  t.true(first.value('kurz_database_size_bytes') > 0, 'the database has a size');
  // A scrape is counted under its route, like any request (the first one once it is answered).
  const second = await scrape(t, k.base);
  t.is(second.value('kurz_http_requests_total', { route: 'GET /metrics', status: 200 }), 1);
});

test('each metric moves with what it counts: redirects, cache lookups, creations, refusals, visits and flushes', async (t) => {
  // Visits stay in the buffer until the test flushes them.
  const k = await startKurz(t, { visitFlushInterval: '60s' });
  const before = await scrape(t, k.base);
  const moved = (after: Scrape, name: string, labels?: Record<string, string | number>) =>
    after.value(name, labels) - before.value(name, labels);

  const created = await k.postJson('/api/v1/links', { url: 'https://example.com/measured' });
  const { code } = (await created.json()) as { code: string };
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/measured' })).status, 200, 'the same URL again');
  t.is((await k.postJson('/api/v1/links', { url: 'ftp://example.com/' })).status, 400);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/a', alias: 'taken' })).status, 201);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/b', alias: 'taken' })).status, 409);
  // Three redirects: the cache, which has room, keeps a link from its first lookup on, so miss, hit, hit; an
  // unknown code is remembered from its second, so miss, miss, unknown.
  for (let i = 0; i < 3; i++) t.is((await fetch(`${k.base}/${code}`, { redirect: 'manual' })).status, 302);
  for (let i = 0; i < 3; i++) t.is((await fetch(`${k.base}/nosuch1`, { redirect: 'manual' })).status, 404);

  const during = await scrape(t, k.base);
  t.is(moved(during, 'kurz_links_created_total'), 2);
  t.is(moved(during, 'kurz_links_deduplicated_total'), 1);
  t.is(moved(during, 'kurz_link_creations_refused_total', { reason: 'invalid url' }), 1);
  t.is(moved(during, 'kurz_link_creations_refused_total', { reason: 'conflict alias' }), 1);
  t.is(moved(during, 'kurz_http_requests_total', { route: 'redirect', status: 302 }), 3);
  t.is(moved(during, 'kurz_http_requests_total', { route: 'redirect', status: 404 }), 3);
  t.is(moved(during, 'kurz_http_requests_total', { route: 'POST /api/v1/links', status: 201 }), 2);
  t.is(moved(during, 'kurz_redirect_duration_seconds_count'), 6);
  t.is(moved(during, 'kurz_redirect_duration_seconds_bucket', { le: '+Inf' }), 6);
  t.true(moved(during, 'kurz_redirect_duration_seconds_sum') > 0);
  t.is(moved(during, 'kurz_redirect_cache_lookups_total', { result: 'miss' }), 3);
  t.is(moved(during, 'kurz_redirect_cache_lookups_total', { result: 'hit' }), 2);
  t.is(moved(during, 'kurz_redirect_cache_lookups_total', { result: 'unknown' }), 1);
  t.is(during.value('kurz_redirect_cache_links'), 1);
  t.is(during.value('kurz_visit_buffer_events'), 3, 'three visits wait in the buffer');

  await k.flushVisits();
  const after = await scrape(t, k.base);
  t.is(after.value('kurz_visit_buffer_events'), 0);
  t.is(after.value('kurz_visit_writes_pending'), 0);
  t.is(moved(after, 'kurz_visit_flush_duration_seconds_count'), 1);

  // A link with a visit limit answers once the store has counted the visit (a browser's; a bot's uses none up): timed until then.
  const limited = await k.postJson('/api/v1/links', { url: 'https://example.com/limited', maxVisits: 2 });
  const { code: limitedCode } = (await limited.json()) as { code: string };
  const statuses = [];
  for (let i = 0; i < 3; i++)
    statuses.push((await fetch(`${k.base}/${limitedCode}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } })).status);
  t.deepEqual(statuses, [302, 302, 410]);
  const last = await scrape(t, k.base);
  t.is(last.value('kurz_redirect_duration_seconds_count') - after.value('kurz_redirect_duration_seconds_count'), 3);
  t.is(last.value('kurz_http_requests_total', { route: 'redirect', status: 410 }), 1);
});

test('rate-limit refusals are counted by limit, answered as a page or as problem+json', async (t) => {
  const k = await startKurz(t, { trustedProxies: '127.0.0.1' });
  await k.login();
  const created = await k.postJson('/api/v1/links', { url: 'https://example.com/locked', password: 'open sesame' });
  const { code } = (await created.json()) as { code: string };
  // The unlock API: five wrong passwords are free, the sixth makes the client wait, the seventh is refused.
  const unlock = (password: string) =>
    fetch(`${k.base}/links/${code}/unlock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.20' },
      body: JSON.stringify({ password }),
      redirect: 'manual',
    });
  for (let i = 0; i < 6; i++) t.is((await unlock(`guess ${i}`)).status, 401);
  t.is((await unlock('open sesame')).status, 429);
  // The login form: three failures are free, the fourth makes the client wait.
  const login = async (password: string) => {
    const page = await fetch(`${k.base}/login`, { headers: { accept: BROWSER_ACCEPT, 'x-forwarded-for': '198.51.100.21' } });
    return fetch(`${k.base}/login`, {
      method: 'POST',
      headers: { cookie: cookiesOf(page), 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.21' },
      body: new URLSearchParams({ _csrf: csrfOf(await page.text()), user: 'admin', password }),
      redirect: 'manual',
    });
  };
  for (let i = 0; i < 4; i++) t.is((await login(`wrong ${i} wrong`)).status, 401);
  t.is((await login(ADMIN_PASSWORD)).status, 429);
  t.is((await login(ADMIN_PASSWORD)).status, 429);

  const metrics = await scrape(t, k.base);
  t.is(metrics.value('kurz_rate_limited_total', { limit: 'unlock' }), 1);
  t.is(metrics.value('kurz_rate_limited_total', { limit: 'login' }), 2);
  t.is(metrics.value('kurz_http_requests_total', { route: 'POST /login', status: 429 }), 2);
});

/** A request to /metrics from the socket address `client` (one of 127.0.0.0/8). */
async function metricsFrom(k: TestKurz, client: string, headers: Record<string, string> = {}): Promise<Response> {
  const answer = await requestFrom(client, k.base, '/metrics', { headers });
  return new Response(answer.status === 204 ? null : answer.text, {
    status: answer.status,
    headers: Object.entries(answer.headers).flatMap(([name, value]) =>
      value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, v]),
    ),
  });
}

const KEY = 'a-metrics-key-of-32-characters!!';

test('from another address without metricsKey set: 403 naming the settings; nothing else opens it', async (t) => {
  const k = await startKurz(t, { trustedProxies: '127.0.0.1' });
  const refused = await metricsFrom(k, '127.0.0.7');
  t.is(refused.status, 403);
  const problem = (await refused.json()) as { code: string; detail: string };
  t.is(problem.code, 'forbidden');
  t.regex(problem.detail, /only the addresses in the setting metricsAllow.*set metricsKey/);
  t.regex(refused.headers.get('x-request-id') ?? '', /^[0-9a-f]{6}-/);
  // A user's API key or session is not the way in.
  t.is((await metricsFrom(k, '127.0.0.7', { authorization: `Bearer ${k.key}` })).status, 403);
  t.is((await metricsFrom(k, '127.0.0.7', { cookie: await k.login() })).status, 403);
  // The local address is still let in, and an address in a CIDR range of metricsAllow.
  t.is((await metricsFrom(k, '127.0.0.1')).status, 200);
  const ranges = await startKurz(t, { trustedProxies: '127.0.0.1', metricsAllow: '127.0.1.0/24, 127.0.0.9' });
  t.is((await metricsFrom(ranges, '127.0.1.40')).status, 200);
  t.is((await metricsFrom(ranges, '127.0.0.9')).status, 200);
  t.is((await metricsFrom(ranges, '127.0.0.10')).status, 403);
  t.is((await metricsFrom(ranges, '127.0.0.1')).status, 403, 'the default list is replaced, not extended');
  // Only the socket's own address counts, and only on a request no proxy passed on: a forwarding header
  // (any of them, whoever sent it) closes it, even from an allowed socket behind a trusted proxy.
  for (const header of ['forwarded', 'x-forwarded-for', 'x-real-ip']) {
    const value = header === 'forwarded' ? 'for=127.0.0.1' : '127.0.0.1';
    t.is((await metricsFrom(k, '127.0.0.1', { [header]: value })).status, 403, header);
    t.is((await metricsFrom(ranges, '127.0.0.1', { [header]: value === '127.0.0.1' ? '127.0.0.9' : 'for=127.0.0.9' })).status, 403, header);
  }
});

test('with metricsKey set: the key opens it from anywhere; none or a wrong one is a 401', async (t) => {
  const k = await startKurz(t, { trustedProxies: '127.0.0.1', metricsKey: KEY });
  const missing = await metricsFrom(k, '127.0.0.7');
  t.is(missing.status, 401);
  t.is(missing.headers.get('www-authenticate'), 'Bearer realm="kurz metrics"');
  t.regex(((await missing.json()) as { detail: string }).detail, /needs the metrics key.*Authorization: Bearer KEY/);
  const wrong = await metricsFrom(k, '127.0.0.7', { authorization: 'Bearer a-metrics-key-of-32-characters!?' });
  t.is(wrong.status, 401);
  t.regex(((await wrong.json()) as { detail: string }).detail, /the metrics key is wrong/);
  t.is((await metricsFrom(k, '127.0.0.7', { authorization: `Bearer ${k.key}` })).status, 401, 'an API key is no metrics key');
  const right = await metricsFrom(k, '127.0.0.7', { authorization: `Bearer ${KEY}` });
  t.is(right.status, 200);
  t.regex(await right.text(), /^# HELP /m);
  // From an allowed address the key is not needed, but a wrong one sent is still refused.
  t.is((await metricsFrom(k, '127.0.0.1')).status, 200);
  t.is((await metricsFrom(k, '127.0.0.1', { authorization: 'Bearer not-the-key-at-all-no' })).status, 401);
  // Nobody at all, with an empty list and no key.
  const closed = await startKurz(t, { metricsAllow: '' });
  t.is((await fetch(`${closed.base}/metrics`)).status, 403);
});

test('metricsKey must be long enough and metricsAllow addresses; kurz will not start otherwise', async (t) => {
  const db = await freshDatabase(t);
  const short = await runCli(['serve'], { ...db.env, KURZ_METRICS_KEY: 'short' });
  t.is(short.code, 2);
  t.regex(short.stderr, /metricsKey \(environment variable KURZ_METRICS_KEY\): must be at least 16 characters long/);
  t.false(short.stderr.includes('short'.repeat(2)));
  const spaced = await runCli(['serve'], { ...db.env, KURZ_METRICS_KEY: 'has a space in it, sixteen+' });
  t.regex(spaced.stderr, /metricsKey \(environment variable KURZ_METRICS_KEY\): must be printable ASCII without spaces/);
  // Issue 23: a flag is in every user's process list, so the key is never taken from one.
  const flag = await runCli(['serve', '--metrics-key', 'a-metrics-key-of-32-characters!!'], db.env);
  t.is(flag.code, 2);
  t.regex(flag.stderr, /metricsKey \(flag --metrics-key\) is a secret, .*: set KURZ_METRICS_KEY, or KURZ_METRICS_KEY_FILE naming a file/);
  t.false(flag.stderr.includes('a-metrics-key-of-32'));
  const bad = await runCli(['serve'], { ...db.env, KURZ_METRICS_ALLOW: '10.0.0.0/33' });
  t.is(bad.code, 2);
  t.regex(bad.stderr, /metricsAllow \(environment variable KURZ_METRICS_ALLOW\): .*give addresses or CIDR ranges/);
});

test.serial("with --workers 2 every scrape shows all the processes' figures added up, whichever worker answers it", async (t) => {
  const env = { ...(await freshDatabase(t)).env, KURZ_WORKERS: '2' };
  const made = await runCli(['keys', 'create', '--name', 'tests', '--json'], env);
  t.is(made.code, 0, made.stderr);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  const kurz = await startServe(t, env);
  const created = await freshRequest(`${kurz.url}/api/v1/links`, { method: 'POST', body: { url: 'https://example.com/workers' }, key });
  const { code } = JSON.parse(created.body) as { code: string };
  // New connections: the kernel spreads them over both workers.
  const REDIRECTS = 24;
  for (let i = 0; i < REDIRECTS; i++) t.is((await freshRequest(`${kurz.url}/${code}`)).status, 302);
  for (let i = 0; i < 6; i++) {
    const res = await freshRequest(`${kurz.url}/metrics`);
    t.is(res.status, 200);
    const metrics = parseExposition(res.body);
    t.is(metrics.value('kurz_http_requests_total', { route: 'redirect', status: 302 }), REDIRECTS);
    t.is(metrics.value('kurz_redirect_duration_seconds_count'), REDIRECTS);
    t.is(metrics.value('kurz_links_created_total'), 1);
    t.is(metrics.value('kurz_http_requests_total', { route: 'GET /metrics', status: 200 }), i, 'the earlier scrapes');
    t.true(metrics.value('kurz_database_size_bytes') > 0);
    t.true(metrics.value('process_resident_memory_bytes') > 2 * 30 * 1024 * 1024, 'the memory of three processes');
  }
  t.is(await kurz.stop(), 0);
});
