import test from 'ava';
import { BROWSER_ACCEPT, startKurz } from '../helpers.ts';
import { browser } from './ui-session.ts';

const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

test('the dashboard serves the shorten form with every option, which works without JavaScript', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const { res, html } = await b.page('/');
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
  t.is(res.headers.get('content-security-policy'), PAGE_CSP);
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  t.is(res.headers.get('referrer-policy'), 'no-referrer');
  t.regex(html, /<form method="post" action="\/"/);
  for (const name of [
    'url',
    'alias',
    'title',
    'note',
    'tags',
    'expiresAt',
    'maxVisits',
    'password',
    'redirectStatus',
    'forwardQuery',
    'enabled',
  ])
    t.regex(html, new RegExp(`<label for="${name}">`), `${name} has a label`);
  t.regex(html, /<input type="datetime-local" id="expiresAt"/);
  t.regex(html, /<label for="expiresAt">Expires \(UTC\)/);
  t.regex(html, /<option value="" selected>Instance default \(302\)<\/option>/);
  t.regex(html, /<input type="checkbox" id="enabled" name="enabled" value="true" checked/);
  t.regex(html, /<script src="\/assets\/kurz\.js" defer><\/script>/);
  t.notRegex(html, /<script>|<style|style="/, 'no inline script or style');
  t.regex(html, /<a href="\/links">Links<\/a>/);
  t.regex(html, /<form method="post" action="\/logout">\s*<input type="hidden" name="_csrf"/);
  t.regex(html, /aria-current="page">Dashboard</);
});

test('an empty dashboard shows the first steps, each ticked once done, instead of a flat chart; the first link brings the figures', async (t) => {
  const k = await startKurz(t, { publicUrl: '' });
  const b = await browser(k);
  /** Each step's name and whether it is ticked. */
  const steps = async () => {
    const { html } = await b.page('/');
    const done = [...html.matchAll(/<li class="step( done)?">.*?<strong>(?:<a href="[^"]+">)?([^<]+)/g)].map(
      (m) => `${m[2]}${m[1] ? ': done' : ''}`,
    );
    return { html, done };
  };
  const empty = await steps();
  t.regex(empty.html, /<h2 id="first-run">Getting started<\/h2>/);
  // The tests' own API key is the admin's: revoked, the step is not done.
  t.deepEqual(empty.done, ['Shorten a link', 'Make an API key: done', 'Change the generated password: done', 'Set the public URL']);
  t.is((await b.submit('/keys/revoke', { name: 'tests' })).status, 303);
  t.deepEqual((await steps()).done, ['Shorten a link', 'Make an API key', 'Change the generated password: done', 'Set the public URL']);
  t.regex(
    empty.html,
    /now <code>http:\/\/127\.0\.0\.1:\d+<\/code>\. Start kurz with <code>--public-url/,
    'the public URL kurz makes links with',
  );
  t.notRegex(empty.html, /id="activity"|id="per-day"|No human visits/, 'no chart, no rows of zeros');
  t.notRegex(empty.html, /id="latest"/);
  t.is((await b.submit('/', { url: 'https://example.com/first' })).status, 303);
  const { html } = await steps();
  t.notRegex(html, /first-run/, 'a link: the dashboard as usual');
  t.regex(html, /<h2 id="latest">Latest links<\/h2>/);
  t.regex(html, /<h2 id="activity">Last 14 days<\/h2>/);
});

test('the public URL step is ticked when one is set', async (t) => {
  const k = await startKurz(t, { publicUrl: 'https://s.example' });
  const { html } = await (await browser(k)).page('/');
  t.regex(
    html,
    /<li class="step done"><span class="mark" aria-hidden="true">✓<\/span><div><span class="offscreen">Done: <\/span><strong>Set the public URL<\/strong> short links begin with: now <code>https:\/\/s\.example<\/code>\.<\/div>/,
  );
});

test('without a session, / goes to the login and a form post is refused with 401', async (t) => {
  const k = await startKurz(t);
  const stranger = await browser(k, false);
  const res = await stranger.get('/');
  t.is(res.status, 303);
  t.is(res.headers.get('location'), '/login');
  const post = await stranger.post('/', { url: 'https://example.com/x' });
  t.is(post.status, 401);
  t.is(await k.linkCount(), 0);
});

test('every management page sends a stranger to the login and back, and refuses their forms with 401', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/x', alias: 'x' });
  const stranger = await browser(k, false);
  for (const path of ['/links', '/links/x', '/links/x/delete', '/import', '/keys', '/keys/revoke?name=tests', '/settings']) {
    const res = await stranger.get(path);
    t.is(res.status, 303, path);
    t.is(res.headers.get('location'), `/login?next=${encodeURIComponent(path)}`, path);
  }
  for (const path of ['/links/x', '/links/x/state', '/links/x/delete', '/import', '/keys', '/keys/revoke']) {
    t.is((await stranger.post(path, { enabled: 'false', name: 'tests', urls: 'https://example.com/y' })).status, 401, path);
  }
  t.is((await k.get('/x')).status, 302, 'the link is untouched');
  t.is((await k.get('/api/v1/links')).status, 200, 'the key is untouched');
});

