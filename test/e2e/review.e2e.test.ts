import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import type { Actor } from '../../src/auth/actor.ts';
import { browserFor, DESKTOP, logIn, openPage, shoot } from './browser.ts';
import { ADMIN_PASSWORD, BROWSER_UA, startKurz, tempDir, type TestKurz } from '../helpers.ts';

/**
 * The review queue in a real browser (Chromium): a member's links wait; the admin sees the count in the nav
 * and on the dashboard, approves one and rejects another from /review, with forms alone; the visitor's side
 * follows. Screenshots of /review, light and dark, desktop (1280) and phone (390), in test/e2e/screenshots/.
 */

const PHONE = { width: 390, height: 844 };

const visit = (k: TestKurz, code: string) => fetch(`${k.base}/${code}`, { headers: { 'user-agent': BROWSER_UA }, redirect: 'manual' });

test('the admin approves and rejects waiting links from the review page, without JavaScript; screenshots', async (t) => {
  const lists = tempDir(t);
  writeFileSync(join(lists, 'phishing.txt'), 'phish.example\n');
  const k = await startKurz(t, { reviewNewLinks: 'members', blocklist: join(lists, 'phishing.txt') });
  await k.login();
  t.is((await k.postJson('/api/v1/users', { name: 'mia' })).status, 201);
  const mia: Actor = {
    userId: (await k.kurz.services.access.userByName('mia'))!.id,
    name: 'mia',
    role: 'member',
    via: { kind: 'session' },
  };
  for (const [alias, url, title] of [
    ['spring-sale', 'https://shop.example.com/spring-sale?utm_source=newsletter&utm_medium=email', 'Spring sale'],
    ['minutes', 'https://docs.example.org/club/minutes/2026-11', null],
    ['free-gift', 'http://free-gift.example.net/claim-now', 'Claim your prize'],
  ] as const)
    await k.kurz.services.creation.createLink(mia, { url, alias, ...(title ? { title } : {}) });

  const browser = await browserFor(t);
  for (const viewport of [DESKTOP, PHONE]) {
    const { page } = await openPage(browser, k, viewport, { javaScript: false });
    await logIn(page, 'admin', ADMIN_PASSWORD);
    await page.goto('/review');
    await shoot(t, page, 'review', viewport);
    await page.context().close();
  }

  const { page, problems } = await openPage(browser, k, DESKTOP, { javaScript: false });
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await t.notThrowsAsync(page.locator('#review-count').getByText('3').waitFor());
  t.regex((await page.locator('#review-waiting').textContent()) ?? '', /3 links wait for review/);
  await page.getByRole('link', { name: /Review/ }).click();
  await page.waitForURL('/review');
  const rows = page.locator('#review-list tbody tr');
  t.is(await rows.count(), 3);
  t.regex(
    (await rows.first().textContent()) ?? '',
    /free-gift[\s\S]*Claim your prize[\s\S]*free-gift\.example\.net[\s\S]*mia[\s\S]*not listed/,
  );
  t.is((await visit(k, 'minutes')).status, 403);

  await page.getByRole('button', { name: 'Approve minutes' }).click();
  await page.waitForURL('/review?approved=minutes');
  t.regex((await page.locator('#review-notice').textContent()) ?? '', /minutes is approved/);
  await page.getByRole('button', { name: 'Reject free-gift' }).click();
  await page.waitForURL('/review?rejected=free-gift');
  t.regex((await page.locator('#review-notice').textContent()) ?? '', /free-gift is rejected/);
  t.is(await rows.count(), 1);
  t.regex((await page.locator('#review-count').textContent()) ?? '', /^1/);
  await shoot(t, page, 'review-decided', DESKTOP);

  t.is((await visit(k, 'minutes')).headers.get('location'), 'https://docs.example.org/club/minutes/2026-11');
  t.is((await visit(k, 'free-gift')).status, 410);
  t.is((await visit(k, 'spring-sale')).status, 403);

  // The visitor's page of a waiting link, in the browser (its 403 is the one resource error expected).
  t.deepEqual(problems, []);
  await page.goto('/spring-sale');
  t.deepEqual(problems.splice(0), ['Failed to load resource: the server responded with a status of 403 (Forbidden)']);
  t.is(await page.locator('h1').textContent(), 'This link is being reviewed');
  await shoot(t, page, 'review-visitor', DESKTOP);
  // The link list's filter.
  await page.goto('/links?review=rejected');
  t.is(await page.locator('table.cards tbody tr').count(), 1);
  t.regex((await page.locator('table.cards tbody tr').textContent()) ?? '', /free-gift[\s\S]*rejected/);
  t.deepEqual(problems, []);
});
