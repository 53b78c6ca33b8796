import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ADMIN_PASSWORD, startKurz, type TestKurz } from '../helpers.ts';
import { member, MEMBER_PASSWORD } from '../http/members.ts';

/**
 * A domain limited to some users in a real browser (Chromium), with JavaScript off: the admin ticks who may
 * use it on the domain's page; a member named there is offered it on the create form, another is not.
 * Screenshots of the domain page, light and dark, desktop (1280 px) and phone (390 px), in test/e2e/screenshots/.
 */

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(import.meta.dirname, 'screenshots');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 800 };

async function openPage(t: ExecutionContext, browser: Browser, k: TestKurz, viewport: { width: number; height: number }) {
  const context = await browser.newContext({ viewport, baseURL: k.base, javaScriptEnabled: false });
  t.teardown(() => context.close());
  return context.newPage();
}

async function logIn(page: Page, user: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('User name').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('/');
}

/** The hosts the create form's domain select offers. */
const choices = async (page: Page): Promise<string[]> =>
  Promise.all((await page.locator('#domain option').all()).map(async (option) => (await option.getAttribute('value')) ?? ''));

test('the admin limits a domain to some users on its page without JavaScript; the create form follows', async (t) => {
  mkdirSync(SHOTS, { recursive: true });
  const k = await startKurz(t);
  for (const name of ['alice', 'bob']) await member(k, name);
  await k.postJson('/api/v1/domains', { host: 'club.kurz.test' });
  await k.login();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  t.teardown(() => browser.close());

  for (const viewport of [DESKTOP, PHONE]) {
    const admin = await openPage(t, browser, k, viewport);
    await logIn(admin, 'admin', ADMIN_PASSWORD);
    await admin.goto('/domains/club.kurz.test');
    await admin.getByLabel('Only the users ticked here (admins always may)').check();
    await admin.getByLabel('alice').check();
    await admin.getByLabel('bob').uncheck();
    for (const colorScheme of ['light', 'dark'] as const) {
      await admin.emulateMedia({ colorScheme });
      const name = `domain-users-${viewport === PHONE ? 'phone' : 'desktop'}-${colorScheme}.png`;
      await admin.screenshot({ path: join(SHOTS, name), fullPage: true });
    }
    t.true((await admin.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) === true, `fits ${viewport.width} px`);
    await admin.getByRole('button', { name: 'Save changes' }).click();
    await admin.waitForURL('/domains?saved=club.kurz.test');
    t.is(await admin.locator('#domain-list tr', { hasText: 'club.kurz.test' }).locator('td[data-label="Open to"]').textContent(), 'alice');
  }
  t.deepEqual(
    k.kurz.services.domains.named('club.kurz.test').users?.map((u) => u.name),
    ['alice'],
  );

  const alice = await openPage(t, browser, k, DESKTOP);
  await logIn(alice, 'alice', MEMBER_PASSWORD);
  t.deepEqual(await choices(alice), ['kurz.test', 'club.kurz.test']);
  await alice.getByLabel('Long URL').fill('https://example.com/club-news');
  await alice.locator('#domain').selectOption('club.kurz.test');
  await alice.getByRole('button', { name: 'Shorten' }).click();
  await alice.waitForURL(/\/links\/[^/?]+\?domain=club\.kurz\.test&created/);

  const bob = await openPage(t, browser, k, DESKTOP);
  await logIn(bob, 'bob', MEMBER_PASSWORD);
  t.deepEqual(await choices(bob), ['kurz.test'], 'bob is not offered the club’s domain');
});
