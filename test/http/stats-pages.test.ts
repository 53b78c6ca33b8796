import { asSentence } from '../../src/core/errors.ts';
import test from 'ava';
import { parse } from 'csv-parse/sync';
import { BROWSER_UA, startKurz, type TestKurz } from '../helpers.ts';
import { browser } from './ui-session.ts';
import { member } from './members.ts';

// The stats pages' periods, the comparison and the CSV downloads, over HTTP as a browser asks for them.

async function create(k: TestKurz, body: Record<string, unknown>): Promise<string> {
  const res = await k.postJson('/api/v1/links', body);
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { code: string }).code;
}

async function follow(k: TestKurz, code: string, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(`${k.base}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA, ...headers } });
  await res.arrayBuffer();
}

/** Whether the page shows the message, as a page starts one: with a capital. */
const says = (html: string, message: string): boolean => said(html).includes(message) || said(html).includes(asSentence(message));

/** The page's message, as the error page shows it. */
const said = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');

const BAD_PERIODS: Array<[string, string]> = [
  ['period=5y', 'period must be one of '],
  ['period=custom&to=2026-01-10', 'a custom period needs its first day: from, as YYYY-MM-DD'],
  ['period=custom&from=2026-01-10', 'a custom period needs its last day: to, as YYYY-MM-DD'],
  ['period=custom&from=2026-13-01&to=2026-12-01', 'from must be a day as YYYY-MM-DD, such as 2026-11-23 (got "2026-13-01")'],
  ['period=custom&from=2026-01-01&to=yesterday', 'to must be a day as YYYY-MM-DD'],
  ['period=custom&from=2026-01-10&to=2026-01-09', 'to (2026-01-09) must not be before from (2026-01-10)'],
  ['period=custom&from=2024-01-01&to=2025-12-31', 'the period is too long: 731 days, at most 366'],
  ['from=2027-01-01&to=2027-01-02', 'from (2027-01-01) is after today (UTC): there are no visits yet'],
];

test('a bad period is a 400 page naming what is wrong, on the stats page, the dashboard, the comparison and the CSVs', async (t) => {
  const k = await startKurz(t);
  await create(k, { url: 'https://example.com/a', alias: 'alpha' });
  await create(k, { url: 'https://example.com/b', alias: 'beta' });
  const b = await browser(k);
  for (const [query, message] of BAD_PERIODS) {
    for (const path of [
      '/links/alpha/stats',
      '/',
      '/stats/compare?code=alpha&code=beta&',
      '/links/alpha/stats.csv',
      '/stats/dashboard.csv',
    ]) {
      const url = `${path}${path.includes('?') ? '' : '?'}${query}`;
      const { res, html } = await b.page(url);
      t.is(res.status, 400, url);
      t.true(says(html, message), `${url}: ${message}`);
    }
  }
  t.true(says((await b.page('/links/alpha/stats?period=5y')).html, 'period must be one of 24h, 7d, 14d, 30d, 90d or custom'));
  t.true(says((await b.page('/?period=5y')).html, 'period must be one of 24h, 7d, 14d, 30d, 90d or custom'));
});

test("the dashboard's last 24 hours: by the hour from the hourly rollup, its top links and creations, a member's own alone", async (t) => {
  const k = await startKurz(t, { visitFlushInterval: '60s' });
  const mia = await member(k, 'mia');
  await create(k, { url: 'https://example.com/a', alias: 'alpha' });
  t.is((await mia.api('POST', '/api/v1/links', { url: 'https://example.com/mia', alias: 'mias' })).status, 201);
  // Two visits to alpha three hours ago and one to mia's now; one to alpha two days ago, outside the 24 hours.
  k.clock.advance(-50 * 3_600_000);
  await follow(k, 'alpha');
  k.clock.advance(47 * 3_600_000);
  await follow(k, 'alpha');
  await follow(k, 'alpha');
  k.clock.advance(3 * 3_600_000);
  await follow(k, 'mias');
  await k.flushVisits();
  const b = await browser(k);
  const { res, html } = await b.page('/?period=24h');
  t.is(res.status, 200);
  t.true(html.includes('Human visits per hour, last 24 hours (UTC)'));
  const hours = [
    ...html.matchAll(
      /<tr><th scope="row"><time datetime="([^"]+)" data-time="(?:hour|this-hour)">[^<]*<\/time><\/th><td class="num">(\d+)<\/td><td class="num">(\d+)<\/td><\/tr>/g,
    ),
  ];
  t.is(hours.length, 24, 'one row an hour');
  const visited = hours.filter((h) => h[3] !== '0').map((h) => [h[1], h[3]]);
  const hourOf = (ms: number) => new Date(ms - (ms % 3_600_000)).toISOString();
  const now = k.clock.now();
  t.deepEqual(visited, [
    [hourOf(now), '1'],
    [hourOf(now - 3 * 3_600_000), '2'],
  ]);
  t.true(
    hours.some((h) => h[2] === '2'),
    'the two links created within the hour',
  );
  t.regex(html, />Links created and visits per hour \(24 hours\)</);
  const csv = await (await b.get('/stats/dashboard.csv?period=24h')).text();
  t.regex(csv, new RegExp(`series_hour,${hourOf(now - 3 * 3_600_000)},humans,2`));
  t.regex(csv, /top_links,alpha,humans,2/);
  // Mia's dashboard: her link's visit alone.
  const minePage = await (await mia.page('/?period=24h')).text();
  const mineHours = [
    ...minePage.matchAll(
      /<tr><th scope="row"><time datetime="[^"]+" data-time="(?:hour|this-hour)">[^<]*<\/time><\/th><td class="num">\d+<\/td><td class="num">(\d+)<\/td><\/tr>/g,
    ),
  ].map((m) => Number(m[1]));
  t.is(
    mineHours.reduce((a, n) => a + n, 0),
    1,
    'only her own visit',
  );
});

test('the period decides the chart: 24 hours and up to 3 custom days by the hour, longer by the day', async (t) => {
  const k = await startKurz(t, { visitFlushInterval: '60s' });
  await create(k, { url: 'https://example.com/a', alias: 'alpha' });
  await follow(k, 'alpha');
  await k.flushVisits();
  const b = await browser(k);
  const today = new Date(k.clock.now()).toISOString().slice(0, 10);
  const cases: Array<[string, string, number]> = [
    ['', 'per day, last 30 days', 30],
    ['?period=24h', 'per hour, last 24 hours', 24],
    ['?period=7d', 'per day, last 7 days', 7],
    ['?period=90d', 'per day, last 90 days', 90],
    [`?period=custom&from=${today}&to=${today}`, `per hour, ${today} to ${today}`, 24],
    [`?from=2025-01-01&to=2025-01-04`, 'per day, 2025-01-01 to 2025-01-04', 4],
  ];
  for (const [query, title, buckets] of cases) {
    const { res, html } = await b.page(`/links/alpha/stats${query}`);
    t.is(res.status, 200, query);
    t.true(html.includes(`Human visits ${title} (UTC)`), `${query}: ${title}`);
    const desc = /<desc id="visits-chart-desc">([^<]*)</.exec(html)?.[1] ?? '';
    t.regex(desc, new RegExp(`in ${buckets} (hour|day)s`), query);
  }
  // The picker shows the choice made, and the custom days when custom.
  const { html } = await b.page('/links/alpha/stats?period=custom&from=2025-01-01&to=2025-01-04');
  t.regex(html, /<option value="custom" selected>/);
  t.regex(html, /name="from" value="2025-01-01"/);
});

test('the comparison: two to five links the user may see, else a 4xx saying why', async (t) => {
  const k = await startKurz(t);
  for (const alias of ['a1', 'a2', 'a3', 'a4', 'a5', 'a6']) await create(k, { url: `https://example.com/${alias}`, alias });
  const b = await browser(k);
  const empty = await b.page('/stats/compare');
  t.is(empty.res.status, 200, 'without codes, the form alone');
  const cases: Array<[string, number, string]> = [
    ['code=a1', 400, 'compare at least two links: give two to 5 codes'],
    ['code=a1&code=a2&code=a3&code=a4&code=a5&code=a6', 400, 'compare at most 5 links at once (6 given)'],
    ['code=a1&code=nope', 404, 'no link has the code "nope"'],
    ['code=a1&code=a1', 400, 'each link may be compared once'],
    ['code=a1&code=elsewhere.test/a2', 400, 'elsewhere.test'],
  ];
  for (const [query, status, message] of cases) {
    const { res, html } = await b.page(`/stats/compare?${query}`);
    t.is(res.status, status, query);
    t.true(says(html, message), `${query}: ${message}`);
    const csv = await b.get(`/stats/compare.csv?${query}`);
    t.is(csv.status, status, `${query} (CSV)`);
  }
  const { res, html } = await b.page('/stats/compare?code=a1&code=a2&code=a3');
  t.is(res.status, 200);
  for (const code of ['a1', 'a2', 'a3']) t.regex(html, new RegExp(`class="series series-\\d"><title>${code}: 0 human visits`));
});

