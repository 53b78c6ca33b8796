import test from 'ava';
import { browserFor, DESKTOP, shoot } from './browser.ts';
import { startKurz } from '../helpers.ts';
import { UA } from '../fixtures/user-agents.ts';

/**
 * The pages the redirect itself answers for issue 26, in Chromium: the regional limit (a rule refusing the
 * visitor with 451) and a social preview as a link-preview bot gets it. Screenshots light and dark at 1280 and
 * 360 px (test/e2e/screenshots/regional-limit-*.png, social-preview-*.png); each page fits its width.
 */

const PHONE = { width: 360, height: 740 };

for (const viewport of [DESKTOP, PHONE]) {
  test(`the regional limit at ${viewport.width} px: 451, its heading and message, no target; screenshots`, async (t) => {
    const k = await startKurz(t);
    await k.postJson('/api/v1/links', { url: 'https://example.com/only-elsewhere', alias: 'limited' });
    await k.request('PUT', '/api/v1/links/limited/rules', {
      rules: [{ conditions: [{ type: 'ip-address', matchValue: '127.0.0.0/8' }], refuse: 451 }],
    });
    const browser = await browserFor(t);
    const context = await browser.newContext({ viewport, baseURL: k.base });
    const page = await context.newPage();
    const res = await page.goto('/limited');
    t.is(res?.status(), 451);
    t.is(await page.locator('h1').textContent(), 'Not available in your region');
    t.regex((await page.locator('#unavailable-message').textContent()) ?? '', /not available in your region/);
    t.false((await page.content()).includes('only-elsewhere'), 'the target is never on the page');
    await shoot(t, page, 'regional-limit', viewport);
    await context.close();
  });

  test(`a social preview as a link-preview bot sees it, at ${viewport.width} px; screenshots`, async (t) => {
    const k = await startKurz(t);
    await k.postJson('/api/v1/links', {
      url: 'https://example.com/launch',
      alias: 'card',
      preview: { title: 'Launch day: everything new', description: 'What changes, and when.', image: 'https://cdn.example.com/card.png' },
    });
    const browser = await browserFor(t);
    const context = await browser.newContext({ viewport, baseURL: k.base, userAgent: UA.slackbot });
    const page = await context.newPage();
    // The image lives nowhere: the page must still render without it.
    await page.route('https://cdn.example.com/**', (route) => route.abort());
    const res = await page.goto('/card');
    t.is(res?.status(), 200);
    t.is(await page.locator('#preview-title').textContent(), 'Launch day: everything new');
    t.is(await page.locator('meta[property="og:title"]').getAttribute('content'), 'Launch day: everything new');
    await shoot(t, page, 'social-preview', viewport);
    await context.close();
  });
}
