import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestKurz } from '../helpers.ts';

// What the Chromium tests of several users share: the browser, a page that collects its errors, the login
// form and screenshots in light and dark.

export const SHOTS = join(import.meta.dirname, 'screenshots');
export const DESKTOP = { width: 1280, height: 800 };
export type Viewport = { width: number; height: number };

/** Debian's Chromium, closed when the test ends. */
export async function browserFor(t: ExecutionContext): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  t.teardown(() => browser.close());
  return browser;
}

/**
 * A page of its own context on kurz, and the console errors and uncaught exceptions it sees. `userAgent`
 * replaces headless Chromium's own (`HeadlessChrome`, which kurz counts as a bot) where a person is played.
 */
export async function openPage(
  browser: Browser,
  k: TestKurz,
  viewport: Viewport = DESKTOP,
  { javaScript = true, userAgent, timezoneId }: { javaScript?: boolean; userAgent?: string; timezoneId?: string } = {},
): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({
    viewport,
    baseURL: k.base,
    javaScriptEnabled: javaScript,
    ...(userAgent ? { userAgent } : {}),
    ...(timezoneId ? { timezoneId, locale: 'en-US' } : {}),
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  return { page, problems };
}

/** Opens the folded part `<details id="ID">` of the page (the link page's edit form, rule and pages editors) unless it is open. */
export async function unfold(page: Page, id: string): Promise<void> {
  const fold = page.locator(`details#${id}`);
  if ((await fold.getAttribute('open')) === null) await fold.locator('> summary').click();
}

/** Logs in through the form and waits for the dashboard. */
export async function logIn(page: Page, user: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('User name').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('/');
}

/** Screenshots of the page, light and dark (NAME-desktop|phone-SCHEME.png), and that it fits its width. */
export async function shoot(t: ExecutionContext, page: Page, name: string, viewport: { width: number }): Promise<void> {
  const size = viewport.width < DESKTOP.width ? 'phone' : 'desktop';
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: join(SHOTS, `${name}-${size}-${colorScheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  t.true((await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) === true, `${name} fits ${viewport.width} px`);
}
