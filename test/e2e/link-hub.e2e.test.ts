import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { browserFor, DESKTOP, logIn, openPage, shoot, type Viewport } from './browser.ts';
import { ADMIN_PASSWORD, startKurz, type TestKurz } from '../helpers.ts';

/**
 * The link list as the hub, in Chromium: each row's copy button, QR code, statistics and edit, a click on a row
 * opening its link and a tag filtering the list; the bulk form with JavaScript (select all, a dialog before a
 * deletion) and without (a "select all" link, a page that asks); the CSV of a selection. Screenshots light
 * and dark, desktop and phone.
 */

const PHONE = { width: 390, height: 844 };

/** Four links: two tagged, one with redirect rules and an A/B split, and a second domain to move them to. */
async function fixture(t: ExecutionContext): Promise<TestKurz> {
  const k = await startKurz(t);
  await k.login();
  if ((await k.postJson('/api/v1/domains', { host: 'go.kurz.test' })).status !== 201) throw new Error('adding the domain');
  const links = [
    { alias: 'alpha', tags: ['news', 'press'], title: 'Alpha launch' },
    { alias: 'bravo', tags: ['news'] },
    {
      alias: 'charlie',
      tags: [],
      split: [
        { url: 'https://example.com/charlie/a', weight: 1 },
        { url: 'https://example.com/charlie/b', weight: 1 },
      ],
    },
    { alias: 'delta', tags: ['later'] },
  ];
  for (const link of links) {
    const res = await k.postJson('/api/v1/links', {
      url: `https://example.com/${link.alias}/a/rather/long/path/that/does/not/fit/on/one/line/of/the/list?with=a&query=string`,
      ...link,
    });
    if (res.status !== 201) throw new Error(`creating ${link.alias}: ${res.status}`);
  }
  const rules = { rules: [{ conditions: [{ type: 'language', matchValue: 'de' }], target: 'https://example.com/de' }] };
  if ((await k.request('PUT', '/api/v1/links/charlie/rules', rules)).status !== 200) throw new Error('setting the rules');
  return k;
}

const row = (page: Page, code: string) => page.locator(`tr[data-href="/links/${code}"]`);
const codes = (page: Page) => page.locator('.code-line > a').allTextContents();

async function rowActions(t: ExecutionContext, viewport: Viewport, name: string): Promise<void> {
  const k = await fixture(t);
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, k, viewport);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: k.base });
  await logIn(page, 'admin', ADMIN_PASSWORD);
  const qrLoads: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/qr?')) qrLoads.push(request.url());
  });
  await page.goto('/links');
  await page.waitForLoadState('load');
  t.deepEqual(await codes(page), ['delta', 'charlie', 'bravo', 'alpha']);
  t.deepEqual(qrLoads, [], 'no QR code is fetched before its popover opens');

  // Badges: rules and the split's variants.
  t.is(
    await row(page, 'charlie')
      .locator('.badge')
      .allTextContents()
      .then((b) => b.join(' ')),
    'rules A/B ×2',
  );
  t.is(await row(page, 'alpha').locator('.badge').count(), 0);

  // The target: one line cut with an ellipsis, the whole URL on hover and in the text a screen reader reads.
  const target = row(page, 'alpha').locator('td.target span');
  const full = 'https://example.com/alpha/a/rather/long/path/that/does/not/fit/on/one/line/of/the/list?with=a&query=string';
  t.is(await target.getAttribute('title'), full);
  t.is(await target.textContent(), full);
  t.true(
    await target.evaluate(
      (el) => el.scrollWidth > el.clientWidth && el.ownerDocument.defaultView?.getComputedStyle(el).textOverflow === 'ellipsis',
    ),
  );
  const lines = await target.evaluate((el) => {
    const style = el.ownerDocument.defaultView?.getComputedStyle(el);
    return el.getBoundingClientRect().height / parseFloat(style?.fontSize ?? 'NaN');
  });
  t.true(lines < 2, `one line: ${lines} times the font size high`);

  // Copy: the clipboard holds the short URL and the button says so.
  const copy = row(page, 'alpha').getByRole('button', { name: 'Copy short URL of alpha' });
  await copy.click();
  await row(page, 'alpha').locator('button[data-copy][data-state="copied"]', { hasText: 'Copied' }).waitFor();
  t.is(await page.evaluate('navigator.clipboard.readText()'), 'https://kurz.test/alpha');
  t.is(await row(page, 'alpha').getByRole('status').textContent(), 'Copied to the clipboard.');

  // QR: a small popover with the code's image, loaded.
  await row(page, 'bravo').locator('summary').click();
  const qr = row(page, 'bravo').getByRole('img', { name: 'QR code of https://kurz.test/bravo' });
  await qr.waitFor();
  t.true(await qr.evaluate((img) => 'decode' in img && img.decode().then(() => img.naturalWidth > 0)), 'the image is decoded');
  t.deepEqual(qrLoads, [`${k.base}/api/v1/links/bravo/qr?format=svg`]);
  await shoot(t, page, `${name}-qr`, viewport);
  await row(page, 'bravo').locator('summary').click();
  t.false(await qr.isVisible(), 'a second click closes it');
  await row(page, 'bravo').locator('summary').click();
  await qr.waitFor();
  await page.keyboard.press('Escape');
  await qr.waitFor({ state: 'hidden' });
  t.true(
    await row(page, 'bravo')
      .locator('summary')
      .evaluate((summary) => summary.ownerDocument.activeElement === summary),
    'Escape closes it, focus back on its button',
  );

  // Statistics and edit lead to their pages.
  await row(page, 'alpha').getByRole('link', { name: 'Stats of alpha' }).click();
  await page.waitForURL('**/links/alpha/stats');
  await page.goBack();
  await row(page, 'alpha').getByRole('link', { name: 'Edit alpha' }).click();
  await page.waitForURL('**/links/alpha#edit-form');
  await page.locator('#edit-form').waitFor();
  t.true(await page.getByRole('button', { name: 'Save changes' }).isVisible(), 'the folded edit form opens');
  await page.goBack();

  // A click anywhere in a row that is not a control opens the link; the code stays a real link for the keyboard.
  await row(page, 'bravo')
    .locator(viewport.width >= DESKTOP.width ? 'td.num' : 'td.target')
    .click();
  await page.waitForURL('**/links/bravo');
  await page.goBack();
  await page.waitForURL('**/links');
  t.is(await row(page, 'bravo').getByRole('link', { name: 'bravo', exact: true }).getAttribute('href'), '/links/bravo');
  // Ticking a row's box does not open it.
  await row(page, 'bravo').getByRole('checkbox', { name: 'Select bravo' }).check();
  t.true(page.url().endsWith('/links'));

  // A tag is the list filtered by it.
  await row(page, 'bravo').getByRole('link', { name: 'Links tagged news' }).click();
  await page.waitForURL('**/links?tag=news');
  t.deepEqual(await codes(page), ['bravo', 'alpha']);
  await page.goto('/links');
  await shoot(t, page, name, viewport);
  t.deepEqual(problems, []);
}

