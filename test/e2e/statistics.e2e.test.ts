import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { browserFor, DESKTOP, logIn, openPage, shoot, type Viewport } from './browser.ts';
import { ADMIN_PASSWORD, BROWSER_UA, startKurz, tempDir, type TestKurz } from '../helpers.ts';
import { buildCountryMmdb } from '../support/mmdb.ts';

/**
 * The statistics pages in Chromium (issue 27): the period picker with and without JavaScript, the bars
 * beside every breakdown, the countries' map (a GeoIP database of the test's own) or the hint without
 * one, the comparison of links, the CSV downloads, the link page's "Visits (N) →" button with its trend,
 * and the dashboard's height on a phone. Screenshots light and dark at 1280 and 390 px.
 */

const PHONE = { width: 390, height: 844 };
const DAY = 86_400_000;
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

/** A country database: 203.0.113.0/25 in DE, 203.0.113.128/25 in JP, 198.51.100.0/24 in BR. */
function countryDatabase(dir: string): string {
  const path = join(dir, 'countries.mmdb');
  writeFileSync(
    path,
    buildCountryMmdb([
      { network: '203.0.113.0/25', country: 'DE' },
      { network: '203.0.113.128/25', country: 'JP' },
      { network: '198.51.100.0/24', country: 'BR' },
    ]),
  );
  return path;
}

async function create(k: TestKurz, alias: string): Promise<void> {
  const res = await k.postJson('/api/v1/links', { url: `https://example.com/${alias}`, alias, title: `The ${alias} post` });
  if (res.status !== 201) throw new Error(`create: ${res.status}`);
}

/** A visit to `code` from `address` (through the trusted proxy's header) with `ua`. */
async function visit(
  k: TestKurz,
  code: string,
  address: string,
  ua = BROWSER_UA,
  referer = 'https://news.example.org/item',
): Promise<void> {
  const res = await fetch(`${k.base}/${code}`, { redirect: 'manual', headers: { 'user-agent': ua, 'x-forwarded-for': address, referer } });
  await res.arrayBuffer();
}

/**
 * kurz with links "launch" and "sale": launch visited 6 times (DE 3, JP 2, BR 1: 4 of them with Chrome, 2 with
 * Firefox) spread over the last 10 days, sale 2 times today; with a GeoIP database unless `geoip` is false.
 */
async function seeded(t: ExecutionContext, geoip = true): Promise<TestKurz> {
  const k = await startKurz(t, {
    trustedProxies: '127.0.0.1',
    clientAddressHeader: 'x-forwarded-for',
    ...(geoip ? { geoipDatabase: countryDatabase(tempDir(t)) } : {}),
  });
  await k.login();
  await create(k, 'launch');
  await create(k, 'sale');
  k.clock.advance(-10 * DAY);
  const launch: Array<[string, string]> = [
    ['203.0.113.1', BROWSER_UA],
    ['203.0.113.2', FIREFOX],
    ['203.0.113.3', BROWSER_UA],
    ['203.0.113.130', BROWSER_UA],
    ['203.0.113.131', FIREFOX],
    ['198.51.100.7', BROWSER_UA],
  ];
  for (const [address, ua] of launch) {
    await visit(k, 'launch', address, ua);
    await k.flushVisits();
    k.clock.advance(DAY + 3_600_000);
  }
  k.clock.advance(10 * DAY - 6 * (DAY + 3_600_000));
  await visit(k, 'sale', '203.0.113.4');
  await visit(k, 'sale', '203.0.113.5', FIREFOX);
  await k.flushVisits();
  return k;
}

async function session(t: ExecutionContext, k: TestKurz, viewport: Viewport = DESKTOP, javaScript = true) {
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, k, viewport, { javaScript });
  await logIn(page, 'admin', ADMIN_PASSWORD);
  return { page, problems };
}

/** A top list's rows as [name, the bar's length of 100, the share as written]. */
const barRows = (page: Page, id: string) =>
  page
    .locator(`#top-${id} tbody tr`)
    .evaluateAll((rows) =>
      rows.map((r) => [
        r.querySelector('th')?.textContent,
        r.querySelector('rect.share-fill')?.getAttribute('width'),
        r.lastElementChild?.textContent,
      ]),
    );

const chartTitle = (page: Page) => page.locator('#chart-heading + figure svg > title').textContent();

