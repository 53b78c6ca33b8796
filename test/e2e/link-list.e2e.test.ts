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

test("times show in the viewer's time zone with how far away they are, UTC on hover; without JavaScript, UTC", async (t) => {
  const k = await startKurz(t);
  await k.login();
  // The test's clock stands at 2026-01-15 12:00 UTC; the browser's is the machine's, later.
  const expiresAt = new Date(Date.now() + 66 * 86_400_000 + 3_600_000).toISOString();
  await k.postJson('/api/v1/links', { url: 'https://example.com/when', alias: 'when', expiresAt });
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, k, DESKTOP, { timezoneId: 'America/New_York' });
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await page.goto('/links/when');
  const created = page.locator('dt:text-is("Created") + dd time');
  t.is(await created.getAttribute('title'), '2026-01-15 12:00 UTC');
  t.regex((await created.textContent()) ?? '', /^Jan 15, 2026, 7:00\sAM \(\d+ months? ago\)$/, 'New York is five hours behind');
  const expires = page.locator('dt:text-is("Expires") + dd time');
  t.regex((await expires.textContent()) ?? '', /\(in 66 days\)$/);
  t.deepEqual(problems, []);

  const plain = await openPage(browser, k, DESKTOP, { javaScript: false, timezoneId: 'America/New_York' });
  await logIn(plain.page, 'admin', ADMIN_PASSWORD);
  await plain.page.goto('/links/when');
  t.is(await plain.page.locator('dt:text-is("Created") + dd time').textContent(), '2026-01-15 12:00 UTC');
});

test("the expiry is typed in the viewer's own time, or set by a preset, and stored in UTC; the edit form shows it back in local time", async (t) => {
  const k = await startKurz(t);
  await k.login();
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, k, DESKTOP, { timezoneId: 'America/New_York' });
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await page.locator('summary', { hasText: 'More options' }).click();
  const expiry = page.getByLabel('Expires (your time, America/New_York)');
  await expiry.fill('2027-03-01T10:00');
  await page.getByLabel('Long URL').fill('https://example.com/local');
  await page.getByRole('button', { name: 'Shorten' }).click();
  await page.waitForURL(/\/links\/\w+\?created/);
  const code = new URL(page.url()).pathname.split('/').at(-1) ?? '';
  const stored = (await (await k.get(`/api/v1/links/${code}`)).json()) as { expiresAt: string };
  t.is(stored.expiresAt, '2027-03-01T15:00:00.000Z', 'ten in the morning in New York is three in the afternoon in UTC');
  t.is(await page.getByLabel('Expires (your time, America/New_York)').inputValue(), '2027-03-01T10:00', 'the edit form, in local time');

  await page.goto('/');
  await page.locator('summary', { hasText: 'More options' }).click();
  const before = Date.now();
  await page.getByRole('button', { name: '7 days' }).click();
  const value = await page.getByLabel(/^Expires \(your time/).inputValue();
  // Read as the page reads it, in New York's time.
  const preset = await page.evaluate((local) => new Date(local).getTime(), value);
  t.true(Math.abs(preset - (before + 7 * 86_400_000)) < 120_000, 'seven days from now, to the minute');
  t.deepEqual(problems, []);
});