test('every page renders for a logged-in session', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/x', alias: 'x' });
  const b = await browser(k);
  const pages: Record<string, RegExp> = {
    '/': /<h1>Shorten a link<\/h1>/,
    '/links': /<h1>Links<\/h1>/,
    '/links/x': /<h1>Link <span class="mono">x<\/span>/,
    '/links/x/delete': /Delete link <span class="mono">x<\/span>\?/,
    '/import': /<h1>Bulk shorten<\/h1>/,
    '/keys': /<h1>API keys<\/h1>/,
    '/keys/revoke?name=tests': /Revoke the key “tests”\?/,
    '/settings': /<h1>Settings<\/h1>/,
  };
  for (const [path, heading] of Object.entries(pages)) {
    const { res, html } = await b.page(path);
    t.is(res.status, 200, path);
    t.regex(html, heading, path);
    t.is(res.headers.get('content-security-policy'), PAGE_CSP, path);
  }
});

test('submitting the form creates the link with every option and lands on its page', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const res = await b.submit('/', {
    url: 'https://example.com/form',
    alias: '',
    title: 'A title',
    note: 'A note',
    tags: 'work, docs',
    expiresAt: '2026-12-31T23:30',
    maxVisits: '5',
    password: 'secret password!',
    redirectStatus: '307',
    forwardQuery: 'yes',
    enabled: 'true',
  });
  t.is(res.status, 303);
  const location = res.headers.get('location') ?? '';
  const code = /^\/links\/([A-Za-z0-9]{6})\?created$/.exec(location)?.[1];
  t.truthy(code);
  const page = await b.page(location);
  t.true(page.html.includes(`https://kurz.test/${code}`));
  t.true(page.html.includes('Your short link is ready.'));
  t.regex(page.html, /data-copy="https:\/\/kurz\.test\/[A-Za-z0-9]{6}"/);
  t.true(page.html.includes(`<img src="/api/v1/links/${code}/qr?format=svg"`));
  t.true(page.html.includes(`<a href="/api/v1/links/${code}/qr?format=svg&amp;size=800" class="qr-enlarge"`), 'a click shows it large');
  t.regex(
    page.html,
    new RegExp(
      `Download the QR code: <a href="/api/v1/links/${code}/qr\\?format=svg" download="kurz-${code}\\.svg">SVG</a> · <a href="/api/v1/links/${code}/qr\\?format=png&amp;size=512" download="kurz-${code}\\.png">PNG</a>`,
    ),
  );
  t.true(page.html.includes(`href="/api/v1/links/${code}/qr?format=png&amp;size=512"`));
  const json = await (await k.get(`/api/v1/links/${code}`)).json();
  t.like(json, {
    url: 'https://example.com/form',
    title: 'A title',
    note: 'A note',
    tags: ['docs', 'work'],
    expiresAt: '2026-12-31T23:30:00.000Z',
    maxVisits: 5,
    passwordProtected: true,
    redirectStatus: 307,
    forwardQuery: true,
    enabled: true,
  });
});

