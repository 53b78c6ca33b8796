import test, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { browserFor, DESKTOP, logIn, openPage, rulesSection, shoot, unfold, type Viewport } from './browser.ts';
import { ADMIN_PASSWORD, startKurz } from '../helpers.ts';

/**
 * The rule editor on the link page in a real browser (Chromium), with JavaScript off and on: a language rule
 * and a refusal added through the form, listed in order, the short URL following the language rule, a refused
 * value shown beside its field, a rule removed. Screenshots of the section, light and dark, desktop (1280) and
 * phone (390), in test/e2e/screenshots/rules-editor-*.png.
 */

const PHONE = { width: 390, height: 844 };

async function addRule(page: Page, type: string, value: string, action: string, target = ''): Promise<void> {
  await unfold(page, 'rule-editor');
  await page.locator('#type1').selectOption(type);
  await page.locator('#value1').fill(value);
  await page.locator('#action').selectOption(action);
  await page.locator('#target').fill(target);
  await page.getByRole('button', { name: 'Add rule' }).click();
}

async function editRules(t: ExecutionContext, viewport: Viewport, javaScript: boolean): Promise<void> {
  const k = await startKurz(t);
  await k.login();
  await k.postJson('/api/v1/links', { url: 'https://example.com/everyone', alias: 'ruled' });
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, k, viewport, { javaScript });
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await page.goto('/links/ruled');
  t.true(await page.locator('#no-rules').isVisible());

  await addRule(page, 'language', 'de', 'target', 'https://example.de/seite?a=1&b=2');
  await page.locator('#rule-list li').first().waitFor();
  t.true(page.url().endsWith('/links/ruled#rules'), 'back on the list');
  await addRule(page, 'geolocation-country-code', 'CN', '451');
  await page.locator('#rule-list li').nth(1).waitFor();
  const lines = await page.locator('#rule-list .rule-line').allTextContents();
  t.deepEqual(
    lines.map((line) => line.replace(/\s+/g, ' ').trim()),
    ['if language is de → https://example.de/seite?a=1&b=2', 'if country is CN → refuse 451'],
  );

  const de = await fetch(`${k.base}/ruled`, { headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' }, redirect: 'manual' });
  t.is(de.headers.get('location'), 'https://example.de/seite?a=1&b=2');
  const en = await fetch(`${k.base}/ruled`, { headers: { 'accept-language': 'en-GB' }, redirect: 'manual' });
  t.is(en.headers.get('location'), 'https://example.com/everyone');

  // A refused value: the page again, the message beside the field, the value as typed, the list unchanged.
  await addRule(page, 'ip-address', '10.0.0.0/33', '403');
  await page.locator('#value1-error').waitFor();
  t.regex((await page.locator('#value1-error').textContent()) ?? '', /"10\.0\.0\.0\/33" is not a CIDR range/);
  t.is(await page.locator('#value1').inputValue(), '10.0.0.0/33');
  t.is(await page.locator('#rule-list li').count(), 2);
  if (javaScript) await shoot(t, page, 'rules-editor-refused', viewport, rulesSection(page));
  await page.locator('#value1').fill('');

  if (javaScript) {
    await page.goto('/links/ruled#rules');
    await shoot(t, page, 'rules-editor', viewport, rulesSection(page));
  }
  await page.getByRole('button', { name: 'Remove rule 1' }).click();
  await page.locator('#rule-list li').nth(1).waitFor({ state: 'detached' });
  t.deepEqual(await page.locator('#rule-list .rule-line').allTextContents(), ['if country is CN → refuse 451']);
  const after = await fetch(`${k.base}/ruled`, { headers: { 'accept-language': 'de' }, redirect: 'manual' });
  t.is(after.headers.get('location'), 'https://example.com/everyone', 'the removed rule no longer applies');
  // The refused rule's page is a 400, which Chromium reports on the console as a failed load: that one is expected.
  t.deepEqual(
    problems.filter((problem) => !problem.includes('status of 400')),
    [],
  );
}

test('without JavaScript: add a language rule and a refusal, see them listed, follow the short URL, remove one', async (t) => {
  await editRules(t, DESKTOP, false);
});

test('with JavaScript at 1280 px: the same; screenshots light and dark', async (t) => {
  await editRules(t, DESKTOP, true);
});

test('with JavaScript at 390 px: the same, the lines wrap and the buttons stay reachable; screenshots', async (t) => {
  await editRules(t, PHONE, true);
});
