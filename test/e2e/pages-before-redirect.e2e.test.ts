import test, { type ExecutionContext } from 'ava';
import { UA } from '../fixtures/user-agents.ts';
import { ADMIN_PASSWORD, startKurz, type TestKurz } from '../helpers.ts';
import type { Page } from 'playwright-core';
import { browserFor, DESKTOP, fitsWidth, logIn, openPage, SCREENSHOTS, shoot, shootElement, unfold, type Viewport } from './browser.ts';

/**
 * The pages before the redirect in a real browser (Chromium): the notice and its button, the form (a refused
 * answer shown beside its field, then sent and on to the target), the open-in-browser page as WeChat shows it
 * (its copy button), each at 1280 and 360 px, light and dark; and the link page setting the pages and the rule
 * editor adding a page rule. Screenshots in test/e2e/screenshots/pages-*.png.
 */

const PHONE = { width: 360, height: 740 };
const TARGET = 'https://example.com/secret-target';

async function linkWith(k: TestKurz, alias: string, url: string, pages: unknown, page?: string): Promise<void> {
  await k.postJson('/api/v1/links', { url, alias });
  await k.request('PATCH', `/api/v1/links/${alias}`, { pages });
  if (page) await k.request('PUT', `/api/v1/links/${alias}/rules`, { rules: [{ conditions: [], page }] });
}

/** Stops every request that leaves kurz (the targets), answering it with a stand-in page, and says where they went. */
async function catchTargets(k: TestKurz, page: Page): Promise<string[]> {
  const left: string[] = [];
  await page.route(
    (url) => !url.href.startsWith(k.base),
    (route) => {
      left.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<title>target</title>' });
    },
  );
  return left;
}

