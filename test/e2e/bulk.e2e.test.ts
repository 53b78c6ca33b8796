import { readFile } from 'node:fs/promises';
import test, { type ExecutionContext } from 'ava';
import { browserFor, DESKTOP, logIn, openPage, shoot, type Viewport } from './browser.ts';
import { ADMIN_PASSWORD, startKurz } from '../helpers.ts';

/**
 * Bulk shortening in Chromium: a batch with tags and an expiry picked from a preset, one line failing, so
 * the summary turns amber; every short URL copied at once; the results downloaded as CSV; short URLs on one
 * line at 390 px. Screenshots light and dark, desktop and phone (bulk-results-*).
 */

const PHONE = { width: 390, height: 844 };

async function bulk(t: ExecutionContext, viewport: Viewport): Promise<void> {
  const k = await startKurz(t);
  await k.login();
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, k, viewport);
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await page.goto('/import');
  await page
    .getByLabel('URLs, one per line')
    .fill(['https://example.com/one', 'ftp://example.com/nope', 'https://example.com/two'].join('\n'));
  await page.getByLabel('Tags').fill('launch');
  await page.getByRole('button', { name: '7 days' }).click();
  await page.getByRole('button', { name: 'Shorten all' }).click();

  const summary = page.locator('#bulk-summary');
  await summary.waitFor();
  t.is(await summary.getAttribute('class'), 'notice warn');
  t.regex((await summary.textContent()) ?? '', /^2 created, 0 already shortened, 1 failed\./);
  const colourOf = (classes: string) =>
    page.evaluate(
      `(() => { const p = document.createElement('p'); p.className = '${classes}'; document.body.append(p); const c = getComputedStyle(p).borderTopColor; p.remove(); return c; })()`,
    );
  const [amber, green] = [await colourOf('notice warn'), await colourOf('notice')];
  t.not(amber, green, 'the summary is not the all-well green');
  t.regex((await page.locator('#results tbody tr').nth(1).textContent()) ?? '', /Long URL must use http or https, not ftp/);

  const shortLinks = page.locator('td.short-cell a');
  t.is(await shortLinks.count(), 2);
  const lines = (await page.evaluate(
    `[...document.querySelectorAll('td.short-cell a')].map((a) => a.getClientRects().length)`,
  )) as number[];
  t.deepEqual(lines, [1, 1], 'each short URL on one line (one box each)');
  const codes = (await shortLinks.allTextContents()).map((u) => u.split('/').pop() ?? '');
  for (const code of codes)
    t.like(await (await k.get(`/api/v1/links/${code}`)).json(), { tags: ['launch'] }, 'the batch tag on every link');
  const expiry = ((await (await k.get(`/api/v1/links/${codes[0]}`)).json()) as { expiresAt: string }).expiresAt;
  const days = (Date.parse(expiry) - Date.now()) / 86_400_000;
  t.true(days > 6.9 && days < 7.01, `the 7-day preset: ${days.toFixed(3)} days`);

  await page.getByRole('button', { name: 'Copy all short URLs' }).click();
  await page
    .locator('#copy-all-status')
    .filter({ hasText: /Copied/ })
    .waitFor();

  const download = page.waitForEvent('download');
  await page.locator('#results-csv').click();
  const file = await download;
  t.regex(file.suggestedFilename(), /^kurz-bulk-\d{4}-\d\d-\d\dT\d{4}Z\.csv$/);
  const csv = (await readFile((await file.path()) ?? '', 'utf8')).trim().split('\n');
  t.is(csv[0], 'line,url,result,reason,short_url');
  t.is(csv.length, 4);
  t.true(csv[3]?.endsWith(`/${codes[1]}`));
  t.is(await page.getByLabel('URLs, one per line').inputValue(), 'ftp://example.com/nope', 'the failed line back in the form');
  await shoot(t, page, 'bulk-results', viewport);
  t.deepEqual(problems, []);
}

test('desktop: a batch with tags and an expiry, one line failing: amber summary, copy all, CSV; screenshots', async (t) => {
  await bulk(t, DESKTOP);
});

test('phone: the same at 390 px, short URLs unbroken; screenshots', async (t) => {
  await bulk(t, PHONE);
});
