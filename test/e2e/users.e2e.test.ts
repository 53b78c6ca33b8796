import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ADMIN_PASSWORD, startKurz, type TestKurz } from '../helpers.ts';

/**
 * Several people in a real browser (Chromium): the admin invites a member, who sets a password through the
 * one-time link, logs in, shortens and sees only their own links; the admin sees both and hands one over.
 * Screenshots of the new pages, light and dark, desktop and phone, in test/e2e/screenshots/.
 */

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(import.meta.dirname, 'screenshots');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 360, height: 740 };
const MIA_PASSWORD = 'mia has a long password';

async function browserFor(t: ExecutionContext): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  t.teardown(() => browser.close());
  return browser;
}

async function openPage(browser: Browser, k: TestKurz, viewport = DESKTOP): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport, baseURL: k.base });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  return { page, problems };
}

async function logIn(page: Page, user: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('User name').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('/');
}

async function shoot(t: ExecutionContext, page: Page, name: string, viewport: { width: number }): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: join(SHOTS, `${name}-${viewport === PHONE ? 'phone' : 'desktop'}-${colorScheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  t.true((await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) === true, `${name} fits ${viewport.width} px`);
}

async function shorten(page: Page, url: string): Promise<string> {
  await page.goto('/');
  await page.getByLabel('Long URL').fill(url);
  await page.getByRole('button', { name: 'Shorten' }).click();
  await page.waitForURL(/\/links\/[^/?]+\?created/);
  return decodeURIComponent(/\/links\/([^/?]+)/.exec(new URL(page.url()).pathname)![1]!);
}

test('the admin invites a member, who sets a password, shortens and sees only theirs; the admin sees both and hands one over', async (t) => {
  mkdirSync(SHOTS, { recursive: true });
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