test('an unticked "enabled" creates a disabled link, and empty options leave the defaults', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const off = await b.submit('/', { url: 'https://example.com/off', redirectStatus: '', forwardQuery: '' });
  const code = /\/links\/([^?]+)/.exec(off.headers.get('location') ?? '')?.[1];
  t.like(await (await k.get(`/api/v1/links/${code}`)).json(), {
    enabled: false,
    redirectStatus: 302,
    forwardQuery: false,
    title: null,
    tags: [],
  });
  t.is((await k.get(`/${code}`)).status, 410);
});

test('the form takes an alias, and the same URL again points to the existing link', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  t.is(
    (await b.submit('/', { url: 'https://example.com/a', alias: 'my-link', enabled: 'true' })).headers.get('location'),
    '/links/my-link?created',
  );
  const plain = await b.submit('/', { url: 'https://example.com/b', enabled: 'true' });
  const again = await b.submit('/', { url: 'https://example.com/b', enabled: 'true' });
  t.is(again.headers.get('location'), (plain.headers.get('location') ?? '').replace('created', 'existing'));
  t.regex((await b.page(again.headers.get('location') ?? '')).html, /This URL was shortened before/);
});

test('the same URL again offers a separate link anyway, with or without a title, and makes one when asked', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const first = (await b.submit('/', { url: 'https://example.com/twice', enabled: 'true' })).headers.get('location') ?? '';
  const code = /\/links\/([^?]+)\?created/.exec(first)?.[1] ?? '';
  t.truthy(code);
  const count = async () => ((await (await k.get('/api/v1/links?limit=100')).json()) as { links: unknown[] }).links.length;

  // Without a title: the earlier link's page, saying so, with a form that asks for another.
  const again = await b.submit('/', { url: 'https://example.com/twice', enabled: 'true' });
  t.is(again.headers.get('location'), `/links/${code}?existing`);
  const { html: linkPage } = await b.page(`/links/${code}?existing`);
  t.regex(linkPage, /<div class="notice" role="status" id="same-url"><form method="post" action="\/" class="inline-form">/);
  t.regex(
    linkPage,
    /name="url" value="https:\/\/example\.com\/twice"[\s\S]*name="separate" value="1"[\s\S]*Create a separate link anyway<\/button>/,
  );

  // With a title: nothing stored yet, the form again as typed, naming the earlier link and offering another.
  const titled = await b.submit('/', {
    url: 'https://example.com/twice',
    title: 'Second try',
    tags: 'b, a',
    enabled: 'true',
    password: 'hidden pw',
  });
  t.is(titled.status, 200);
  const html = await titled.text();
  t.regex(html, new RegExp(`You already have a link for this URL: <a href="/links/${code}" class="mono">https://kurz\\.test/${code}</a>`));
  t.regex(html, /\(type the password again\)/);
  t.true(html.includes('value="Second try"'), 'the title is kept');
  t.false(html.includes('hidden pw'), 'a password is never echoed');
  t.regex(html, /<button type="submit" name="separate" value="1" aria-describedby="same-url">Create a separate link anyway<\/button>/);
  t.is(await count(), 1, 'nothing stored while asking');

  // Asked for: a second link, with the title; the earlier one untouched.
  const separate = await b.submit('/', { url: 'https://example.com/twice', title: 'Second try', enabled: 'true', separate: '1' });
  const second = /\/links\/([^?]+)\?created/.exec(separate.headers.get('location') ?? '')?.[1];
  t.truthy(second);
  t.not(second, code);
  t.like(await (await k.get(`/api/v1/links/${second}`)).json(), { url: 'https://example.com/twice', title: 'Second try' });
  // And from the earlier link's page, without options: a plain separate link too.
  const plainSeparate = await b.submit('/', { url: 'https://example.com/twice', domain: 'kurz.test', separate: '1', enabled: 'true' });
  t.regex(plainSeparate.headers.get('location') ?? '', /\?created$/);
  t.is(await count(), 3);
});

