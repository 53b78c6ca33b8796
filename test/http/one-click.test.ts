import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
import { BROWSER_ACCEPT, csrfOf, startKurz } from '../helpers.ts';
import { member } from './members.ts';
import { browser } from './ui-session.ts';

// Shortening from anywhere: the bookmarklet and /share, the ShareX uploader file and the curl line, as the
// API keys page hands them out.

const run = promisify(execFile);

/** The bookmarklet's address on the keys page, as a browser reads the attribute. */
function bookmarkletOf(html: string): string {
  const href = /<a class="button" href="(javascript:[^"]+)">Shorten with kurz<\/a>/.exec(html)?.[1] ?? '';
  return href.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
}

/** Where the bookmarklet goes from a page at `href` titled `title`: its script run as a browser runs it. */
function bookmarkletTarget(bookmarklet: string, href: string, title: string): string {
  const script = decodeURIComponent(bookmarklet.slice('javascript:'.length));
  const location = { href };
  new Function('location', 'document', script)(location, { title });
  return location.href;
}

test('the bookmarklet shortens the page it is clicked on in one click, and the link page shows it with its copy button and QR code', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const bookmarklet = bookmarkletOf((await b.page('/keys')).html);
  t.regex(bookmarklet, /^javascript:location\.href=/);
  const target = bookmarkletTarget(bookmarklet, 'https://example.com/article?id=7&lang=de#part-2', 'An article — "quoted" & more');
  t.true(target.startsWith('https://kurz.test/share?t='), target);
  const path = target.slice('https://kurz.test'.length);

  const res = await b.get(path);
  t.is(res.status, 303);
  const [row] = await k.sql<{ code: string; title: string }>('SELECT code, title FROM links');
  t.is(row?.title, 'An article — "quoted" & more');
  t.is(res.headers.get('location'), `/links/${row?.code}?created`);
  const { html } = await b.follow(res);
  t.regex(html, /Your short link is ready/);
  t.regex(html, new RegExp(`data-copy="https://kurz.test/${row?.code}"`));
  t.regex(html, /<img src="[^"]*qr[^"]*" alt="QR code of https:\/\/kurz.test\//);

  // A page's title longer than a link's may be is cut to fit, never inside a character.
  const long = `${'a'.repeat(198)}😀 and more`;
  t.is((await b.get(bookmarkletTarget(bookmarklet, 'https://example.com/long', long).slice('https://kurz.test'.length))).status, 303);
  const [cut] = await k.sql<{ title: string }>("SELECT title FROM links WHERE url = 'https://example.com/long'");
  t.is(cut?.title, `${'a'.repeat(198)}…`);

  // A page without a title is a bare URL, which kurz's dedupe answers with its earlier link.
  const plain = bookmarkletTarget(bookmarklet, 'https://example.com/plain', '').slice('https://kurz.test'.length);
  const first = (await b.get(plain)).headers.get('location') ?? '';
  t.regex(first, /^\/links\/\w+\?created$/);
  t.is((await b.get(plain)).headers.get('location'), first.replace('created', 'existing'));
  t.is(await k.linkCount(), 3);
});