test('each row of the list copies its short URL, opens its QR code, statistics and edit form, opens its link on a click, and its tags filter the list (desktop)', (t) =>
  rowActions(t, DESKTOP, 'link-hub'));
test('the same on a phone, where each link is a compact card', (t) => rowActions(t, PHONE, 'link-hub'));

test('with JavaScript: select all, disable, enable, tag, move, export the selection and delete after a dialog', async (t) => {
  const k = await fixture(t);
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, k, DESKTOP);
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await page.goto('/links?sort=code');

  await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
  t.is(await page.locator('[data-bulk-count]').textContent(), '4 links selected:');
  await page.getByRole('checkbox', { name: 'Select delta' }).uncheck();
  t.is(await page.locator('[data-bulk-count]').textContent(), '3 links selected:');
  t.true(
    await page
      .getByRole('checkbox', { name: 'Select all on this page' })
      .evaluate((box) => 'indeterminate' in box && box.indeterminate === true),
  );
  await page.getByRole('button', { name: 'Disable' }).click();
  await page.getByText('3 links disabled').waitFor();
  t.true(page.url().endsWith('/links?sort=code&done=disabled&links=3'), 'back to the same list');
  t.deepEqual(await page.locator('.state').allTextContents(), ['disabled', 'disabled', 'disabled', 'active']);
  await shoot(t, page, 'link-hub-bulk-done', DESKTOP);

  await page.getByRole('checkbox', { name: 'Select alpha' }).check();
  await page.getByRole('button', { name: 'Enable' }).click();
  await page.getByText('1 link enabled.').waitFor();
  t.deepEqual(await page.locator('.state').allTextContents(), ['active', 'disabled', 'disabled', 'active']);

  await page.getByRole('checkbox', { name: 'Select bravo' }).check();
  await page.getByRole('checkbox', { name: 'Select delta' }).check();
  await page.getByLabel('Tag to add or remove').fill('campaign');
  await page.getByRole('button', { name: 'Add tag' }).click();
  await page.getByText('Tag “campaign” added to 2 links.').waitFor();
  t.deepEqual(await row(page, 'delta').locator('.tag').allTextContents(), ['campaign', 'later']);
  await page.getByRole('checkbox', { name: 'Select delta' }).check();
  await page.getByLabel('Tag to add or remove').fill('later');
  await page.getByRole('button', { name: 'Remove tag' }).click();
  await page.getByText('Tag “later” removed from 1 link.').waitFor();
  t.deepEqual(await row(page, 'delta').locator('.tag').allTextContents(), ['campaign']);

  await page.getByRole('checkbox', { name: 'Select delta' }).check();
  await page.getByLabel('Move to').selectOption('go.kurz.test');
  await page.getByRole('button', { name: 'Move', exact: true }).click();
  await page.getByText('1 link moved to go.kurz.test.').waitFor();
  t.is(await page.locator('tr[data-href="/links/delta?domain=go.kurz.test"] .short-host').textContent(), 'https://go.kurz.test/delta');

  // The CSV of the selection, as a download.
  await page.getByRole('checkbox', { name: 'Select alpha' }).check();
  await page.getByRole('checkbox', { name: 'Select bravo' }).check();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  t.is(download.suggestedFilename(), 'kurz-links-2026-01-15-2.csv');
  const csv = readFileSync((await download.path()) ?? '', 'utf8')
    .trim()
    .split('\n');
  t.true(csv[0]?.startsWith('code,url,isAlias,createdAt'));
  t.deepEqual(
    csv.slice(1).map((line) => line.split(',')[0]),
    ['alpha', 'bravo'],
  );

  // Delete asks in a dialog first; "Keep them" keeps them, "Delete for good" deletes.
  await page.getByRole('button', { name: 'Delete…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete 2 links?' });
  await dialog.waitFor();
  await shoot(t, page, 'link-hub-delete-dialog', DESKTOP);
  await dialog.getByRole('button', { name: 'Keep them' }).click();
  t.false(await dialog.isVisible());
  t.deepEqual(await codes(page), ['alpha', 'bravo', 'charlie', 'delta'], 'nothing deleted');
  await page.getByRole('button', { name: 'Delete…' }).click();
  await dialog.getByRole('button', { name: 'Delete for good' }).click();
  await page.getByText('2 links deleted: their short URLs now answer “410 Gone”.').waitFor();
  t.deepEqual(await codes(page), ['charlie', 'delta']);
  t.is((await fetch(`${k.base}/alpha`, { redirect: 'manual' })).status, 410);
  t.deepEqual(problems, []);
});

