import test from 'ava';
import { BROWSER_ACCEPT, csrfOf, startKurz } from '../helpers.ts';
import { escapeHtml, fieldCases, LEAK, pageText } from '../support/hostile.ts';

// The hostile corpus's targets (test/fixtures/hostile/link-fields.json) sent as a hook's URL: a hook's URL
// passes the rules a link's target does, and then refuses private addresses too.

const URL_CASES = fieldCases('api').filter((c) => c.field === 'url');

test("every hostile target the corpus holds is refused as a hook's URL as it is as a link's, or stored as the link's would be", async (t) => {
  const kurz = await startKurz(t);
  let stored = 0;
  for (const c of URL_CASES) {
    const answer = await kurz.postJson('/api/v1/webhooks', { url: c.value, events: ['link.created'] });
    const body = (await answer.json()) as { detail?: string; url?: string; id?: number };
    if (c.expect === 'refused') {
      t.is(answer.status, 400, c.name);
      t.true(body.detail?.includes(c.message ?? '') ?? false, `${c.name}: ${body.detail}`);
      continue;
    }
    if (answer.status === 400) {
      // Only the webhooks' own rule may refuse what a link may have: an address inside.
      t.regex(body.detail ?? '', /address \(|leads back/, c.name);
      continue;
    }
    t.is(answer.status, 201, c.name);
    t.is(body.url, c.stored as string, c.name);
    stored++;
    // Under the limit of hooks a person may have.
    t.is((await kurz.request('DELETE', `/api/v1/webhooks/${body.id}`)).status, 204);
  }
  t.log(`${URL_CASES.length} targets, ${stored} stored`);
});

test('the webhooks form shows a refused URL back escaped, without a trace, and refuses a form without its token', async (t) => {
  const kurz = await startKurz(t);
  const cookie = await kurz.login();
  const page = await fetch(`${kurz.base}/webhooks`, { headers: { cookie, accept: BROWSER_ACCEPT } });
  const csrf = csrfOf(await page.text());
  const post = (fields: Record<string, string>) =>
    fetch(`${kurz.base}/webhooks`, {
      method: 'POST',
      headers: { cookie, accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
  for (const url of [
    'javascript:"><script>alert(1)</script>',
    'https://example.com/"><img src=x onerror=alert(1)>',
    'http://10.0.0.1/<b>',
  ]) {
    const answer = await post({ _csrf: csrf, url, 'event:link.created': 'true' });
    const html = await answer.text();
    const stored = url.startsWith('https://example.com/');
    t.is(answer.status, stored ? 303 : 400, url);
    if (stored) continue;
    t.true(html.includes(escapeHtml(url)), `${url} is shown back escaped`);
    t.false(html.includes(url), `${url} is never shown unescaped`);
    t.false(LEAK.test(html));
  }
  const none = await post({ _csrf: csrf, url: 'https://example.com/none' });
  t.is(none.status, 400);
  t.regex(pageText(await none.text()), /Events must name at least one event/);
  const unsigned = await post({ url: 'https://example.com/unsigned', 'event:link.created': 'true' });
  t.is(unsigned.status, 403);
  const hooks = await kurz.kurz.services.webhooks.list({ userId: 1, name: 'admin', role: 'admin', via: { kind: 'session' } });
  t.deepEqual(
    hooks.map((h) => h.url),
    ['https://example.com/%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E'],
  );
});
