import test from 'ava';
import { BROWSER_ACCEPT, startKurz } from '../helpers.ts';

function postForm(base: string, fields: Record<string, string>): Promise<Response> {
  return fetch(base + '/', { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual', headers: { accept: BROWSER_ACCEPT } });
}

test('GET / serves the shorten form, which works without JavaScript', async (t) => {
  const k = await startKurz(t);
  const res = await k.get('/', { accept: BROWSER_ACCEPT });
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
  t.regex(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const html = await res.text();
  t.regex(html, /<form method="post" action="\/"/);
  t.regex(html, /<input type="url" id="url" name="url"/);
  t.regex(html, /name="alias"/);
  t.false(html.includes('<script'));
});

test('submitting the form creates the link and lands on its page showing the short URL', async (t) => {
  const k = await startKurz(t);
  const res = await postForm(k.base, { url: 'https://example.com/form', alias: '' });
  t.is(res.status, 303);
  const location = res.headers.get('location') ?? '';
  const code = /^\/links\/([A-Za-z0-9]{6})\?created$/.exec(location)?.[1];
  t.truthy(code);
  const page = await (await k.get(location, { accept: BROWSER_ACCEPT })).text();
  t.true(page.includes(`https://kurz.test/${code}`));
  t.true(page.includes('Your short link is ready.'));
  t.true(page.includes('https://example.com/form'));
});

test('the form takes an alias, and the same URL again points to the existing link', async (t) => {
  const k = await startKurz(t);
  t.is((await postForm(k.base, { url: 'https://example.com/a', alias: 'my-link' })).headers.get('location'), '/links/my-link?created');
  const plain = await postForm(k.base, { url: 'https://example.com/b' });
  const again = await postForm(k.base, { url: 'https://example.com/b' });
  t.is(again.headers.get('location'), (plain.headers.get('location') ?? '').replace('created', 'existing'));
});

test('an invalid submission shows the form again with the error and the entered values, storing nothing', async (t) => {
  const k = await startKurz(t);
  const res = await postForm(k.base, { url: 'javascript:alert("x")', alias: '' });
  t.is(res.status, 400);
  const html = await res.text();
  t.regex(html, /role="alert"[^>]*>Long URL must use http or https, not javascript</);
  t.true(html.includes('value="javascript:alert(&quot;x&quot;)"'), 'the entered value is kept, escaped');
  t.regex(html, /id="url"[^>]*\s+aria-invalid="true"/);
  t.is(k.linkCount(), 0);
});

test('a taken alias in the form is a 409 with the message', async (t) => {
  const k = await startKurz(t);
  await postForm(k.base, { url: 'https://example.com/1', alias: 'taken' });
  const res = await postForm(k.base, { url: 'https://example.com/2', alias: 'taken' });
  t.is(res.status, 409);
  t.regex(await res.text(), /alias &quot;taken&quot; is already taken/);
  t.is(k.linkCount(), 1);
});

test('the link page shows the visit count and last visit', async (t) => {
  const k = await startKurz(t);
  const created = await k.postJson('/api/v1/links', { url: 'https://example.com/visited', alias: 'seen' });
  t.is(created.status, 201);
  const before = await (await k.get('/links/seen', { accept: BROWSER_ACCEPT })).text();
  t.regex(before, /id="visit-count">0</);
  t.regex(before, /id="last-visit">never</);
  await k.get('/seen');
  await k.get('/seen');
  k.kurz.services.visits.flush();
  const after = await (await k.get('/links/seen', { accept: BROWSER_ACCEPT })).text();
  t.regex(after, /id="visit-count">2</);
  t.true(after.includes('2026-01-15 12:00 UTC'));
});

test('the page of an unknown link is a 404 page', async (t) => {
  const k = await startKurz(t);
  const res = await k.get('/links/nope', { accept: BROWSER_ACCEPT });
  t.is(res.status, 404);
  t.regex(await res.text(), /no link with code &quot;nope&quot;/);
});