test('an invalid submission shows the form again with the error beside the field and what was typed, storing nothing', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const res = await b.submit('/', { url: 'javascript:alert("x")', alias: '', title: 'kept', password: 'not echoed' });
  t.is(res.status, 400);
  const html = await res.text();
  t.regex(html, /<p class="field-error" id="url-error" role="alert">Long URL must use http or https, not javascript<\/p>/);
  t.true(html.includes('value="javascript:alert(&quot;x&quot;)"'), 'the entered value is kept, escaped');
  t.regex(html, /id="url"[^>]* aria-describedby="url-error" aria-invalid="true"/);
  t.true(html.includes('value="kept"'));
  t.false(html.includes('not echoed'), 'a password is never sent back');
  t.notRegex(html, /<details class="options" open>/, 'the options stay closed for an error in the URL');
  t.is(await k.linkCount(), 0);
});

test('a form that gives a field twice, or whose text is not UTF-8, is refused rather than stored as something else', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const csrf = encodeURIComponent(await b.csrf());
  const send = (body: string | Buffer) =>
    fetch(k.base + '/', {
      method: 'POST',
      headers: { cookie: b.cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body,
      redirect: 'manual',
    });
  const bodies: Array<[string | Buffer, string]> = [
    [
      `_csrf=${csrf}&url=https%3A%2F%2Fexample.com%2F1&title=one&title=two`,
      'Request body gives the form field &quot;title&quot; more than once',
    ],
    [
      `_csrf=${csrf}&url=https%3A%2F%2Fexample.com%2F2&title=%FF%FE`,
      'Request body is not a valid form: &quot;%FF%FE&quot; is not percent-encoded UTF-8',
    ],
    [
      `_csrf=${csrf}&url=https%3A%2F%2Fexample.com%2F3&title=100%`,
      'Request body is not a valid form: &quot;100%&quot; is not percent-encoded UTF-8',
    ],
    [Buffer.from(`_csrf=${csrf}&url=https%3A%2F%2Fexample.com%2F4&title=caf\u00e9`, 'latin1'), 'Request body is not valid UTF-8'],
  ];
  for (const [body, message] of bodies) {
    const res = await send(body);
    t.is(res.status, 400, message);
    t.true((await res.text()).includes(message), message);
  }
  t.is(await k.linkCount(), 0);
  // Field names are taken as they are: no nested objects, no prototype to reach.
  const res = await send(`_csrf=${csrf}&url=https%3A%2F%2Fexample.com%2F5&enabled=true&title%5Bx%5D=1&__proto__%5Bpolluted%5D=1`);
  t.is(res.status, 303);
  t.is(({} as Record<string, unknown>)['polluted'], undefined);
  t.is(await k.linkCount(), 1);
});

test('an error in an option opens the options and names the field as the form labels it', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  for (const [fields, message] of [
    [{ expiresAt: 'tomorrow' }, 'Expires (UTC) must be a date and time like 2026-12-31T23:59'],
    [{ expiresAt: '2020-01-01T00:00' }, 'Expires (UTC) must be in the future'],
    [{ maxVisits: '0' }, 'Max visits must be a whole number from 1 to 1000000000'],
    [{ tags: 'ok, <b>' }, 'Tags &quot;&lt;b&gt;&quot; may only hold'],
  ] as const) {
    const res = await b.submit('/', { url: 'https://example.com/x', enabled: 'true', ...fields });
    t.is(res.status, 400);
    const html = await res.text();
    const field = Object.keys(fields)[0];
    t.regex(html, new RegExp(`id="${field}-error" role="alert">${message.replace(/[()]/g, '\\$&')}`), message);
    t.regex(html, /<details class="options" open>/);
  }
  t.is(await k.linkCount(), 0);
});

