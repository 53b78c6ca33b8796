import test, { type ExecutionContext } from 'ava';
import { browserFor, DESKTOP, logIn, openPage, shoot, type Viewport } from './browser.ts';
import { ADMIN_PASSWORD, startKurz } from '../helpers.ts';

/**
 * A link's start time and crawlable flag in Chromium: set in the dashboard's options (the start typed in the
 * viewer's own time, stored in UTC), shown on the link's page and as the list's "scheduled" badge, and the same
 * without JavaScript (UTC). Screenshots light and dark, desktop and phone.
 */

const PHONE = { width: 390, height: 844 };

async function schedule(t: ExecutionContext, viewport: Viewport): Promise<void> {
  const k = await startKurz(t);
  await k.login();
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, k, viewport, { timezoneId: 'America/New_York' });
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await page.locator('summary', { hasText: 'More options' }).click();
  await page.getByLabel('Starts (your time, America/New_York)').fill('2027-03-01T10:00');
  await page.getByLabel(/^Crawlable/).check();
  await page.getByLabel('Long URL').fill('https://example.com/launch');
  await shoot(t, page, 'scheduled-form', viewport);
  await page.getByRole('button', { name: 'Shorten' }).click();
  await page.waitForURL(/\/links\/\w+\?created/);
  const code = new URL(page.url()).pathname.split('/').at(-1) ?? '';
  const stored = (await (await k.get(`/api/v1/links/${code}`)).json()) as { startsAt: string; crawlable: boolean };
  t.is(stored.startsAt, '2027-03-01T15:00:00.000Z', 'ten in the morning in New York is three in the afternoon in UTC');
  t.true(stored.crawlable);
  t.is(await page.locator('dt:text-is("Crawlable") + dd').textContent(), 'yes (robots.txt allows it while the link is live)');
  t.regex((await page.locator('dt:text-is("Starts") + dd time').textContent()) ?? '', /^Mar 1, 2027, 10:00\sAM/);
  await shoot(t, page, 'scheduled-link', viewport);
  await page.goto('/links');
  t.is(await page.locator('.state-scheduled').first().textContent(), 'scheduled');
  await shoot(t, page, 'scheduled-list', viewport);
  t.deepEqual(problems, []);

  const plain = await openPage(browser, k, viewport, { javaScript: false });
  await logIn(plain.page, 'admin', ADMIN_PASSWORD);
  await plain.page.goto(`/links/${code}`);
  t.is(await plain.page.locator('dt:text-is("Starts") + dd time').textContent(), '2027-03-01 15:00 UTC');
}

test("a start time typed in the viewer's time and crawlable are set from the dashboard and shown on the link and in the list", (t) =>
  schedule(t, DESKTOP));
test('the same on a phone', (t) => schedule(t, PHONE));
