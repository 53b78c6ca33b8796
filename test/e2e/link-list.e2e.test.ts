import test, { type ExecutionContext } from 'ava';
import { browserFor, DESKTOP, logIn, openPage, shoot, type Viewport } from './browser.ts';
import { ADMIN_PASSWORD, startKurz } from '../helpers.ts';

/**
 * The link list as the hub, in Chromium: a filter applies as soon as it changes (kurz.js; the Show button
 * without JavaScript), a column heading sorts by it and again the other way, several tags narrow the list
 * with "all", and the tags page renames one. Screenshots light and dark, desktop and phone.
 */

const PHONE = { width: 390, height: 844 };

async function hub(t: ExecutionContext, viewport: Viewport, name: string): Promise<void> {
  const k = await startKurz(t);
  await k.login();
  for (const [alias, tags, enabled] of [
    ['alpha', ['news', 'press'], true],
    ['bravo', ['news'], true],
    ['charlie', [], false],
  ] as const)
    await k.postJson('/api/v1/links', {
      url: `https://example.com/${alias}/a/rather/long/path/to/show/the/ellipsis`,
      alias,
      tags,
      enabled,
    });
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, k, viewport);
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await page.goto('/links');

  await page.getByLabel('State').selectOption('disabled');
  await page.waitForURL('**/links?state=disabled');
  t.is(await page.locator('td[data-label="Short link"]').count(), 1, 'applied on change, without the button');
  await page.getByLabel('State').selectOption('');
  await page.waitForURL((url) => !url.search.includes('state'));

  if (viewport.width >= DESKTOP.width) {
    await page.getByRole('link', { name: 'Short link' }).click();
    await page.waitForURL('**/links?sort=code');
    t.deepEqual(await page.locator('td[data-label="Short link"] a').allTextContents(), ['alpha', 'bravo', 'charlie']);
    await page.getByRole('link', { name: /Short link/ }).click();
    await page.waitForURL('**/links?sort=code&order=desc');
    t.is(await page.locator('th[aria-sort="descending"]').textContent(), 'Short link ↓');
  } else {
    // A phone shows the rows as cards, without the headings: the selects sort.
    await page.getByLabel('Sort by').selectOption('code');
    await page.waitForURL('**/links?sort=code');
    t.deepEqual(await page.locator('td[data-label="Short link"] a').allTextContents(), ['alpha', 'bravo', 'charlie']);
    await page.getByLabel('Order').selectOption('desc');
    await page.waitForURL('**/links?sort=code&order=desc');
  }
  t.deepEqual(await page.locator('td[data-label="Short link"] a').allTextContents(), ['charlie', 'bravo', 'alpha']);

  await page.getByLabel('Tags').selectOption(['news', 'press']);
  await page.getByLabel('With').selectOption('all');
  await page.waitForURL(/tag=news&tag=press&tagMode=all/);
  t.deepEqual(await page.locator('td[data-label="Short link"] a').allTextContents(), ['alpha']);
  await shoot(t, page, `${name}-filtered`, viewport);

  await page.getByRole('link', { name: 'Manage the tags' }).click();
  await page.getByLabel('New name for “press”').fill('media');
  await page.getByRole('button', { name: 'Rename “press”' }).click();
  await page.getByText('“press” is now “media” on 1 link.').waitFor();
  await shoot(t, page, `${name}-tags`, viewport);
  t.deepEqual(problems, []);
}

test('the link list filters on change, sorts by its headings, and its tags are managed on their page (desktop)', (t) =>
  hub(t, DESKTOP, 'link-list'));
test('the same on a phone', (t) => hub(t, PHONE, 'link-list'));