test('a taken alias in the form is a 409 with the message beside the alias', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  await b.submit('/', { url: 'https://example.com/1', alias: 'taken', enabled: 'true' });
  const res = await b.submit('/', { url: 'https://example.com/2', alias: 'taken', enabled: 'true' });
  t.is(res.status, 409);
  t.regex(await res.text(), /id="alias-error" role="alert">Custom alias &quot;taken&quot; is already taken/);
  t.is(await k.linkCount(), 1);
});

test('forms without or with a wrong CSRF token are refused with 403 and change nothing', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/x', alias: 'x' });
  const b = await browser(k);
  const other = await browser(k);
  const forms: Array<[string, Record<string, string>]> = [
    ['/', { url: 'https://example.com/new', enabled: 'true' }],
    ['/links/x', { url: 'https://example.com/changed', enabled: 'true' }],
    ['/links/x/state', { enabled: 'false' }],
    ['/links/x/delete', {}],
    ['/import', { urls: 'https://example.com/bulk' }],
    ['/keys', { name: 'sneaky' }],
    ['/keys/revoke', { name: 'tests' }],
    ['/logout', {}],
  ];
  const wrong = await other.csrf();
  for (const [path, fields] of forms) {
    t.is((await b.post(path, fields)).status, 403, `${path} without a token`);
    t.is((await b.post(path, { ...fields, _csrf: 'forged' })).status, 403, `${path} with a made-up token`);
    t.is((await b.post(path, { ...fields, _csrf: wrong })).status, 403, `${path} with another session's token`);
  }
  t.is(await k.linkCount(), 1);
  const res = await k.get('/x');
  t.is(res.status, 302);
  t.is(res.headers.get('location'), 'https://example.com/x');
  t.is((await k.get('/api/v1/links')).status, 200, 'the key still works');
  t.is((await b.get('/settings')).status, 200, 'still logged in');
  t.is((await k.kurz.services.access.listKeys()).length, 1);
});

test('the link page shows the visit count and last visit', async (t) => {
  const k = await startKurz(t);
  const created = await k.postJson('/api/v1/links', { url: 'https://example.com/visited', alias: 'seen', maxVisits: 10 });
  t.is(created.status, 201);
  const b = await browser(k);
  const before = (await b.page('/links/seen')).html;
  t.regex(before, /id="visit-count">0</);
  t.regex(before, /id="last-visit">never</);
  t.regex(before, /id="visits-used">0 of 10</);
  await k.get('/seen');
  await k.get('/seen');
  await k.flushVisits();
  const after = (await b.page('/links/seen')).html;
  t.regex(after, /id="visit-count">2</);
  t.regex(after, /id="visits-used">2 of 10</);
  t.true(after.includes('2026-01-15 12:00 UTC'));
});

test('the page of an unknown link is a 404 page', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const { res, html } = await b.page('/links/nope');
  t.is(res.status, 404);
  t.regex(html, /No link with code &quot;nope&quot;/);
  t.regex(html, /<h1>404 · Not Found<\/h1>/);
});

test('editing through the form changes the redirect at once', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/old', alias: 'moving', title: 'Old' });
  t.is((await k.get('/moving')).headers.get('location'), 'https://example.com/old');
  t.is((await k.get('/moving')).headers.get('location'), 'https://example.com/old', 'now cached');
  const b = await browser(k);
  const res = await b.submit('/links/moving', {
    url: 'https://example.com/new',
    title: '',
    note: 'now with a note',
    tags: 'a',
    expiresAt: '',
    maxVisits: '',
    password: '',
    redirectStatus: '308',
    forwardQuery: '',
    enabled: 'true',
  });
  t.is(res.status, 303);
  t.is(res.headers.get('location'), '/links/moving?saved');
  const redirect = await k.get('/moving');
  t.is(redirect.status, 308);
  t.is(redirect.headers.get('location'), 'https://example.com/new');
  t.like(await (await k.get('/api/v1/links/moving')).json(), { title: null, note: 'now with a note', tags: ['a'] });
  t.regex((await b.page('/links/moving?saved')).html, /Saved\. The short link follows the change at once\./);
});

