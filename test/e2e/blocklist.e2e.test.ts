import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startKurz, tempDir, waitFor, ADMIN_PASSWORD, type TestKurz } from '../helpers.ts';
import { DESKTOP, shoot } from './browser.ts';

/**
 * What the blocklist shows in a real browser (Chromium): the badge, the reason on a link's page, the count
 * on the dashboard, the filter of the list, the files on the settings page, a refused form and the 410 page
 * a visitor gets; screenshots light and dark, desktop and phone, in test/e2e/screenshots/ (as ui.e2e.test.ts).
 */

const test = anyTest as TestFn<{ browser: Browser }>;

const PHONE = { width: 360, height: 740 };

test.before(async (t) => {
  t.context.browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});

test.after.always(async (t) => {
  await t.context.browser?.close();
});

/** A page in a fresh context, and the console errors it logs (a CSP violation would be one). */
async function openPage(t: ExecutionContext<{ browser: Browser }>, k: TestKurz, viewport: { width: number; height: number }) {
  const context = await t.context.browser.newContext({ viewport, baseURL: k.base });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  return { page, problems };
}

async function logIn(page: Page, k: TestKurz): Promise<void> {
  await k.login();
  await page.goto('/login');
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('/');
}

test('the blocklist in the UI: badge, reason, count, filter, files, a refused form and the 410 page', async (t) => {
  const file = join(tempDir(t), 'urlhaus-hosts.txt');
  writeFileSync(file, '# URLhaus host file\n0.0.0.0 malware-cdn.example\nthis line is not understood\n');
  const k = await startKurz(t, { blocklist: file });
  const created = async (body: Record<string, unknown>) =>
    ((await (await k.postJson('/api/v1/links', body)).json()) as { code: string }).code;
  const blocked = await created({
    url: 'https://files.turned-bad.example/downloads/invoice-2026.pdf.exe',
    title: 'Invoice from the supplier',
    tags: ['billing'],
  });
  await created({ url: 'https://files.turned-bad.example/other', title: 'Another one' });
  for (let i = 0; i < 4; i++) await created({ url: `https://example.com/docs/${i}`, tags: i % 2 ? ['docs'] : [] });
  writeFileSync(
    `${file}.part`,
    '# URLhaus host file\n0.0.0.0 malware-cdn.example\n0.0.0.0 files.turned-bad.example\nthis line is not understood\n',
  );
  renameSync(`${file}.part`, file);
  await waitFor(async () => (await fetch(`${k.base}/${blocked}`, { redirect: 'manual' })).status === 410);
  await k.kurz.services.screening.idle();

  for (const viewport of [DESKTOP, PHONE]) {
    const { page, problems } = await openPage(t, k, viewport);
    await logIn(page, k);
    await page.goto('/');
    t.regex((await page.locator('#blocked-count').textContent()) ?? '', /2 links are disabled because their targets are on the blocklist/);
    await shoot(t, page, 'blocklist-dashboard', viewport);

    await page.getByLabel('Long URL').fill('https://malware-cdn.example/payload');
    await page.getByRole('button', { name: 'Shorten' }).click();
    await page.getByText('is on a blocklist (in urlhaus-hosts.txt)').first().waitFor();
    await shoot(t, page, 'blocklist-refused', viewport);

    await page.goto('/links');
    await page.getByLabel('Show').selectOption('true');
    await page.getByRole('button', { name: 'Show' }).click();
    t.is(await page.locator('.state-blocked').count(), 2);
    await shoot(t, page, 'blocklist-links', viewport);

    await page.goto(`/links/${blocked}`);
    t.regex((await page.locator('#blocked-reason').textContent()) ?? '', /“files\.turned-bad\.example” is listed in urlhaus-hosts\.txt/);
    await shoot(t, page, 'blocklist-link', viewport);

    await page.goto('/settings#blocklists');
    t.regex((await page.locator('#blocklists + .table-wrap').textContent()) ?? '', /urlhaus-hosts\.txt/);
    await shoot(t, page, 'blocklist-settings', viewport);

    const { page: visitor, problems: visitorProblems } = await openPage(t, k, viewport);
    await visitor.goto(`/${blocked}`);
    t.regex(
      (await visitor.locator('#error-message').textContent()) ?? '',
      /disabled because its target is on a blocklist of malicious sites/,
    );
    await shoot(t, visitor, 'blocklist-410', viewport);

    t.deepEqual(
      problems.filter((p) => !/status of 400/.test(p)),
      [],
      'no console errors but the refused form',
    );
    t.deepEqual(
      visitorProblems.filter((p) => !/status of 410/.test(p)),
      [],
      'no console errors but the 410',
    );
  }
});
