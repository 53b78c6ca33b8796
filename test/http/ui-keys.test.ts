import test from 'ava';
import { startKurz } from '../helpers.ts';
import { browser } from './ui-session.ts';

test('a new key is shown once, works, and the list never shows it again', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const res = await b.submit('/keys', { name: 'deploy bot' });
  t.is(res.status, 200);
  t.is(res.headers.get('cache-control'), 'no-store');
  const html = await res.text();
  const secret = /<code class="secret" id="new-key-value">(kurz_[\w-]+)<\/code>/.exec(html)?.[1] ?? '';
  t.truthy(secret);
  t.regex(html, /it is shown only this once/);
  t.regex(html, new RegExp(`data-copy="${secret}"`));
  const api = await fetch(`${k.base}/api/v1/links`, { headers: { authorization: `Bearer ${secret}` } });
  t.is(api.status, 200);

  const list = (await b.page('/keys')).html;
  t.false(list.includes(secret), 'the key is never shown again');
  t.regex(list, /<strong>deploy bot<\/strong>/);
  t.regex(list, new RegExp(`<code>${secret.slice(0, 11)}…</code>`));
  t.notRegex(list, /id="new-key-value"/);
});

test('a bad or taken name is shown beside the field', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const taken = await b.submit('/keys', { name: 'tests' });
  t.is(taken.status, 409);
  const html = await taken.text();
  t.regex(html, /id="name-error" role="alert">an API key named &quot;tests&quot; exists already/);
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
  t.regex(after, /<span class="state state-off">revoked<\/span>/);
  t.notRegex(after, /href="\/keys\/revoke\?name=tests"/, 'no revoke button for a revoked key');
  t.is((await b.get('/keys/revoke?name=tests')).status, 404);
  t.is((await b.submit('/keys/revoke', { name: 'tests' })).status, 404);
});