test('a refused edit shows the form again as typed, and changes nothing', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/old', alias: 'stay' });
  const b = await browser(k);
  const res = await b.submit('/links/stay', { url: 'ftp://example.com/', title: 'typed', enabled: 'true' });
  t.is(res.status, 400);
  const html = await res.text();
  t.regex(html, /id="url-error" role="alert">Long URL must use http or https, not ftp/);
  t.true(html.includes('value="ftp://example.com/"'));
  t.true(html.includes('value="typed"'));
  t.is((await k.get('/stay')).headers.get('location'), 'https://example.com/old');
});

test('an empty password field keeps the password; "remove the password" removes it', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/p', alias: 'locked', password: 'pw123456' });
  const b = await browser(k);
  const fields = { url: 'https://example.com/p', enabled: 'true' };
  await b.submit('/links/locked', { ...fields, password: '' });
  t.true(((await (await k.get('/api/v1/links/locked')).json()) as { passwordProtected: boolean }).passwordProtected);
  t.regex((await b.page('/links/locked')).html, /name="removePassword"/);
  await b.submit('/links/locked', { ...fields, removePassword: 'true' });
  t.false(((await (await k.get('/api/v1/links/locked')).json()) as { passwordProtected: boolean }).passwordProtected);
  t.is((await k.get('/locked')).status, 302);
});

test('disabling makes the link answer 410, enabling brings it back', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/s', alias: 'switch' });
  const b = await browser(k);
  const off = await b.submit('/links/switch/state', { enabled: 'false' });
  t.is(off.headers.get('location'), '/links/switch?disabled');
  t.is((await k.get('/switch')).status, 410);
  const page = (await b.page('/links/switch?disabled')).html;
  t.regex(page, /The link is disabled/);
  t.regex(page, /<input type="hidden" name="enabled" value="true">/);
  t.regex(page, />Enable link</);
  await b.submit('/links/switch/state', { enabled: 'true' });
  t.is((await k.get('/switch')).status, 302);
  t.is((await b.submit('/links/switch/state', { enabled: 'maybe' })).status, 400);
});

test('deleting asks first, then the link answers 410, shows as deleted and cannot be edited', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/d', alias: 'doomed' });
  const b = await browser(k);
  const confirm = await b.page('/links/doomed/delete');
  t.is(confirm.res.status, 200);
  t.regex(confirm.html, /<form method="post" action="\/links\/doomed\/delete"/);
  t.is((await k.get('/doomed')).status, 302, 'asking deletes nothing');
  const res = await b.submit('/links/doomed/delete', {});
  t.is(res.status, 303);
  t.is(res.headers.get('location'), '/links?deleted=doomed');
  t.regex((await b.page('/links?deleted=doomed')).html, /Link <span class="mono">doomed<\/span> was deleted/);
  t.is((await k.get('/doomed')).status, 410);
  const page = (await b.page('/links/doomed')).html;
  t.regex(page, /This link was deleted on/);
  t.notRegex(page, /Save changes|Disable link|Delete link…/);
  t.notRegex(page, /data-copy=|Download the QR code/, 'nothing to copy or print: the code leads nowhere');
  t.regex(
    (await b.page('/links?state=deleted')).html,
    /<a href="\/links\/doomed" class="mono">doomed<\/a>/,
    'the deleted links have their filter',
  );
  t.is((await b.get('/links/doomed/delete')).status, 410);
  t.is((await b.submit('/links/doomed/delete', {})).status, 410);
  t.is((await b.submit('/links/doomed', { url: 'https://example.com/again', enabled: 'true' })).status, 410);
  t.is((await k.get('/doomed')).status, 410);
});