test('without a GeoIP database the stats page says how to get countries: an admin how to set it, a member whom to ask', async (t) => {
  const k = await startKurz(t);
  await create(k, { url: 'https://example.com/admin', alias: 'mine' });
  const mia = await member(k, 'mia');
  t.is((await mia.api('POST', '/api/v1/links', { url: 'https://example.com/mia', alias: 'hers' })).status, 201);
  const hint = (html: string) => said(/<p class="card geo-hint" id="geo-hint">[\s\S]*?<\/p>/.exec(html)?.[0] ?? '').trim();
  const admins = hint(await (await (await browser(k)).get('/links/mine/stats')).text());
  for (const name of ['geoipDatabase', 'KURZ_GEOIP_DATABASE', '--geoip-database', 'See Settings']) t.true(admins.includes(name), name);
  t.is(
    hint(await (await mia.page('/links/hers/stats')).text()),
    'Countries need a GeoIP database (a free DB-IP Lite or MaxMind GeoLite2 Country file), which an admin of this kurz sets as geoipDatabase : ask yours to. Visits from then on get their country.',
  );
});

test("a member compares their own links only: another user's code is unknown to them", async (t) => {
  const k = await startKurz(t);
  await create(k, { url: 'https://example.com/admin', alias: 'mine' });
  await create(k, { url: 'https://example.com/admin2', alias: 'mine2' });
  const mia = await member(k, 'mia');
  t.is((await mia.api('POST', '/api/v1/links', { url: 'https://example.com/mia', alias: 'hers' })).status, 201);
  const res = await mia.page('/stats/compare?code=mine&code=hers');
  t.is(res.status, 404);
  t.true(said(await res.text()).includes('no link has the code "mine"'));
});

