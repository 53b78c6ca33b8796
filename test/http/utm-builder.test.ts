import test from 'ava';
import { BROWSER_ACCEPT, cookiesOf, csrfOf, startKurz } from '../helpers.ts';
import { browser } from './ui-session.ts';

// The UTM builder without JavaScript: the forms post the five fields and the server adds them to the target.

const UTM_NAMES = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'];

test('the shorten form and the edit form have the five fields, folded away in a <details>', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const created = await b.submit('/', { url: 'https://example.com/plain', enabled: 'true' });
  for (const path of ['/', created.headers.get('location') ?? '']) {
    const { html } = await b.page(path);
    t.regex(html, /<details class="options utm" data-utm>\s*<summary>UTM parameters/, `${path}: closed`);
    for (const name of UTM_NAMES) t.regex(html, new RegExp(`<input type="text" id="${name}" name="${name}" value=""`), `${path}: ${name}`);
    t.regex(html, /<p class="utm-preview" hidden>/, `${path}: the preview waits for the script`);
  }
});

test('submitting the dashboard form with UTM values saves the target with them, replacing one of the same name', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const res = await b.submit('/', {
    url: 'https://example.com/shop?utm_source=old&id=7#reviews',
    utm_source: 'news letter',
    utm_medium: 'email',
    utm_campaign: 'spring & summer',
    utm_term: '',
    utm_content: '  ',
    enabled: 'true',
  });
  t.is(res.status, 303);
  const location = res.headers.get('location') ?? '';
  const code = /^\/links\/([A-Za-z0-9]{6})\?created$/.exec(location)?.[1] ?? '';
  const target = 'https://example.com/shop?id=7&utm_source=news%20letter&utm_medium=email&utm_campaign=spring%20%26%20summer#reviews';
  t.like(await (await k.get(`/api/v1/links/${code}`)).json(), { url: target });
  t.is((await k.get(`/${code}`)).headers.get('location'), target);
  const { html } = await b.page(location);
  t.true(html.includes(`id="target-url">${target.replaceAll('&', '&amp;')}</a>`), 'the link page shows the whole target');
  t.true(html.includes(`id="url" name="url" value="${target.replaceAll('&', '&amp;')}"`), 'the edit form starts from it');
});

test("the link page's edit form adds UTM values to the target it saves", async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const created = await b.submit('/', { url: 'https://example.com/a', enabled: 'true' });
  const page = (created.headers.get('location') ?? '').replace('?created', '');
  const res = await b.submit(page, {
    url: 'https://example.com/b?utm_campaign=old#top',
    utm_campaign: 'winter',
    utm_term: 'blue shoes',
    enabled: 'true',
  });
  t.is(res.status, 303);
  t.regex(res.headers.get('location') ?? '', /\?saved$/);
  const code = page.split('/').pop() ?? '';
  t.like(await (await k.get(`/api/v1/links/${code}`)).json(), {
    url: 'https://example.com/b?utm_campaign=winter&utm_term=blue%20shoes#top',
  });
});

test('a bad UTM value shows the form again, open, with the error beside the field and what was typed; nothing is stored', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const long = await b.submit('/', {
    url: 'https://example.com/x',
    utm_source: 'kept',
    utm_term: '"><script>alert(1)</script>',
    utm_content: 'x'.repeat(201),
    enabled: 'true',
  });
  t.is(long.status, 400);
  const html = await long.text();
  t.regex(html, /<details class="options utm" data-utm open>/);
  t.regex(html, /<p class="field-error" id="utm_content-error" role="alert">Content \(utm_content\) must be at most 200 characters<\/p>/);
  t.regex(html, /id="utm_source" name="utm_source" value="kept"/);
  t.true(html.includes('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"'), 'shown back as text');
  t.false(html.includes('<script>alert(1)'));
  t.regex(html, /id="url" name="url" value="https:\/\/example.com\/x"/, 'the long URL is shown as typed, without the values');
  t.notRegex(html, /<details class="options" open>/, 'the other options stay closed');
  const control = await b.submit('/', { url: 'https://example.com/x', utm_medium: 'e\u0007mail', enabled: 'true' });
  t.is(control.status, 400);
  t.regex(
    await control.text(),
    /id="utm_medium-error" role="alert">Medium \(utm_medium\) must not contain control characters \(found U\+0007\)/,
  );
  t.is(await k.linkCount(), 0);
});

test('values typed with a URL that is none are left to the URL rules, which name the URL', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const res = await b.submit('/', { url: 'example.com/page', utm_source: 'news', enabled: 'true' });
  t.is(res.status, 400);
  const html = await res.text();
  t.regex(html, /id="url-error" role="alert">Long URL must be absolute, starting with http:\/\/ or https:\/\//);
  t.regex(html, /<details class="options utm" data-utm open>/, 'the values typed stay in sight');
  t.is(await k.linkCount(), 0);
});

test('the public form takes UTM values as well and shows the whole target', async (t) => {
  const k = await startKurz(t, { anonymousShortening: true });
  const page = await fetch(`${k.base}/`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
  const res = await fetch(`${k.base}/`, {
    method: 'POST',
    headers: { accept: BROWSER_ACCEPT, cookie: cookiesOf(page), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrfOf(await page.text()), url: 'https://example.com/pub', alias: 'pub', utm_source: 'flyer' }),
    redirect: 'manual',
  });
  t.is(res.status, 200);
  t.regex(await res.text(), /Goes to <span class="mono">https:\/\/example\.com\/pub\?utm_source=flyer<\/span>/);
  t.is((await k.get('/pub')).headers.get('location'), 'https://example.com/pub?utm_source=flyer');
});

test('the API takes the target as the client built it: UTM fields are no part of it', async (t) => {
  const k = await startKurz(t);
  const res = await k.postJson('/api/v1/links', { url: 'https://example.com/api', utm_source: 'x' });
  t.is(res.status, 400);
  t.like(await res.json(), { code: 'invalid', field: 'utm_source' });
  t.is(await k.linkCount(), 0);
});
