import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
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

/**
 * Whether the browser tests write their screenshots (KURZ_SCREENSHOTS=1, which `make e2e` sets): they are for a
 * person to look at, and `make test` checks the same pages without encoding some 340 PNGs.
 */
export const SCREENSHOTS = process.env['KURZ_SCREENSHOTS'] === '1';

/**
 * The page light and dark: in each, that it fits its width, and a screenshot (NAME-desktop|phone-SCHEME.png) when
 * SCREENSHOTS. `part` shoots only a section of a long page: from the top of `from` to the bottom of `to`.
 */
export async function shoot(
  t: ExecutionContext,
  page: Page,
  name: string,
  viewport: { width: number },
  part?: { from: Locator; to: Locator },
): Promise<void> {
  const size = viewport.width < DESKTOP.width ? 'phone' : 'desktop';
  if (part) await part.from.scrollIntoViewIfNeeded();
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    if (SCREENSHOTS) {
      const path = join(SHOTS, `${name}-${size}-${colorScheme}.png`);
      await page.screenshot({ path, fullPage: true, ...(part ? { clip: await clipOf(page, part, viewport) } : {}) });
    }
    t.true(await fitsWidth(page), `${name} fits ${viewport.width} px (${colorScheme})`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** A screenshot of one element, light and dark (NAME-SIZE-SCHEME.png), when SCREENSHOTS. */
export async function shootElement(page: Page, element: Locator, name: string, viewport: { width: number }): Promise<void> {
  if (!SCREENSHOTS) return;
  const size = viewport.width < DESKTOP.width ? 'phone' : 'desktop';
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await element.screenshot({ path: join(SHOTS, `${name}-${size}-${colorScheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Whether the page does not scroll sideways. */
export async function fitsWidth(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) === true;
}

/** The Redirect rules section of a link's page, from its heading to its card: a `part` for shoot(). */
export function rulesSection(page: Page): { from: Locator; to: Locator } {
  return { from: page.locator('h2#rules'), to: page.locator('section.rules') };
}

/** The page's area from the top of `from` to the bottom of `to`, in page coordinates, with a margin. */
async function clipOf(page: Page, { from, to }: { from: Locator; to: Locator }, viewport: { width: number }) {
  const top = (await from.boundingBox())!;
  const box = (await to.boundingBox())!;
  const scroll = (await page.evaluate('window.scrollY')) as number;
  return { x: 0, y: top.y + scroll - 8, width: viewport.width, height: box.y + box.height - top.y + 16 };
}
