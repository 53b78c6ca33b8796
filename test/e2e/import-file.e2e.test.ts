import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import test, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { browserFor, DESKTOP, logIn, openPage, shoot, type Viewport } from './browser.ts';
import { ADMIN_PASSWORD, startKurz } from '../helpers.ts';

/**
 * Importing another shortener's file in Chromium, without JavaScript: choose the source, upload a Shlink
 * export, read the preview (one line skipped: a code kurz has with another URL), confirm, read the result.
 * Screenshots light and dark, desktop and phone (import-form-*, import-preview-*, import-done-*); the same
 * flow with JavaScript on runs axe-core over the preview and the result, light and dark.
 */

const PHONE = { width: 390, height: 844 };

/** axe-core's serious and critical findings (WCAG A and AA, best practices) on the page, light and dark. */
async function axeProblems(page: Page, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
    for (const v of violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'))
      found.push(`${name} (${colorScheme}): ${v.id} ${v.help}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}
const EXPORT = join(import.meta.dirname, '..', 'fixtures', 'import', 'shlink-export.csv');

async function importFile(t: ExecutionContext, viewport: Viewport, javaScript: boolean): Promise<void> {
  t.timeout(120_000);
  const k = await startKurz(t, { publicUrl: 'https://s.example' });
  await k.login();
  t.is((await k.postJson('/api/v1/domains', { host: 'go.example' })).status, 201);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/mine', alias: 'abc123' })).status, 201);
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, k, viewport, { javaScript });
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await page.goto('/import#import-file');
  await page.getByLabel('From').selectOption('shlink');
  await page.getByLabel('File', { exact: true }).setInputFiles(EXPORT);
  if (!javaScript) await shoot(t, page, 'import-form', viewport);
  await page.getByRole('button', { name: 'Preview the import' }).click();

  const summary = page.locator('#import-summary');
  await summary.waitFor();
  t.is(
    await summary.textContent(),
    'shlink-export.csv, read as Shlink (CSV): 2 links will be imported, 2 skipped. Nothing is stored until you confirm.',
  );
  const rows = page.locator('#import-lines tbody tr');
  t.is(await rows.count(), 4);
  t.regex(
    (await rows.nth(0).textContent()) ?? '',
    /skip\s+code "abc123" already exists here with another URL \(https:\/\/example\.com\/mine\)/,
  );
  t.regex((await rows.nth(1).textContent()) ?? '', /skip\s+cannot be a code here: "docs" is reserved/);
  t.regex((await rows.nth(3).textContent()) ?? '', /guide\s*https:\/\/docs\.example\.com\/guide\s*import/);
  if (javaScript) t.deepEqual(await axeProblems(page, 'the preview'), []);
  else await shoot(t, page, 'import-preview', viewport);

  await page.getByRole('button', { name: 'Import 2 links' }).click();
  await page
    .locator('#import-summary')
    .filter({ hasText: /imported/ })
    .waitFor();
  t.is(await page.locator('#import-summary').textContent(), '2 links imported from shlink-export.csv, 2 skipped.');
  if (javaScript) t.deepEqual(await axeProblems(page, 'the result'), []);
  else await shoot(t, page, 'import-done', viewport);
  t.like(await (await k.get('/api/v1/links/Kept-Case_9')).json(), { title: 'He said "hi"', createdAt: '2024-02-03T04:05:06.000Z' });
  t.like(await (await k.get('/api/v1/links/abc123')).json(), { url: 'https://example.com/mine' });
  t.deepEqual(problems, []);
}

test('a Shlink export is previewed and imported on a desktop, without JavaScript', (t) => importFile(t, DESKTOP, false));
test('a Shlink export is previewed and imported on a 390 px phone, without JavaScript', (t) => importFile(t, PHONE, false));
// axe-core runs in the page: these check the same pages with JavaScript on.
test('the preview and the result have no serious axe-core finding at 1280 px', (t) => importFile(t, DESKTOP, true));
test('the preview and the result have no serious axe-core finding at 390 px', (t) => importFile(t, PHONE, true));