test('the list searches, filters by tag, sorts and pages with the filters kept', async (t) => {
  const k = await startKurz(t);
  const links = Array.from({ length: 25 }, (_, i) => ({ url: `https://example.com/item/${i}`, tags: i % 5 === 0 ? ['five'] : [] }));
  t.is((await k.postJson('/api/v1/links/batch', { links })).status, 200);
  await k.postJson('/api/v1/links', { url: 'https://other.example/special', alias: 'special' });
  const b = await browser(k);

  const first = (await b.page('/links')).html;
  t.is([...first.matchAll(/<td data-label="Short link">/g)].length, 20);
  t.regex(first, /<option value="five">five \(5\)<\/option>/);
  const next = /<a href="([^"]+)" rel="next">Next page/.exec(first)?.[1]?.replaceAll('&amp;', '&');
  t.truthy(next);
  t.notRegex(first, /rel="first"/);
  const second = (await b.page(next ?? '')).html;
  t.is([...second.matchAll(/<td data-label="Short link">/g)].length, 6);
  t.regex(second, /<a href="\/links" rel="first">← First page/);
  t.notRegex(second, /rel="next"/);

  const search = (await b.page('/links?q=special')).html;
  t.is([...search.matchAll(/<td data-label="Short link">/g)].length, 1);
  t.regex(search, /value="special"/);

  const tagged = (await b.page('/links?tag=five&sort=visits&limit=2')).html;
  t.regex(tagged, /<option value="five" selected>/);
  t.regex(tagged, /<option value="visits" selected>/);
  const taggedNext = /<a href="([^"]+)" rel="next">/.exec(tagged)?.[1]?.replaceAll('&amp;', '&') ?? '';
  const params = new URL(taggedNext, k.base).searchParams;
  t.is(params.get('tag'), 'five');
  t.is(params.get('sort'), 'visits');
  t.is(params.get('limit'), '2');
  t.truthy(params.get('cursor'));
  const page2 = (await b.page(taggedNext)).html;
  t.is([...page2.matchAll(/<td data-label="Short link">/g)].length, 2);
  t.regex(page2, /<a href="\/links\?tag=five&amp;limit=2&amp;sort=visits" rel="first">/);

  t.is((await b.get('/links?sort=sideways')).status, 400);
});

test('a <script> in a title, note, tag or alias is shown as text in the list and on the link page', async (t) => {
  const k = await startKurz(t);
  const evil = '<script>alert(1)</script>';
  const created = await k.postJson('/api/v1/links', { url: 'https://example.com/?q="><script>', alias: 'evil', title: evil, note: evil });
  t.is(created.status, 201);
  const b = await browser(k);
  for (const path of ['/links', '/links/evil', '/']) {
    const html = (await b.page(path)).html;
    t.false(html.includes('<script>alert'), path);
    t.true(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), path);
  }
  // Tags and aliases cannot hold markup at all; the refusal quotes it, escaped.
  const tag = await b.submit('/', { url: 'https://example.com/t', tags: evil, enabled: 'true' });
  t.is(tag.status, 400);
  const tagHtml = await tag.text();
  t.false(tagHtml.includes('<script>alert'));
  t.true(tagHtml.includes('value="&lt;script&gt;alert(1)&lt;/script&gt;"'));
  const alias = await b.submit('/', { url: 'https://example.com/a', alias: evil, enabled: 'true' });
  t.is(alias.status, 400);
  const aliasHtml = await alias.text();
  t.false(aliasHtml.includes('<script>alert'));
  t.regex(aliasHtml, /id="alias-error" role="alert">/);
});

