import test from 'ava';
import { ADMIN_PASSWORD, startKurz, waitFor } from '../helpers.ts';
import { verifySignature, webhookReceiver } from '../support/webhook-receiver.ts';
import { browserFor, DESKTOP, logIn, openPage, shoot } from './browser.ts';

const PHONE = { width: 360, height: 740 };

test('the webhooks page adds a hook showing its secret once, sends a test and shows it in the log, then deletes the hook', async (t) => {
  const kurz = await startKurz(t, { webhookAllowPrivate: true, webhookInterval: '50ms' });
  const receiver = await webhookReceiver(t, [500, 204]);
  await kurz.login();
  const browser = await browserFor(t);
  const { page, problems } = await openPage(browser, kurz);
  await logIn(page, 'admin', ADMIN_PASSWORD);

  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.waitForURL('/webhooks');
  t.is(await page.getByText('No webhooks yet.').count(), 1);

  // A refused URL: the form again, saying why, with what was typed.
  await page.getByLabel('URL').fill('javascript:alert(1)');
  await page.getByRole('button', { name: 'Add webhook' }).click();
  t.regex((await page.locator('#url-error').textContent()) ?? '', /The URL must use http or https/);
  t.is(await page.getByLabel('URL').inputValue(), 'javascript:alert(1)');

  await page.getByLabel('URL').fill(receiver.url);
  await page.getByLabel('link.clicked').check();
  await page.getByRole('button', { name: 'Add webhook' }).click();
  const secret = (await page.locator('#new-secret-value').textContent()) ?? '';
  t.regex(secret, /^whsec_/);
  const hook = page.locator('section.webhook');
  t.regex((await hook.textContent()) ?? '', /link\.created, link\.updated, link\.deleted, link\.clicked/);

  // A link made through the API reaches the hook, signed with the secret the page showed.
  t.is((await kurz.postJson('/api/v1/links', { url: 'https://example.com/e2e', alias: 'e2e-hook' })).status, 201);
  await waitFor(() => receiver.received.length >= 1);
  await page.reload();
  t.is(await page.locator('#new-secret-value').count(), 0, 'the secret is shown once');

  await page.getByRole('button', { name: 'Send a test' }).click();
  t.is(await page.getByRole('status').filter({ hasText: 'A test (ping) goes out' }).count(), 1);
  await waitFor(() => receiver.received.some((r) => r.event === 'ping'));
  const ping = receiver.received.find((r) => r.event === 'ping')!;
  t.true(verifySignature(secret, ping.signature, ping.body).valid);
  await waitFor(async () => {
    await page.reload();
    return (await page.locator('section.webhook tbody tr').count()) === 2;
  });
  const rows = await page.locator('section.webhook tbody tr').allTextContents();
  t.regex(rows[0] ?? '', /ping.*delivered.*204/s);
  t.regex(rows[1] ?? '', /link\.created.*retrying.*500.*receiver says no/s);
  // The one error the browser saw is the refused form's 400: no script or style was blocked.
  t.deepEqual(problems, ['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
  await shoot(t, page, 'webhooks', DESKTOP);
  await page.setViewportSize(PHONE);
  await shoot(t, page, 'webhooks', PHONE);
  await page.setViewportSize(DESKTOP);

  await page.getByRole('link', { name: /Delete…/ }).click();
  await page.getByRole('button', { name: 'Delete webhook' }).click();
  await page.waitForURL(/\/webhooks\?deleted=/);
  t.is(await page.getByText('No webhooks yet.').count(), 1);
  t.regex((await page.getByRole('status').textContent()) ?? '', /was deleted/);
});

test('the webhooks page works without JavaScript', async (t) => {
  const kurz = await startKurz(t, { webhookAllowPrivate: true, webhookInterval: '50ms' });
  const receiver = await webhookReceiver(t);
  await kurz.login();
  const browser = await browserFor(t);
  const { page } = await openPage(browser, kurz, DESKTOP, { javaScript: false });
  await logIn(page, 'admin', ADMIN_PASSWORD);
  await page.goto('/webhooks');
  await page.getByLabel('URL').fill(receiver.url);
  await page.getByRole('button', { name: 'Add webhook' }).click();
  t.regex((await page.locator('#new-secret-value').textContent()) ?? '', /^whsec_/);
  await page.getByRole('button', { name: 'Send a test' }).click();
  await waitFor(() => receiver.received.some((r) => r.event === 'ping'));
  await page.getByRole('button', { name: 'Pause' }).click();
  t.is(await page.locator('section.webhook .state').first().textContent(), 'paused');
  await page.getByRole('button', { name: 'Resume' }).click();
  t.is(await page.locator('section.webhook .state').first().textContent(), 'on');
});
