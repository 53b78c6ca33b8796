import test, { type ExecutionContext } from 'ava';
import { chromium, type Page } from 'playwright-core';
import { ADMIN_PASSWORD, startKurz, type TestKurz } from '../helpers.ts';
import { ssoSettings, startProvider } from '../support/oidc-provider.ts';
import { DESKTOP, shoot } from './browser.ts';

/**
 * Single sign-on in a real browser (Chromium) through a real OpenID provider (oidc-provider, its
 * development login form): an admin signs on and out, a user without the admin claim is refused, and the
 * login page with its button is photographed light and dark, desktop and phone.
 */

const CHROMIUM = '/usr/bin/chromium';
const PHONE = { width: 360, height: 740 };
// kurz's public URL: a name of its own, which Chromium maps to the test server's port.
const PUBLIC_URL = 'http://kurz.test';

/** kurz with single sign-on at a fresh provider, and a browser that finds kurz at its public URL. */
async function setUp(t: ExecutionContext, settings: Record<string, unknown> = {}): Promise<{ k: TestKurz; page: Page }> {
  const { issuer } = await startProvider(t, [`${PUBLIC_URL}/login/sso/callback`]);
  const k = await startKurz(t, { publicUrl: PUBLIC_URL, ...ssoSettings(issuer), ...settings });
  // A password a person chose: with the generated one, every admin session is first sent to change it.
  await k.kurz.services.access.setPassword(ADMIN_PASSWORD);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      `--host-resolver-rules=MAP kurz.test 127.0.0.1:${new URL(k.base).port}`,
    ],
  });
  t.teardown(() => browser.close());
  const context = await browser.newContext({ viewport: DESKTOP, baseURL: PUBLIC_URL });
  return { k, page: await context.newPage() };
}

/** The provider's development login form (any password), then its consent form. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('an admin signs on through the provider, sees the dashboard, and logging out ends the session', async (t) => {
  const { page } = await setUp(t);
  await page.goto('/links');
  t.is(new URL(page.url()).pathname, '/login');
  await signInAtProvider(page, 'alice');
  await page.waitForURL(`${PUBLIC_URL}/links`);
  t.true(await page.getByRole('button', { name: 'Log out' }).isVisible());
  await page.goto('/');
  t.true(await page.getByLabel('Long URL').isVisible(), 'the dashboard');
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(`${PUBLIC_URL}/login`);
  await page.goto('/links');
  t.is(new URL(page.url()).pathname, '/login', 'the dashboard asks for a login again');
});

test('someone without the admin claim becomes a member at the first sign-on: their own links, no Users page', async (t) => {
  const { page } = await setUp(t);
  await page.goto('/login');
  await signInAtProvider(page, 'bob');
  await page.waitForURL(`${PUBLIC_URL}/`);
  t.true(await page.getByLabel('Long URL').isVisible(), 'the dashboard');
  t.false(await page.getByRole('link', { name: 'Users' }).isVisible(), 'no Users in a member’s nav');
  await shoot(t, page, 'sso-member', DESKTOP);
});

test('with oidcCreateUsers off, someone kurz does not know is refused: no kurz account, no session', async (t) => {
  const { page } = await setUp(t, { oidcCreateUsers: false });
  await page.goto('/login');
  await signInAtProvider(page, 'bob');
  await page.waitForURL(/\/login\/sso\/callback/);
  t.regex((await page.locator('#error-message').textContent()) ?? '', /no kurz account for bob/);
  await shoot(t, page, 'sso-refused', DESKTOP);
  await page.goto('/links');
  t.is(new URL(page.url()).pathname, '/login');
});

test('screenshots of the login page with single sign-on, with and without the password form', async (t) => {
  for (const passwordLogin of [true, false]) {
    const { page } = await setUp(t, { passwordLogin });
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await page.goto('/login');
      t.is(await page.getByLabel('Password').count(), passwordLogin ? 1 : 0);
      await shoot(t, page, passwordLogin ? 'login-sso' : 'login-sso-only', viewport);
    }
  }
});