test('the settings page shows the effective configuration and how to change the password', async (t) => {
  const k = await startKurz(t, { dedupeWindow: '7d', anonymousShortening: true });
  const b = await browser(k);
  const { html } = await b.page('/settings');
  const row = (name: string, value: string, changed: boolean) =>
    new RegExp(
      `<code class="option-name">${name}</code>${changed ? ' <span class="state state-active">changed</span>' : ''}</span></td>\\s*<td data-label="Value"><code>${value}</code>`,
    );
  t.regex(html, row('dedupeWindow', '7d', true));
  t.regex(html, row('anonymousShortening', 'true', true));
  t.regex(html, row('publicUrl', 'https://kurz\\.test', true));
  t.regex(html, row('codeLength', '6', false));
  // By topic, the changed options first in theirs.
  const links = /<h2 id="links">Links and redirects<\/h2>([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
  const names = [...links.matchAll(/<tr( class="changed")?>\s*<td data-label="Option"><span><code class="option-name">(\w+)</g)].map(
    (m) => `${m[2]}${m[1] ? '*' : ''}`,
  );
  t.deepEqual(names.slice(0, 3), ['dedupeWindow*', 'codeLength', 'codeMode'], 'the changed ones first, then the rest in order');
  t.is(names.length, 13);
  t.regex(html, /<p>\d+ options differ from the default, first in their topics\. Topics: <a href="#server">Server and proxy<\/a>/);
  t.regex(
    html,
    /<code class="setting-name">KURZ_<wbr>DEDUPE_<wbr>WINDOW<wbr><\/code><br><code class="setting-name">--dedupe-<wbr>window<wbr><\/code>/,
  );
  t.regex(
    html,
    /<code class="setting-name">KURZ_<wbr>DATABASE_<wbr>URL<wbr><\/code> or <code class="setting-name">KURZ_<wbr>DATABASE_<wbr>URL_<wbr>FILE<wbr><\/code><br><code class="setting-name">--database-<wbr>url<wbr><\/code> \(without a password\)/,
  );
  t.regex(html, row('headersTimeout', '10s', false), 'a default given as a duration is the default');
  t.regex(html, /kurz admin password/);
  t.notRegex(html, /session_secret|admin_password|scrypt\$/);
});

test('the stylesheet and script are served to anyone; other assets are 404', async (t) => {
  const k = await startKurz(t);
  const css = await fetch(`${k.base}/assets/kurz.css`);
  t.is(css.status, 200);
  t.is(css.headers.get('content-type'), 'text/css; charset=utf-8');
  t.regex(await css.text(), /prefers-color-scheme: dark/);
  const js = await fetch(`${k.base}/assets/kurz.js`);
  t.is(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.regex(await js.text(), /navigator\.clipboard/);
  t.is((await fetch(`${k.base}/assets/layout.eta`, { headers: { accept: BROWSER_ACCEPT } })).status, 404);
  t.is((await fetch(`${k.base}/assets/../package.json`)).status, 404);
});

test('error pages say what happened and what to do', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/g', alias: 'gone' });
  await k.request('DELETE', '/api/v1/links/gone');
  const page = async (path: string) => {
    const res = await fetch(k.base + path, { headers: { accept: BROWSER_ACCEPT } });
    return { status: res.status, csp: res.headers.get('content-security-policy'), html: await res.text() };
  };
  const missing = await page('/nothing-here');
  t.is(missing.status, 404);
  t.regex(missing.html, /<h1>404 · Not Found<\/h1>[\s\S]*case-sensitive/);
  t.is(missing.csp, PAGE_CSP);
  const gone = await page('/gone');
  t.is(gone.status, 410);
  t.regex(gone.html, /never given to another link/);
  const unauthorized = await fetch(`${k.base}/keys`, {
    method: 'POST',
    headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'name=x',
  });
  t.is(unauthorized.status, 401);
  t.regex(await unauthorized.text(), /<a class="button" href="\/login">Log in<\/a>/);
});

test('the password page lets its form lead on to the target, and only that page', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/p', alias: 'locked', password: 'pw123456' });
  const res = await fetch(`${k.base}/locked`, { headers: { accept: BROWSER_ACCEPT } });
  t.is(res.status, 200);
  t.is(res.headers.get('content-security-policy'), PAGE_CSP.replace("form-action 'self'", "form-action 'self' http: https:"));
  const html = await res.text();
  t.regex(html, /<form method="post" action="\/links\/locked\/unlock"/);
  t.regex(html, /<label for="password">Password<\/label>/);
});