test('the CSVs: text/csv downloads of the period, one figure a row, formula cells defused', async (t) => {
  const k = await startKurz(t, { visitFlushInterval: '60s' });
  await create(k, { url: 'https://example.com/a', alias: 'alpha' });
  await create(k, { url: 'https://example.com/b', alias: 'beta' });
  await follow(k, 'alpha', { referer: 'https://=cmd.example/|calc' });
  await follow(k, 'alpha', { referer: 'https://news.example/' });
  await follow(k, 'beta', { 'accept-language': 'de' });
  await k.flushVisits();
  const b = await browser(k);

  const res = await b.get('/links/alpha/stats.csv?period=7d');
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  const day = new Date(k.clock.now()).toISOString().slice(0, 10);
  const weekAgo = new Date(k.clock.now() - 6 * 86_400_000).toISOString().slice(0, 10);
  t.is(res.headers.get('content-disposition'), `attachment; filename="kurz-stats-alpha-${weekAgo}-to-${day}.csv"`);
  const rows = parse(await res.text(), { columns: true }) as Array<Record<string, string>>;
  t.deepEqual(Object.keys(rows[0]!), ['section', 'item', 'metric', 'value']);
  t.deepEqual(
    rows.filter((r) => r.section === 'totals').map((r) => [r.metric, r.value]),
    [
      ['humans', '2'],
      ['unique_visitors', '1'],
      ['bots', '0'],
    ],
  );
  t.is(rows.filter((r) => r.section === 'series_day' && r.metric === 'humans').length, 7);
  const referrers = rows.filter((r) => r.section === 'referrers').map((r) => r.item ?? '');
  t.true(referrers.includes('news.example'));
  t.true(
    referrers.every((name) => !/^[=+\-@]/.test(name ?? '')),
    'no cell starts a formula',
  );

  t.true(referrers.includes("'=cmd.example"), 'a referrer starting with = gets a leading quote');

  // A link whose code starts with - names the comparison's sections: defused too.
  await create(k, { url: 'https://example.com/c', alias: '-dash' });
  await create(k, { url: 'https://example.com/d', alias: '-minus' });
  const compared = await b.get('/stats/compare.csv?code=-dash&code=-minus&period=24h');
  t.is(compared.status, 200);
  t.is(compared.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.regex(
    compared.headers.get('content-disposition') ?? '',
    /^attachment; filename="kurz-compare--dash--minus-\d{4}-\d\d-\d\d-to-\d{4}-\d\d-\d\d\.csv"$/,
  );
  const sections = new Set((parse(await compared.text(), { columns: true }) as Array<Record<string, string>>).map((r) => r.section));
  t.true(sections.has("'-dash:totals"));
  t.true(sections.has("'-minus:series_hour"));

  const dashboard = await b.get('/stats/dashboard.csv?period=custom&from=2025-12-20&to=2026-01-15');
  t.is(dashboard.status, 200);
  t.is(dashboard.headers.get('content-disposition'), 'attachment; filename="kurz-dashboard-2025-12-20-to-2026-01-15.csv"');
  const figures = parse(await dashboard.text(), { columns: true }) as Array<Record<string, string>>;
  t.is(figures.filter((r) => r.section === 'series_day' && r.metric === 'humans').length, 27);
  t.deepEqual(
    figures.find((r) => r.section === 'totals' && r.metric === 'humans'),
    { section: 'totals', item: '', metric: 'humans', value: '3' },
  );
  t.deepEqual(
    figures.filter((r) => r.section === 'top_links' && r.metric === 'humans').map((r) => [r.item, r.value]),
    [
      ['alpha', '2'],
      ['beta', '1'],
    ],
  );
});