async function pages(t: ExecutionContext, viewport: Viewport): Promise<void> {
  const k = await startKurz(t);
  await linkWith(
    k,
    'warn',
    TARGET,
    { notice: { title: 'You are leaving kurz', message: 'This link goes to another site.\nIts owner is not us.', button: 'Go on' } },
    'notice',
  );
  await linkWith(
    k,
    'survey',
    TARGET,
    {
      form: {
        fields: [
          { type: 'name', required: true },
          { type: 'email', required: true },
          { type: 'text', label: 'Company' },
        ],
        consent: 'I agree that example.org stores my answers for 90 days (privacy notice: example.org/privacy).',
      },
    },
    'form',
  );
  await k.postJson('/api/v1/links', { url: 'https://apps.apple.com/app/id1234567890', alias: 'app', forwardQuery: true });
  const browser = await browserFor(t);
  const size = viewport.width < DESKTOP.width ? 'phone' : 'desktop';

  // A person's browser: headless Chromium's own user agent is a bot's, which a page never leads on.
  const person = viewport.width < DESKTOP.width ? UA.iphoneSafari : UA.desktopChromeWindows;
  const { page, problems } = await openPage(browser, k, viewport, { userAgent: person });
  const left = await catchTargets(k, page);
  await page.goto('/warn');
  t.is(await page.locator('h1').textContent(), 'You are leaving kurz');
  await shoot(t, page, `pages-notice`, viewport);
  await page.getByRole('button', { name: 'Go on' }).click();
  await page.waitForURL(TARGET);
  t.deepEqual(left, [TARGET]);

  await page.goto('/survey');
  await page.getByLabel('Name').fill('Ana');
  await page.getByLabel('E-mail').fill('not an address');
  await page.getByRole('button', { name: 'Send and continue' }).click();
  await page.locator('#problem-email').waitFor();
  t.regex((await page.locator('#problem-email').textContent()) ?? '', /E-mail must be an e-mail address/);
  t.regex((await page.locator('#problem-consent').textContent()) ?? '', /Tick the box/);
  t.is(await page.getByLabel('Name').inputValue(), 'Ana');
  await shoot(t, page, `pages-form-refused`, viewport);
  await page.getByLabel('E-mail').fill('ana@example.org');
  await page.getByLabel(/I agree/).check();
  await page.getByRole('button', { name: 'Send and continue' }).click();
  await page.waitForURL(TARGET);
  t.is((await k.sql('SELECT id FROM form_answers')).length, 1);

  // The owner sees the answer on the link's page.
  await k.login();
  const owner = await openPage(browser, k, viewport);
  await logIn(owner.page, 'admin', ADMIN_PASSWORD);
  await owner.page.goto('/links/survey');
  const latest = owner.page.locator('#latest-form-answers');
  t.regex((await latest.textContent()) ?? '', /Ana[\s\S]*ana@example\.org/);
  await shootElement(owner.page, owner.page.locator('section.pages'), 'pages-latest-answers', viewport);
  t.true(await fitsWidth(owner.page), 'the link page fits');
  await unfold(owner.page, 'edit-fold');
  await shootElement(owner.page, owner.page.locator('#preview-fields'), 'preview-fields', viewport);
  await owner.page.goto('/links/survey/form-answers');
  t.regex((await owner.page.locator('#form-answers').textContent()) ?? '', /ana@example\.org/);
  await shoot(t, owner.page, 'pages-form-answers', viewport);
  t.deepEqual(owner.problems, []);

  const wechat = await browser.newContext({
    viewport,
    baseURL: k.base,
    userAgent: UA.wechatIos,
    locale: 'zh-CN',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const inApp = await wechat.newPage();
  await inApp.goto('/app');
  t.is(await inApp.locator('h1').textContent(), '请在浏览器中打开此链接');
  const copy = inApp.getByRole('button', { name: '复制' });
  t.true(await copy.isVisible(), 'the script shows the copy button');
  await shoot(t, inApp, `pages-open-in-browser`, viewport);
  t.is(await inApp.locator('#open-short-url').inputValue(), 'https://kurz.test/app');
  // This machine's Chromium has no CJK fonts: the same page in English shows its layout legibly.
  const instagram = await (
    await browser.newContext({
      viewport,
      baseURL: k.base,
      userAgent: UA.instagramIos,
      locale: 'en-GB',
      permissions: ['clipboard-read', 'clipboard-write'],
    })
  ).newPage();
  await catchTargets(k, instagram);
  await instagram.goto('/app?src=bio');
  t.is(await instagram.locator('h1').textContent(), 'Open this link in your browser');
  t.regex((await instagram.locator('main').textContent()) ?? '', /You are in Instagram\./);
  await shoot(t, instagram, `pages-open-in-browser-en`, viewport);
  await instagram.getByRole('button', { name: 'Copy' }).click();
  await instagram.getByRole('button', { name: 'Copied' }).waitFor();
  await instagram.getByRole('link', { name: 'Continue here anyway' }).click();
  await instagram.waitForURL('https://apps.apple.com/app/id1234567890?src=bio');
  // The refused form's 400 is the one resource error expected.
  t.deepEqual(problems, ['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
  if (SCREENSHOTS) t.log(`screenshots: pages-*-${size}-*.png`);
}

test('notice, form and open-in-browser at 1280 px', (t) => pages(t, DESKTOP));
test('notice, form and open-in-browser at 360 px', (t) => pages(t, PHONE));

test('the link page sets a notice and the rule editor shows it to everyone, without JavaScript', async (t) => {
  const k = await startKurz(t);
  await k.login();
  await k.postJson('/api/v1/links', { url: TARGET, alias: 'edited' });
  const browser = await browserFor(t);
  for (const viewport of [DESKTOP, PHONE]) {
    const { page, problems } = await openPage(browser, k, viewport, { javaScript: false });
    await logIn(page, 'admin', ADMIN_PASSWORD);
    await page.goto('/links/edited');
    if (viewport === DESKTOP) {
      await unfold(page, 'pages-editor');
      await page.locator('#noticeMessage').fill('Mind the step.');
      await page.locator('#noticeButton').fill('Onwards');
      await page.locator('#formName').selectOption('required');
      await page.getByRole('button', { name: 'Save pages' }).click();
      await page.waitForURL(/#pages$/);
      await unfold(page, 'rule-editor');
      await page.locator('#type1').selectOption('');
      await page.locator('#action').selectOption('page-notice');
      await page.getByRole('button', { name: 'Add rule' }).click();
      await page.locator('#rule-list li').first().waitFor();
    }
    t.regex((await page.locator('#rule-list .rule-line').first().textContent()) ?? '', /for every visitor\s*→\s*page notice/);
    t.is(await page.locator('#noticeMessage').inputValue(), 'Mind the step.');
    await shoot(t, page, 'pages-editor', viewport, { from: page.locator('h2#rules'), to: page.locator('section.pages') });
    t.deepEqual(problems, []);
  }
  const visit = await fetch(`${k.base}/edited`, { headers: { accept: 'text/html' } });
  t.regex(await visit.text(), /Mind the step\./);
});
