import test from 'ava';
import type { Page } from 'playwright-core';
import { browserFor, DESKTOP, logIn, openPage, shoot } from './browser.ts';
import { ADMIN_PASSWORD, startKurz } from '../helpers.ts';
import { member, MEMBER_PASSWORD } from '../http/members.ts';

/**
 * A domain limited to some users in a real browser (Chromium), with JavaScript off: the admin ticks who may
 * use it on the domain's page; a member named there is offered it on the create form, another is not.
 * Screenshots of the domain page, light and dark, desktop (1280 px) and phone (390 px), in test/e2e/screenshots/.
 */

const PHONE = { width: 390, height: 800 };

/** The hosts the create form's domain select offers. */
const choices = async (page: Page): Promise<string[]> =>
  Promise.all((await page.locator('#domain option').all()).map(async (option) => (await option.getAttribute('value')) ?? ''));

test('the admin limits a domain to some users on its page without JavaScript; the create form follows', async (t) => {
  const k = await startKurz(t);
  for (const name of ['alice', 'bob']) await member(k, name);
  await k.postJson('/api/v1/domains', { host: 'club.kurz.test' });
  await k.login();
  const browser = await browserFor(t);

  for (const viewport of [DESKTOP, PHONE]) {
    const { page: admin } = await openPage(browser, k, viewport, { javaScript: false });
    await logIn(admin, 'admin', ADMIN_PASSWORD);
    await admin.goto('/domains/club.kurz.test');
    await admin.getByLabel('Only the users ticked here (admins always may)').check();
    await admin.getByLabel('alice').check();
    await admin.getByLabel('bob').uncheck();
    await shoot(t, admin, 'domain-users', viewport);
    await admin.getByRole('button', { name: 'Save changes' }).click();
    await admin.waitForURL('/domains?saved=club.kurz.test');
    t.is(await admin.locator('#domain-list tr', { hasText: 'club.kurz.test' }).locator('td[data-label="Open to"]').textContent(), 'alice');
  }
  t.deepEqual(
    k.kurz.services.domains.named('club.kurz.test').users?.map((u) => u.name),
    ['alice'],
  );

  const { page: alice } = await openPage(browser, k, DESKTOP, { javaScript: false });
  await logIn(alice, 'alice', MEMBER_PASSWORD);
  t.deepEqual(await choices(alice), ['kurz.test', 'club.kurz.test']);
  await alice.getByLabel('Long URL').fill('https://example.com/club-news');
  await alice.locator('#domain').selectOption('club.kurz.test');
  await alice.getByRole('button', { name: 'Shorten' }).click();
  await alice.waitForURL(/\/links\/[^/?]+\?domain=club\.kurz\.test&created/);

  const { page: bob } = await openPage(browser, k, DESKTOP, { javaScript: false });
  await logIn(bob, 'bob', MEMBER_PASSWORD);
  t.deepEqual(await choices(bob), ['kurz.test'], 'bob is not offered the club’s domain');
});
