import test from 'ava';
import { startKurz } from '../helpers.ts';
import { browser } from './ui-session.ts';

test('a new key is shown once, on the page its creation leads to, works, and the list never shows it again', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const made = await b.submit('/keys', { name: 'deploy bot' });
  t.is(made.status, 303, 'post-redirect-get: a reload sends no form again');
  t.is(made.headers.get('location'), '/keys#new-key');
  t.regex(made.headers.getSetCookie()[0] ?? '', /^__Host-kurz_new_key=[\w-]+; path=\/; expires=.+; samesite=strict; secure; httponly$/);
  const { res, html } = await b.follow(made);
  t.is(res.status, 200);
  t.is(res.headers.get('cache-control'), 'no-store');
  t.regex(res.headers.getSetCookie().join('\n'), /__Host-kurz_new_key=;/, 'the cookie is cleared once shown');
  const secret = /<code class="secret" id="new-key-value">(kurz_[\w-]+)<\/code>/.exec(html)?.[1] ?? '';
  t.truthy(secret);
  t.regex(html, /it is shown only this once/);
  t.regex(html, new RegExp(`data-copy="${secret}"`));
  const api = await fetch(`${k.base}/api/v1/links`, { headers: { authorization: `Bearer ${secret}` } });
  t.is(api.status, 200);

  const list = (await b.page('/keys')).html;
  t.false(list.includes(secret), 'the key is never shown again');
  t.regex(list, /<strong class="key-name">deploy bot<\/strong>/);
  t.regex(list, new RegExp(`<code>${secret.slice(0, 11)}…</code>`));
  t.notRegex(list, /id="new-key-value"/);
});

test('a bad or taken name is shown beside the field', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const taken = await b.submit('/keys', { name: 'tests' });
  t.is(taken.status, 409);
  const html = await taken.text();
  t.regex(html, /id="name-error" role="alert">An API key named &quot;tests&quot; exists already/);
  t.regex(html, /id="name" name="name" value="tests"/);
  const bad = await b.submit('/keys', { name: '<b>' });
  t.is(bad.status, 400);
  t.regex(await bad.text(), /id="name-error" role="alert">Name must be 1-64 letters/);
  t.is((await k.kurz.services.access.listKeys()).length, 1);
});

test('revoking asks first; then the key gets 401 on the API', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  t.is((await k.get('/api/v1/links')).status, 200);
  const list = (await b.page('/keys')).html;
  t.regex(list, /<a class="button small danger" href="\/keys\/revoke\?name=tests">Revoke…/);
  const confirm = await b.page('/keys/revoke?name=tests');
  t.is(confirm.res.status, 200);
  t.regex(confirm.html, /<form method="post" action="\/keys\/revoke"[\s\S]*<input type="hidden" name="name" value="tests">/);
  t.is((await k.get('/api/v1/links')).status, 200, 'asking revokes nothing');
  const res = await b.submit('/keys/revoke', { name: 'tests' });
  t.is(res.status, 303);
  t.is(res.headers.get('location'), '/keys?revoked=tests');
  t.is((await k.get('/api/v1/links')).status, 401);
  const after = (await b.page('/keys?revoked=tests')).html;
  t.regex(after, /The key “tests” was revoked/);
  t.regex(after, /<p class="empty">No key works now: every one is revoked\.<\/p>/);
  t.regex(
    after,
    /<details class="revoked-keys">\s*<summary id="revoked-keys">Revoked keys \(1\)<\/summary>[\s\S]*<strong class="key-name">tests<\/strong>[\s\S]*<span class="state state-off">revoked<\/span>[\s\S]*<\/details>/,
    'folded away',
  );
  t.notRegex(after, /href="\/keys\/revoke\?name=tests"/, 'no revoke button for a revoked key');
  t.is((await b.get('/keys/revoke?name=tests')).status, 404);
  t.is((await b.submit('/keys/revoke', { name: 'tests' })).status, 404);
});

test('the create form ticks the default scopes; a key gets the scopes ticked and the lifetime chosen, and the list shows them', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const form = (await b.page('/keys')).html;
  for (const scope of ['links:read', 'links:write', 'stats:read'])
    t.regex(form, new RegExp(`<input type="checkbox" id="scope:${scope}" name="scope:${scope}" value="true" checked`), scope);
  for (const scope of ['export', 'admin'])
    t.regex(form, new RegExp(`<input type="checkbox" id="scope:${scope}" name="scope:${scope}" value="true" aria-describedby`), scope);
  t.regex(form, /<option value="never" selected>Never<\/option>/);

  const res = await b.submit('/keys', { name: 'reports', 'scope:stats:read': 'true', 'scope:export': 'true', expires: '30d' });
  t.is(res.status, 303);
  const secret = /<code class="secret" id="new-key-value">(kurz_[\w-]+)<\/code>/.exec((await b.follow(res)).html)?.[1] ?? '';
  const key = (await k.kurz.services.access.listKeys()).find((listed) => listed.name === 'reports');
  t.deepEqual(key?.scopes, ['stats:read', 'export']);
  t.is(key?.expiresAt?.getTime(), k.clock.now() + 30 * 86_400_000);
  t.is((await fetch(`${k.base}/api/v1/links`, { headers: { authorization: `Bearer ${secret}` } })).status, 403, 'no links:read');
  t.is((await fetch(`${k.base}/api/v1/stats`, { headers: { authorization: `Bearer ${secret}` } })).status, 200);

  const none = await b.submit('/keys', { name: 'defaults', expires: 'never' });
  t.is(none.status, 303);
  t.deepEqual((await k.kurz.services.access.listKeys()).find((listed) => listed.name === 'defaults')?.scopes, [
    'links:read',
    'links:write',
    'stats:read',
  ]);

  const list = (await b.page('/keys')).html;
  t.regex(
    list,
    /<td data-label="Scopes"><span>stats:read export<\/span><\/td>\s*<td data-label="Created"><span>[^<]+<\/span><\/td>\s*<td data-label="Expires"><span>2026-02-14[^<]*<\/span><\/td>/,
  );
  k.clock.advance(30 * 86_400_000);
  // A month on, the session has ended too: a new login.
  const later = await browser(k);
  t.regex((await later.page('/keys')).html, /<span class="state state-off">expired<\/span>/);

  const bad = await later.submit('/keys', { name: 'odd', expires: '1000y' });
  t.is(bad.status, 400);
  t.regex(await bad.text(), /id="expires-error" role="alert">Expires must be one of never, 7d, 30d, 90d, 365d/);
});
