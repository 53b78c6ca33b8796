import test, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { browserFor, DESKTOP, logIn, openPage, shoot, type Viewport } from './browser.ts';
import { ADMIN_PASSWORD, startKurz } from '../helpers.ts';

/**
 * The UTM builder in a real browser (Chromium): folded away at first; opened and filled, it shows the target
 * the link will get before saving (kurz.js), and the saved link has that very target; the link page's edit
 * form does the same; without JavaScript the server alone adds the values. Screenshots of the shorten form
 * and the edit form with the builder open, light and dark, desktop (1280) and phone (390), in test/e2e/screenshots/.
 */

const PHONE = { width: 390, height: 844 };

/** Opens the builder of the page's form and types the values into the fields labelled so. */
async function fillBuilder(page: Page, values: Record<string, string>): Promise<void> {
  const builder = page.locator('details[data-utm]');
  if ((await builder.getAttribute('open')) === null) await builder.locator('summary').click();
  for (const [label, value] of Object.entries(values)) await page.getByLabel(label).fill(value);
}

const preview = (page: Page) => page.locator('output#utm-preview');

/** Waits until the preview shows `url`, whole. */
async function previewShows(page: Page, url: string): Promise<void> {
  await page.waitForFunction(`document.querySelector('output#utm-preview')?.value === ${JSON.stringify(url)}`);
}

async function shortenWithUtm(t: ExecutionContext, viewport: Viewport, name: string): Promise<void> {
  const k = await startKurz(t);
  await k.login();
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, k, viewport);
  await logIn(page, 'admin', ADMIN_PASSWORD);

  t.false(await page.getByLabel('Source (utm_source)').isVisible(), 'folded away at first');
  await page.getByLabel('Long URL').fill('https://shop.example.com/spring?utm_source=old&id=7#sizes');
  await fillBuilder(page, { 'Source (utm_source)': 'newsletter', 'Medium (utm_medium)': 'email' });
  const target = 'https://shop.example.com/spring?id=7&utm_source=newsletter&utm_medium=email&utm_campaign=spring%20%26%20summer#sizes';
  await page.getByLabel('Campaign (utm_campaign)').fill('spring & summer');
  await previewShows(page, target);
  t.true(await preview(page).isVisible());
  await shoot(t, page, `${name}-form`, viewport);

  await page.getByRole('button', { name: 'Shorten' }).click();
  await page.waitForURL(/\/links\/[^/?]+\?created/);
  t.is(await page.locator('#target-url').textContent(), target, 'saved as previewed');
  const code = decodeURIComponent(/\/links\/([^/?]+)/.exec(new URL(page.url()).pathname)![1]!);
  t.is((await k.get(`/${code}`)).headers.get('location'), target);

  // The edit form (folded until asked for) starts from the whole target; a new value replaces the one of the same name.
  t.is(await page.locator('details#edit-fold').getAttribute('open'), null);
  await page.getByRole('link', { name: 'Edit link' }).click();
  await page.locator('#edit-form').waitFor();
  t.is(await page.locator('details[data-utm]').getAttribute('open'), null);
  await fillBuilder(page, { 'Source (utm_source)': 'flyer', 'Content (utm_content)': 'back page' });
  const edited =
    'https://shop.example.com/spring?id=7&utm_medium=email&utm_campaign=spring%20%26%20summer&utm_source=flyer&utm_content=back%20page#sizes';
  await previewShows(page, edited);
  await page.locator('details[data-utm]').scrollIntoViewIfNeeded();
  await shoot(t, page, `${name}-link`, viewport);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL(/\?saved/);
  t.is(await page.locator('#target-url').textContent(), edited, 'saved as previewed');
  t.deepEqual(problems, []);
}

test('desktop: the builder previews the target before saving, and the link is saved with it; screenshots', async (t) => {
  await shortenWithUtm(t, DESKTOP, 'utm-builder');
});

test('phone: the same at 390 px; screenshots', async (t) => {
  await shortenWithUtm(t, PHONE, 'utm-builder');
});

test('the preview names what is missing while the long URL is none, and hides without values', async (t) => {
  const k = await startKurz(t);
  await k.login();
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, k);
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await fillBuilder(page, { 'Term (utm_term)': 'shoes' });
  await preview(page).filter({ hasText: '(type the full long URL above' }).waitFor();
  await page.getByLabel('Long URL').fill('https://example.com/');
  await previewShows(page, 'https://example.com/?utm_term=shoes');
  await page.getByLabel('Term (utm_term)').fill('');
  await preview(page).waitFor({ state: 'hidden' });
  t.deepEqual(problems, []);
});

test('without JavaScript the builder still opens and the server adds the values', async (t) => {
  const k = await startKurz(t);
  await k.login();
  const browser = await browserFor(t);
  const { page } = await openPage(browser, k, DESKTOP, { javaScript: false });
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await page.getByLabel('Long URL').fill('https://example.com/no-script#end');
  await fillBuilder(page, { 'Source (utm_source)': 'print run', 'Term (utm_term)': 'a&b' });
  t.false(await preview(page).isVisible(), 'no preview without the script');
  await page.getByRole('button', { name: 'Shorten' }).click();
  await page.waitForURL(/\/links\/[^/?]+\?created/);
  t.is(await page.locator('#target-url').textContent(), 'https://example.com/no-script?utm_source=print%20run&utm_term=a%26b#end');
});

test('the public form has the builder too; screenshots', async (t) => {
  const k = await startKurz(t, { anonymousShortening: true });
  const browser = await browserFor(t);
  for (const viewport of [DESKTOP, PHONE]) {
    const { page, problems } = await openPage(browser, k, viewport);
    await page.goto('/');
    await page.getByLabel('Long URL').fill('https://example.com/event');
    await fillBuilder(page, { 'Source (utm_source)': 'poster', 'Campaign (utm_campaign)': 'open day' });
    await previewShows(page, 'https://example.com/event?utm_source=poster&utm_campaign=open%20day');
    await shoot(t, page, 'utm-builder-public', viewport);
    await page.getByRole('button', { name: 'Shorten' }).click();
    await page.locator('#short-url').waitFor();
    t.is(await page.locator('.result .mono').textContent(), 'https://example.com/event?utm_source=poster&utm_campaign=open%20day');
    t.deepEqual(problems, []);
  }
});
