import test from 'ava';
import type { Page } from 'playwright-core';
import { browserFor, DESKTOP, logIn, openPage, shoot, unfold } from './browser.ts';
import { ADMIN_PASSWORD, startKurz } from '../helpers.ts';

/**
 * Several people in a real browser (Chromium): the admin invites a member, who sets a password through the
 * one-time link, logs in, shortens and sees only their own links; the admin sees both and hands one over.
 * Screenshots of the new pages, light and dark, desktop and phone, in test/e2e/screenshots/.
 */

const PHONE = { width: 360, height: 740 };
const MIA_PASSWORD = 'mia has a long password';

async function shorten(page: Page, url: string): Promise<string> {
  await page.goto('/');
  await page.getByLabel('Long URL').fill(url);
  await page.getByRole('button', { name: 'Shorten' }).click();
  await page.waitForURL(/\/links\/[^/?]+\?created/);
  return decodeURIComponent(/\/links\/([^/?]+)/.exec(new URL(page.url()).pathname)![1]!);
}

test('the admin invites a member, who sets a password, shortens and sees only theirs; the admin sees both and hands one over', async (t) => {
  const k = await startKurz(t);
  await k.login();
  const browser = await browserFor(t);
  const { page: admin, problems } = await openPage(browser, k);
  await logIn(admin, 'admin', ADMIN_PASSWORD);
  const adminCode = await shorten(admin, 'https://example.com/admins-own');

  await admin.getByRole('link', { name: 'Users' }).click();
  await admin.getByLabel('Name').fill('mia');
  await admin.getByLabel('E-mail').fill('mia@example.com');
  await admin.getByRole('button', { name: 'Add user' }).click();
  const link = (await admin.locator('#invite-link').textContent()) ?? '';
  t.regex(link, /^https:\/\/kurz\.test\/welcome\/[\w-]{43}$/);
  await shoot(t, admin, 'users-invited', DESKTOP);

  // Mia, in a browser of her own, follows the link (the test server's address stands for the public one).
  const { page: mia, problems: miaProblems } = await openPage(browser, k, PHONE);
  await mia.goto(new URL(link).pathname);
  t.true(await mia.getByText('Welcome, mia').isVisible());
  await shoot(t, mia, 'welcome', PHONE);
  await mia.getByLabel('New password').fill(MIA_PASSWORD);
  await mia.getByLabel('The same again').fill(MIA_PASSWORD);
  await mia.getByRole('button', { name: 'Set password' }).click();
  await mia.waitForURL(/\/login/);
  await logIn(mia, 'mia', MIA_PASSWORD);
  t.false(await mia.getByRole('link', { name: 'Users' }).isVisible(), 'a member has no Users page');
  const miaCode = await shorten(mia, 'https://example.com/mias-own');
  await mia.goto('/links');
  t.true(await mia.getByRole('link', { name: miaCode, exact: true }).isVisible());
  t.is(await mia.getByRole('link', { name: adminCode, exact: true }).count(), 0, 'the admin’s link is not hers to see');
  await shoot(t, mia, 'links-member', PHONE);
  await mia.goto('/');
  await shoot(t, mia, 'dashboard-member', PHONE);
  t.is((await mia.goto(`/links/${adminCode}`))?.status(), 404);

  // The admin sees both, filters by owner, and hands mia's link to himself.
  await admin.goto('/links');
  t.true(await admin.getByRole('link', { name: miaCode, exact: true }).isVisible());
  t.true(await admin.getByRole('link', { name: adminCode, exact: true }).isVisible());
  await admin.getByLabel('Owner').selectOption('mia');
  await admin.getByRole('button', { name: 'Show' }).click();
  await admin.waitForURL(/owner=mia/);
  t.is(await admin.getByRole('link', { name: adminCode, exact: true }).count(), 0);
  await shoot(t, admin, 'links-by-owner', DESKTOP);
  await admin.getByRole('link', { name: miaCode, exact: true }).click();
  await unfold(admin, 'edit-fold');
  await admin.getByLabel('Owner').selectOption('admin');
  await admin.getByRole('button', { name: 'Save changes' }).click();
  await admin.waitForURL(/saved/);
  t.is(await admin.locator('#link-owner').textContent(), 'admin');
  await shoot(t, admin, 'link-handed-over', DESKTOP);
  await mia.goto('/links');
  t.is(await mia.getByRole('link', { name: miaCode, exact: true }).count(), 0, 'handed over: no longer hers');

  // Users at phone width; the used link is gone.
  const { page: adminPhone } = await openPage(browser, k, PHONE);
  await logIn(adminPhone, 'admin', ADMIN_PASSWORD);
  await adminPhone.goto('/users');
  await shoot(t, adminPhone, 'users', PHONE);
  await admin.goto('/users');
  await shoot(t, admin, 'users', DESKTOP);
  await mia.goto(new URL(link).pathname);
  t.true(await mia.getByText('used up or expired').isVisible());
  await shoot(t, mia, 'welcome-used', PHONE);
  t.deepEqual(
    problems.filter((p) => !/status of 40[0-9]/.test(p)),
    [],
  );
  t.deepEqual(
    miaProblems.filter((p) => !/status of 4(04|10)/.test(p)),
    [],
  );
});