test.serial('the period picker works without JavaScript: a form and its Show button, the choice in the URL', async (t) => {
  const k = await seeded(t);
  const { page, problems } = await session(t, k, DESKTOP, false);
  await page.goto('/links/launch/stats');
  t.is(await chartTitle(page), 'Human visits per day, last 30 days (UTC)');
  t.is(await page.locator('#figure-humans').textContent(), '6');
  await page.getByRole('combobox', { name: 'Period' }).selectOption('24h');
  t.regex(page.url(), /\/links\/launch\/stats$/, 'nothing applies before Show without JavaScript');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL(/period=24h/);
  t.is(await chartTitle(page), 'Human visits per hour, last 24 hours (UTC)');
  t.is(await page.locator('#figure-humans').textContent(), '0');

  // Custom days: two days by the hour; the URL is the bookmark.
  const today = new Date(k.clock.now()).toISOString().slice(0, 10);
  const yesterday = new Date(k.clock.now() - DAY).toISOString().slice(0, 10);
  await page.getByRole('combobox', { name: 'Period' }).selectOption('custom');
  await page.locator('#period-from').fill(yesterday);
  await page.locator('#period-to').fill(today);
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL(new RegExp(`period=custom&from=${yesterday}&to=${today}`));
  t.is(await chartTitle(page), `Human visits per hour, ${yesterday} to ${today} (UTC)`);
  t.is(await page.locator('#chart-heading + figure rect.chart-bar').count(), 0);
  t.regex((await page.locator('#chart-heading + figure svg > desc').textContent()) ?? '', /48 hours/);

  t.deepEqual(problems, []);
  // Backwards: a 400 page that says so (the browser logs the 400 as a failed load).
  await page.locator('#period-from').fill(today);
  await page.locator('#period-to').fill(yesterday);
  const [answer] = await Promise.all([page.waitForResponse(/stats\?/), page.getByRole('button', { name: 'Show' }).click()]);
  t.is(answer.status(), 400);
  await t.notThrowsAsync(page.getByText(`to (${yesterday}) must not be before from (${today})`).waitFor());
  t.deepEqual(problems, ['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
});

test.serial('with JavaScript a preset applies as soon as it is chosen, and custom days once both are set', async (t) => {
  const k = await seeded(t);
  const { page, problems } = await session(t, k);
  await page.goto('/');
  t.is(await page.locator('#figure-period-humans').textContent(), '8');
  t.deepEqual(
    await page.getByRole('combobox', { name: 'Period' }).locator('option').allTextContents(),
    ['Last 24 hours', 'Last 7 days', 'Last 14 days', 'Last 30 days', 'Last 90 days', 'Custom days'],
    'the dashboard offers the last 24 hours too',
  );
  await page.getByRole('combobox', { name: 'Period' }).selectOption('7d');
  await page.waitForURL(/\/\?period=7d$/);
  // The launch visits of the last 7 days (the 5th and 6th were 5 and 4 days before today... see seeded) and today's two.
  t.is(await page.locator('#activity').textContent(), 'Last 7 days');
  t.is(await page.locator('#dashboard-days-desc').count(), 1);
  const week = Number(await page.locator('#figure-period-humans').textContent());
  t.true(week >= 2 && week < 8, `the last 7 days hold fewer visits than 14 (${week})`);

  await page.goto('/links/launch/stats?period=90d');
  const today = new Date(k.clock.now()).toISOString().slice(0, 10);
  const start = new Date(k.clock.now() - 12 * DAY).toISOString().slice(0, 10);
  await page.locator('#period-from').fill(start);
  t.regex(page.url(), /period=90d$/, 'one date alone waits for the other');
  await page.locator('#period-to').fill(today);
  await page.waitForURL(new RegExp(`period=custom&from=${start}&to=${today}$`));
  t.is(await chartTitle(page), `Human visits per day, ${start} to ${today} (UTC)`);
  t.is(await page.locator('#figure-humans').textContent(), '6');
  t.deepEqual(problems, []);
});

test.serial('every breakdown has a bar as long as its share; the number stays text; the map colours the countries', async (t) => {
  const k = await seeded(t);
  for (const viewport of [DESKTOP, PHONE]) {
    const { page, problems } = await session(t, k, viewport);
    await page.goto('/links/launch/stats');
    for (const id of ['referrers', 'browsers', 'os', 'devices', 'countries', 'languages']) {
      const rows = page.locator(`#top-${id} tbody tr`);
      t.is(await page.locator(`#top-${id} svg.share-bar`).count(), await rows.count(), `a bar on each row of ${id}`);
    }
    // Chrome 4 of 6, Firefox 2 of 6: the bars are 66.67 and 33.33 of 100 units, and the table says 67% and 33%.
    t.deepEqual(await barRows(page, 'browsers'), [
      ['Chrome', '66.67', '67%'],
      ['Firefox', '33.33', '33%'],
    ]);
    t.is(await page.locator('#top-browsers svg.share-bar').first().getAttribute('aria-hidden'), 'true');
    t.regex(
      (await page.locator('#top-countries').textContent()) ?? '',
      /Germany \(DE\)\s*3\s*50%[\s\S]*Japan \(JP\)\s*2[\s\S]*Brazil \(BR\)\s*1/,
    );
    // The map: the busiest country darkest, each with its name and count.
    const map = page.locator('svg.world-map');
    t.is(await map.getAttribute('role'), 'img');
    t.is(await map.locator('path[data-country="DE"] > title').textContent(), 'Germany: 3 visits');
    t.is(await map.locator('path[data-country="BR"] > title').textContent(), 'Brazil: 1 visit');
    t.is(await map.locator('path[data-country="FR"] > title').textContent(), 'France: 0 visits');
    t.regex((await map.locator('path[data-country="DE"]').getAttribute('class')) ?? '', /map-5/);
    t.regex((await map.locator('path[data-country="BR"]').getAttribute('class')) ?? '', /map-3/);
    t.regex((await map.locator('path[data-country="FR"]').getAttribute('class')) ?? '', /map-0/);
    t.regex((await map.locator('desc').textContent()) ?? '', /Germany 3, Japan 2, Brazil 1/);
    const box = await map.boundingBox();
    t.true(box !== null && box.width <= viewport.width && box.width > viewport.width * 0.7, 'the map fills the width');
    t.is(await page.locator('#geo-hint').count(), 0);
    await shoot(t, page, 'statistics-link', viewport);
    t.deepEqual(problems, []);
  }
});

test.serial('a link with rules: its visits by the rule that decided, with bars, and a way to its rule editor', async (t) => {
  const k = await seeded(t);
  await create(k, 'routed');
  const rules = [
    { conditions: [{ type: 'geolocation-country-code', matchValue: 'de' }], target: 'https://example.de/routed' },
    { conditions: [{ type: 'geolocation-country-code', matchValue: 'BR' }], refuse: 451 },
  ];
  t.is((await k.request('PUT', '/api/v1/links/routed/rules', { rules })).status, 200);
  for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.130']) await visit(k, 'routed', address);
  // Refused: no visit, so no entry for its rule.
  await visit(k, 'routed', '198.51.100.7');
  await k.flushVisits();
  for (const viewport of [DESKTOP, PHONE]) {
    const { page, problems } = await session(t, k, viewport);
    await page.goto('/links/routed/stats');
    t.deepEqual(await barRows(page, 'rules'), [
      ['country is DE', '75', '75%'],
      ['no rule matched', '25', '25%'],
    ]);
    await shoot(t, page, 'statistics-rules', viewport);
    await page.locator('#rules-heading + p').getByRole('link', { name: 'rules' }).click();
    await page.waitForURL(/\/links\/routed#rule-editor$/);
    t.not(await page.locator('details#rule-editor').getAttribute('open'), null, 'the rule editor opens');
    t.deepEqual(problems, []);
  }
});

test.serial('without a GeoIP database: no map and no "unknown 100 %", a hint naming the setting, the variable and the flag', async (t) => {
  const k = await seeded(t, false);
  for (const viewport of [DESKTOP, PHONE]) {
    const { page, problems } = await session(t, k, viewport);
    await page.goto('/links/launch/stats');
    const hint = (await page.locator('#geo-hint').textContent()) ?? '';
    for (const name of ['geoipDatabase', 'KURZ_GEOIP_DATABASE', '--geoip-database']) t.true(hint.includes(name), name);
    t.is(await page.locator('#top-countries').count(), 0);
    t.is(await page.locator('svg.world-map').count(), 0);
    await shoot(t, page, 'statistics-no-geoip', viewport);
    t.deepEqual(problems, []);
  }
});

test.serial("the comparison: from a link's stats page, two links on one chart with a legend, and its CSV", async (t) => {
  const k = await seeded(t);
  for (const viewport of [DESKTOP, PHONE]) {
    const { page, problems } = await session(t, k, viewport);
    await page.goto('/links/launch/stats?period=14d');
    await page.getByRole('textbox', { name: /^Compare with/ }).fill('sale');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL(/\/stats\/compare\?code=launch&period=14d&code=sale/);
    t.is(await page.getByLabel('Link 1', { exact: true }).inputValue(), 'launch');
    t.is(await page.getByLabel('Link 2', { exact: true }).inputValue(), 'sale');
    t.is(await page.locator('svg.line-chart g.series').count(), 2);
    t.deepEqual(await page.locator('svg.line-chart g.series > title').allTextContents(), [
      'launch: 6 human visits',
      'sale: 2 human visits',
    ]);
    const legend = await page.locator('#legend li').allTextContents();
    t.regex(legend[0] ?? '', /launch: 6 visits/);
    t.regex(legend[1] ?? '', /sale: 2 visits/);
    await shoot(t, page, 'statistics-compare', viewport);
    // With JavaScript the comparison's own picker applies at once, the codes kept.
    await page.getByRole('combobox', { name: 'Period' }).selectOption('24h');
    await page.waitForURL(/code=launch&code=sale&period=24h/);
    t.deepEqual(await page.locator('svg.line-chart g.series > title').allTextContents(), [
      'launch: 0 human visits',
      'sale: 2 human visits',
    ]);
    t.deepEqual(problems, []);
  }
  const { page } = await session(t, k);
  await page.goto('/stats/compare?code=launch');
  await t.notThrowsAsync(page.getByText('compare at least two links').waitFor());
  await page.goto('/stats/compare?code=launch&code=nothing');
  await t.notThrowsAsync(page.getByText('no link has the code "nothing"').waitFor());
});

test.serial('the CSV downloads of the stats page, the comparison and the dashboard hold what the pages show', async (t) => {
  const k = await seeded(t);
  const { page } = await session(t, k);
  const download = async (path: string) => {
    await page.goto(path);
    const [file] = await Promise.all([page.waitForEvent('download'), page.locator('#csv-link').click()]);
    return { name: file.suggestedFilename(), text: readFileSync((await file.path())!, 'utf8') };
  };
  const today = new Date(k.clock.now()).toISOString().slice(0, 10);
  const link = await download('/links/launch/stats?period=30d');
  t.regex(link.name, new RegExp(`^kurz-stats-launch-\\d{4}-\\d\\d-\\d\\d-to-${today}\\.csv$`));
  t.true(link.text.startsWith('section,item,metric,value\n'));
  t.true(link.text.includes('\ncountries,DE,visits,'), 'the breakdowns');
  t.is(link.text.match(/\nseries_day,[^,]+,humans,/g)?.length, 30, 'a row a day of the 30');
  const compared = await download('/stats/compare?code=launch&code=sale&period=30d');
  t.regex(compared.name, /^kurz-compare-launch-sale-.*\.csv$/);
  t.true(compared.text.includes('\nlaunch:totals,,humans,6\n'));
  t.true(compared.text.includes('\nsale:totals,,humans,2\n'));
  const dashboard = await download('/?period=30d');
  t.regex(dashboard.name, /^kurz-dashboard-.*\.csv$/);
  t.true(dashboard.text.includes('\ntotals,,humans,8\n'));
  t.true(dashboard.text.includes('\ntop_links,launch,humans,6\n'));
});

test.serial('the link page: "Visits (N) →" beside a trend line of the last 30 days, leading to the stats', async (t) => {
  const k = await seeded(t);
  for (const viewport of [DESKTOP, PHONE]) {
    const { page, problems } = await session(t, k, viewport);
    await page.goto('/links/launch');
    const button = page.locator('#visits-button');
    t.is(await button.textContent(), 'Visits (6) →');
    const trend = page.locator('.trend-row svg.trend');
    t.is(await trend.getAttribute('aria-hidden'), 'true');
    // 30 days, six of them with a visit: the line climbs off the baseline six times.
    const d = (await trend.locator('path.trend-line').getAttribute('d')) ?? '';
    t.is(d.match(/[ML]/g)?.length, 30);
    await shoot(t, page, 'statistics-link-page', viewport);
    await button.click();
    await page.waitForURL(/\/links\/launch\/stats$/);
    t.deepEqual(problems, []);
  }
});

test.serial('the dashboard fits a few phone screens: the per-day rows fold away, the chart and top links stay', async (t) => {
  const k = await seeded(t);
  for (let i = 0; i < 8; i++) await create(k, `more${i}`);
  for (const viewport of [DESKTOP, PHONE]) {
    const { page, problems } = await session(t, k, viewport);
    await page.goto('/');
    t.log(
      `dashboard at ${viewport.width} px, 14 days: ${(await page.evaluate('document.documentElement.scrollHeight')) as number} px tall`,
    );
    t.regex((await page.locator('main').textContent()) ?? '', /The 5 newest links/, 'a few latest links; the list has them all');
    await page.goto('/?period=90d');
    const details = page.locator('details#per-day');
    t.is(await details.getAttribute('open'), null, 'the per-day table is folded');
    t.is(await details.locator('tbody tr').count(), 90);
    t.true(await page.locator('#top-links svg.share-bar').first().isVisible());
    const height = (await page.evaluate('document.documentElement.scrollHeight')) as number;
    t.log(`dashboard at ${viewport.width} px, 90 days: ${height} px tall`);
    await shoot(t, page, 'statistics-dashboard', viewport);
    if (viewport === PHONE) t.true(height < 3.5 * 844, `three and a half screens at most (${height} px)`);
    await details.locator('summary').click();
    t.true(await details.locator('tbody tr').first().isVisible());
    t.deepEqual(problems, []);
  }
});
