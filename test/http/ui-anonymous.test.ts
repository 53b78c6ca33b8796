import test from 'ava';
import { BROWSER_ACCEPT, cookiesOf, csrfOf, startKurz } from '../helpers.ts';

/** A stranger's browser: the form cookie from GET /, and posts of the public form with its token. */
async function stranger(base: string) {
  const page = await fetch(`${base}/`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
  const cookie = cookiesOf(page);
  const html = await page.text();
  const post = (fields: Record<string, string>) =>
    fetch(`${base}/`, {
      method: 'POST',
      headers: { accept: BROWSER_ACCEPT, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
      redirect: 'manual',
    });
  return { page, html, post, csrf: page.status === 200 ? csrfOf(html) : '' };
}

test('anonymous shortening is off by default: / goes to the login, a post is 401', async (t) => {
  const k = await startKurz(t);
  const s = await stranger(k.base);
  t.is(s.page.status, 303);
  t.is(s.page.headers.get('location'), '/login');
  t.is((await s.post({ url: 'https://example.com/x' })).status, 401);
  t.is(await k.linkCount(), 0);
});

test('when on, anyone shortens a URL with an optional alias and sees the result at once', async (t) => {
  const k = await startKurz(t, { anonymousShortening: true });
  const s = await stranger(k.base);
  t.is(s.page.status, 200);
  t.regex(s.html, /<form method="post" action="\/"/);
  t.notRegex(s.html, /name="title"|name="password"|<nav/, 'the public form has only URL and alias, and no nav');
  const res = await s.post({ _csrf: s.csrf, url: 'https://example.com/public', alias: 'pub' });
  t.is(res.status, 200);
  const html = await res.text();
  t.regex(html, /<a href="https:\/\/kurz\.test\/pub" id="short-url">https:\/\/kurz\.test\/pub<\/a>/);
  t.regex(html, /data-copy="https:\/\/kurz\.test\/pub"/);
  t.is((await k.get('/pub')).headers.get('location'), 'https://example.com/public');
  // Options are not the public's to set.
  await s.post({ _csrf: s.csrf, url: 'https://example.com/opt', title: 'x', password: 'sneaky-pw', enabled: '' });
  t.like(await (await k.get('/api/v1/links?q=opt')).json(), { links: [{ title: null, passwordProtected: false, enabled: true }] });
});

test('the public form needs its CSRF token and shows errors beside the field', async (t) => {
  const k = await startKurz(t, { anonymousShortening: true });
  const s = await stranger(k.base);
  t.is((await s.post({ url: 'https://example.com/x' })).status, 403);
  t.is((await s.post({ _csrf: 'nope', url: 'https://example.com/x' })).status, 403);
  const bad = await s.post({ _csrf: s.csrf, url: 'ftp://x', alias: 'kept' });
  t.is(bad.status, 400);
  const html = await bad.text();
  t.regex(html, /id="url-error" role="alert">Long URL must use http or https/);
  t.regex(html, /value="kept"/);
  t.is(await k.linkCount(), 0);
});

test('anonymous shortening is limited per client and minute: then 429 with Retry-After', async (t) => {
  const k = await startKurz(t, { anonymousShortening: true, anonymousRateLimit: 3 });
  const s = await stranger(k.base);
  for (let i = 0; i < 3; i++) t.is((await s.post({ _csrf: s.csrf, url: `https://example.com/${i}` })).status, 200);
  const limited = await s.post({ _csrf: s.csrf, url: 'https://example.com/late', alias: 'late' });
  t.is(limited.status, 429);
  t.is(limited.headers.get('retry-after'), '60');
  const html = await limited.text();
  t.regex(html, /<p class="alert" role="alert">You have shortened many links in the last minute; try again in 60 s<\/p>/);
  t.regex(html, /value="https:\/\/example\.com\/late"/);
  t.is(await k.linkCount(), 3);
  k.clock.advance(60_000);
  t.is((await s.post({ _csrf: s.csrf, url: 'https://example.com/late' })).status, 200);
  t.is(await k.linkCount(), 4);
});

test('a logged-in admin is not limited by the anonymous rate', async (t) => {
  const k = await startKurz(t, { anonymousShortening: true, anonymousRateLimit: 1 });
  const cookie = await k.login();
  const csrf = csrfOf(await (await fetch(`${k.base}/`, { headers: { accept: BROWSER_ACCEPT, cookie } })).text());
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${k.base}/`, {
      method: 'POST',
      headers: { accept: BROWSER_ACCEPT, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, url: `https://example.com/${i}`, enabled: 'true' }),
      redirect: 'manual',
    });
    t.is(res.status, 303);
  }
});