test('without a session /share goes to the login and comes back with its query; without the token it asks before creating', async (t) => {
  const k = await startKurz(t);
  const path = '/share?url=https%3A%2F%2Fexample.com%2Fa%3Fb%3Dc&title=A%20%3Cb%3Epage%3C%2Fb%3E';
  const stranger = await fetch(k.base + path, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
  t.is(stranger.status, 303);
  t.is(stranger.headers.get('location'), `/login?next=${encodeURIComponent(path)}`);

  const b = await browser(k);
  const form = await b.page(path);
  t.is(form.res.status, 200);
  t.regex(form.html, /<form method="post" action="\/share"/);
  t.regex(form.html, /name="url" value="https:\/\/example.com\/a\?b=c"/);
  t.regex(form.html, /name="title" value="A &lt;b&gt;page&lt;\/b&gt;"/, 'the title is escaped');
  t.is(await k.linkCount(), 0, 'a link from elsewhere creates nothing by itself');
  const forged = await b.get(`${path}&t=forged`);
  t.is(forged.status, 200);
  t.is(await k.linkCount(), 0, 'nor does a forged token');

  const created = await b.post('/share', { _csrf: csrfOf(form.html), url: 'https://example.com/a?b=c', title: 'A <b>page</b>' });
  t.is(created.status, 303);
  t.regex(created.headers.get('location') ?? '', /^\/links\/\w+\?created$/);
  const noCsrf = await b.post('/share', { url: 'https://example.com/other' });
  t.is(noCsrf.status, 403);
  const twice = await b.get('/share?url=https%3A%2F%2Fa.example%2F&url=https%3A%2F%2Fb.example%2F');
  t.is(twice.status, 400);
  t.regex(await twice.text(), /url must be given once/i);
  t.is(await k.linkCount(), 1);
});

test("a refused URL shows the form again with the reason; one user's bookmarklet does not work in another's browser", async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const bookmarklet = bookmarkletOf((await b.page('/keys')).html);
  const refused = await b.get(bookmarkletTarget(bookmarklet, 'javascript:alert(1)', 'x').slice('https://kurz.test'.length));
  t.is(refused.status, 400);
  t.regex(await refused.text(), /id="url-error" role="alert">Long URL must use http or https, not javascript/);

  const mia = await member(k, 'mia');
  const path = bookmarkletTarget(bookmarklet, 'https://example.com/admins', 'x').slice('https://kurz.test'.length);
  const theirs = await fetch(k.base + path, { headers: { accept: BROWSER_ACCEPT, cookie: mia.cookie }, redirect: 'manual' });
  t.is(theirs.status, 200, "the admin's token is no good in mia's session: she is asked");
  t.is(await k.linkCount(), 0);
});

test('the ShareX uploader file: the placeholder one for download, the one with the key when the key is made, and the curl line runs', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const file = await b.get('/keys/kurz.sxcu');
  t.is(file.status, 200);
  t.is(file.headers.get('content-disposition'), 'attachment; filename="kurz-kurz.test.sxcu"');
  t.deepEqual(await file.json(), {
    Version: '17.0.0',
    Name: 'kurz (kurz.test)',
    DestinationType: 'URLShortener',
    RequestMethod: 'POST',
    RequestURL: 'https://kurz.test/yourls-api.php',
    Body: 'MultipartFormData',
    Arguments: { signature: 'YOUR-API-KEY', action: 'shorturl', url: '{input}', format: 'simple' },
    URL: '{response}',
    ErrorMessage: '{response}',
  });
  const stranger = await fetch(`${k.base}/keys/kurz.sxcu`, { redirect: 'manual' });
  t.is(stranger.status, 401);

  const { html } = await b.follow(await b.submit('/keys', { name: 'sharex' }));
  const secret = /id="new-key-value">(kurz_[\w-]+)</.exec(html)?.[1] ?? '';
  const data = /href="data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)" download="kurz-kurz.test.sxcu"/.exec(html)?.[1] ?? '';
  const uploader = JSON.parse(Buffer.from(data, 'base64').toString()) as { Arguments: { signature: string } };
  t.is(uploader.Arguments.signature, secret);

  // The line as shown, pointed at this server (the test's public URL is a name, not where it listens).
  const line = (/id="new-curl-value">([^<]+)</.exec(html)?.[1] ?? '').replaceAll('https://kurz.test', k.base);
  t.true(line.startsWith(`curl -sS -d signature=${secret} `), line);
  const { stdout } = await run('bash', ['-c', line]);
  const [row] = await k.sql<{ code: string }>("SELECT code FROM links WHERE url = 'https://example.com/'");
  t.is(stdout, `https://kurz.test/${row?.code}`);
});
