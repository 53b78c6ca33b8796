import test, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { browserFor, DESKTOP, logIn, openPage, shoot, type Viewport } from './browser.ts';
import { ADMIN_PASSWORD, startKurz, type TestKurz } from '../helpers.ts';

/**
 * Shortening from anywhere in a real browser (Chromium): the keys page's bookmarklet, run on another site's
 * page as a bookmark runs it, shortens that page in one click and lands on the link's page with its copy
 * button and QR code; /share works without JavaScript too. Screenshots of the keys page (a new key with its
 * token, uploader and curl line; the bookmarklet) and of /share, light and dark, desktop and phone.
 */

const PHONE = { width: 390, height: 844 };

/**
 * The public URL (https://kurz.test, where the bookmarklet leads) sent on to the test's kurz, as a name
 * served by a TLS proxy in front of it would be: the browser then talks to kurz with its own cookies.
 */
async function servePublicUrl(page: Page, k: TestKurz): Promise<void> {
  await page.context().route('https://kurz.test/**', async (route) => {
    const url = new URL(route.request().url());
    await route.fulfill({ status: 307, headers: { location: k.base + url.pathname + url.search } });
  });
}

const ARTICLE = 'https://news.example.com/2026/01/a-long-article?ref=home';

async function oneClick(t: ExecutionContext, viewport: Viewport, name: string): Promise<void> {
  const k = await startKurz(t);
  await k.login();
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, k, viewport);
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await servePublicUrl(page, k);

  await page.goto('/keys');
  await page.getByLabel('Name').fill('sharex');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.waitForURL('/keys#new-key');
  t.true(await page.getByRole('button', { name: 'Copy token' }).isVisible());
  t.true(await page.getByRole('link', { name: 'Download its ShareX uploader' }).isVisible());
  await shoot(t, page, `${name}-keys`, viewport);
  const bookmarklet = (await page.getByRole('link', { name: 'Shorten with kurz' }).getAttribute('href')) ?? '';
  t.true(bookmarklet.startsWith('javascript:'));

  // Another site's page, and the bookmark clicked on it: its script runs in that page.
  await page.route('https://news.example.com/**', (route) =>
    route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>A long article</title><h1>News</h1>' }),
  );
  await page.goto(ARTICLE);
  await page.evaluate(decodeURIComponent(bookmarklet.slice('javascript:'.length)));
  await page.waitForURL(/\/links\/[^/?]+\?created$/);
  t.is(await page.locator('#target-url').textContent(), ARTICLE);
  t.true(await page.getByRole('button', { name: 'Copy short URL' }).isVisible());
  t.true(await page.locator('.qr img').isVisible());

  await page.goto(`/share?url=${encodeURIComponent('https://example.com/other page')}&title=${encodeURIComponent('Other <page>')}`);
  t.is(await page.getByLabel('Title').inputValue(), 'Other <page>');
  await shoot(t, page, `${name}-share`, viewport);
  t.deepEqual(problems, []);
}

test('the bookmarklet, the keys page and /share on a desktop', (t) => oneClick(t, DESKTOP, 'one-click'));
test('the bookmarklet, the keys page and /share on a phone', (t) => oneClick(t, PHONE, 'one-click'));

test('/share works without JavaScript: one click on Shorten, then the link page', async (t) => {
  const k = await startKurz(t);
  await k.login();
  const browser = await browserFor(t);
  const { page } = await openPage(browser, k, DESKTOP, { javaScript: false });
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await page.goto(`/share?url=${encodeURIComponent(ARTICLE)}&title=News`);
  await page.getByRole('button', { name: 'Shorten' }).click();
  await page.waitForURL(/\/links\/[^/?]+\?created$/);
  t.is(await page.locator('#target-url').textContent(), ARTICLE);
});