test('without JavaScript: tick rows or "select all on this page", act with a button, and a page asks before deleting', async (t) => {
  const k = await fixture(t);
  const browser = await browserFor(t);
  for (const viewport of [DESKTOP, PHONE]) {
    const { page } = await openPage(browser, k, viewport, { javaScript: false });
    await logIn(page, 'admin', ADMIN_PASSWORD);
    await page.goto('/links?sort=code');
    await page.getByRole('link', { name: 'select all on this page' }).click();
    await page.waitForURL('**/links?sort=code&select=all');
    t.is(await page.locator('input[name="link"]:checked').count(), await page.locator('input[name="link"]').count());
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.waitForURL(/done=disabled/);
    t.regex((await page.getByRole('status').first().textContent()) ?? '', /^\d links disabled/);
    await page.getByRole('link', { name: 'select all on this page' }).click();
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.waitForURL(/done=enabled/);
    await shoot(t, page, 'link-hub-nojs', viewport);
  }
  const { page } = await openPage(browser, k, DESKTOP, { javaScript: false });
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await page.goto('/links?tag=news');
  await page.getByRole('checkbox', { name: 'Select alpha' }).check();
  await page.getByRole('checkbox', { name: 'Select bravo' }).check();
  await page.getByLabel('Tag to add or remove').fill('kept');
  await page.getByRole('button', { name: 'Add tag' }).click();
  await page.getByText('Tag “kept” added to 2 links.').waitFor();
  await page.getByRole('checkbox', { name: 'Select bravo' }).check();
  await page.getByLabel('Move to').selectOption('go.kurz.test');
  await page.getByRole('button', { name: 'Move', exact: true }).click();
  await page.getByText('1 link moved to go.kurz.test.').waitFor();

  await page.getByRole('checkbox', { name: 'Select alpha' }).check();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  t.is(download.suggestedFilename(), 'kurz-links-2026-01-15-1.csv');

  await page.getByRole('checkbox', { name: 'Select alpha' }).check();
  await page.getByRole('button', { name: 'Delete…' }).click();
  await page.getByRole('heading', { name: 'Delete 1 link?' }).waitFor();
  await shoot(t, page, 'link-hub-delete-page', DESKTOP);
  const phone = await openPage(browser, k, PHONE, { javaScript: false });
  await logIn(phone.page, 'admin', ADMIN_PASSWORD);
  await phone.page.goto('/links?tag=news');
  await phone.page.getByRole('checkbox', { name: 'Select alpha' }).check();
  await phone.page.getByRole('button', { name: 'Delete…' }).click();
  await phone.page.getByRole('heading', { name: 'Delete 1 link?' }).waitFor();
  await shoot(t, phone.page, 'link-hub-delete-page', PHONE);

  await page.getByRole('button', { name: 'Delete it for good' }).click();
  await page.waitForURL('**/links?tag=news&done=deleted&links=1');
  await page.getByText('1 link deleted').waitFor();
  t.is((await fetch(`${k.base}/alpha`, { redirect: 'manual' })).status, 410);
});
