import test from 'ava';
import { startKurz, type TestKurz } from '../helpers.ts';
import { browser } from './ui-session.ts';
import { SERVER_ADMIN } from '../../src/auth/actor.ts';

// The pages with several domains: the admin page, the create form's select, the list's filter, and a link's
// pages addressed by `?domain=` with every link, form and redirect keeping it.

/** Kurz with s2.kurz.test and the alias `go` on the default domain and on s2, each with its own target. */
async function withS2(t: Parameters<typeof startKurz>[0]): Promise<TestKurz> {
  const k = await startKurz(t);
  const { domains, creation } = k.kurz.services;
  await domains.addDomain(SERVER_ADMIN, 's2.kurz.test', {});
  await creation.createLink(SERVER_ADMIN, { url: 'https://example.com/default-go', alias: 'go' });
  await creation.createLink(SERVER_ADMIN, { url: 'https://example.com/s2-go', alias: 'go', domain: 's2.kurz.test' });
  return k;
}

test('/domains lists every domain with its links, the default marked, and adds one from the form', async (t) => {
  const k = await withS2(t);
  const b = await browser(k);
  const { res, html } = await b.page('/domains');
  t.is(res.status, 200);
  t.regex(html, /<strong>kurz\.test<\/strong> <span class="state state-active">default<\/span>/);
  t.regex(html, /<strong>s2\.kurz\.test<\/strong>/);
  t.regex(html, /href="\/links\?domain=s2\.kurz\.test">1<\/a>/);
  t.regex(html, /<a href="\/domains" aria-current="page">Domains<\/a>/);
  const added = await b.submit('/domains', {
    host: 'S3.Kurz.Test',
    scheme: 'http',
    notFoundRedirect: '',
    rootRedirect: 'https://example.com/s3',
  });
  t.is(added.status, 303);
  t.is(added.headers.get('location'), '/domains?added=s3.kurz.test');
  t.like(k.kurz.services.domains.named('s3.kurz.test'), { scheme: 'http', rootRedirect: 'https://example.com/s3' });
  t.regex((await b.page('/domains?added=s3.kurz.test')).html, /The domain <strong>s3\.kurz\.test<\/strong> was added/);
});

test('the add form is shown again with the reason: a bad host, a taken one, a redirect back to kurz', async (t) => {
  const k = await withS2(t);
  const b = await browser(k);
  for (const [fields, status, message] of [
    [{ host: 'http://x.test/' }, 400, /Host must be a bare host name/],
    [{ host: 's2.kurz.test' }, 409, /exists already/],
    [{ host: 'kurz.test' }, 409, /default domain already/],
    [{ host: 's4.kurz.test', rootRedirect: 'https://kurz.test/go' }, 400, /Root redirect leads back to kurz/],
  ] as const) {
    const res = await b.submit('/domains', { scheme: '', notFoundRedirect: '', rootRedirect: '', ...fields });
    t.is(res.status, status, fields.host);
    t.regex(await res.text(), message, fields.host);
  }
  t.is((await b.post('/domains', { host: 's5.kurz.test' })).status, 403, 'no CSRF token');
});

test('a domain is edited on its page; an empty field clears it', async (t) => {
  const k = await withS2(t);
  const b = await browser(k);
  const { html } = await b.page('/domains/s2.kurz.test');
  t.regex(html, /action="\/domains\/s2\.kurz\.test"/);
  const saved = await b.submit('/domains/s2.kurz.test', { scheme: 'http', notFoundRedirect: 'https://example.com/lost', rootRedirect: '' });
  t.is(saved.headers.get('location'), '/domains?saved=s2.kurz.test');
  t.like(k.kurz.services.domains.named('s2.kurz.test'), { scheme: 'http', notFoundRedirect: 'https://example.com/lost' });
  await b.submit('/domains/s2.kurz.test', { scheme: '', notFoundRedirect: '', rootRedirect: '' });
  t.like(k.kurz.services.domains.named('s2.kurz.test'), { scheme: null, notFoundRedirect: null });
  t.is((await b.get('/domains/s9.kurz.test')).status, 404);
});

test('removing asks first, is refused with the reason while links use the domain, and works once none does', async (t) => {
  const k = await withS2(t);
  const b = await browser(k);
  const ask = await b.page('/domains/s2.kurz.test/remove');
  t.regex(ask.html, /1 live link is<\/a> on s2\.kurz\.test/);
  t.notRegex(ask.html, /Remove domain<\/button>/);
  const refused = await b.submit('/domains/s2.kurz.test/remove', {});
  t.is(refused.status, 409);
  t.regex(await refused.text(), /id="remove-refused">1 live link is on s2\.kurz\.test/);
  t.is((await b.get('/domains/kurz.test/remove')).status, 409, 'the default domain');
  await k.kurz.services.links.deleteLink(SERVER_ADMIN, 'go', k.kurz.services.registry.idOf('s2.kurz.test'));
  t.regex((await b.page('/domains/s2.kurz.test/remove')).html, /Remove domain<\/button>/);
  const removed = await b.submit('/domains/s2.kurz.test/remove', {});
  t.is(removed.headers.get('location'), '/domains?removed=s2.kurz.test');
  t.notRegex((await b.page('/domains')).html, /<strong>s2\.kurz\.test<\/strong>/);
});

test('the create form offers the domains only when there are several, the default preselected, and creates on the one chosen', async (t) => {
  const one = await startKurz(t);
  t.notRegex((await (await browser(one)).page('/')).html, /name="domain"/);
  const k = await withS2(t);
  const b = await browser(k);
  const { html } = await b.page('/');
  t.regex(html, /<option value="kurz\.test" selected>kurz\.test \(default\)<\/option>/);
  t.regex(html, /<option value="s2\.kurz\.test">s2\.kurz\.test<\/option>/);
  const created = await b.submit('/', { url: 'https://example.com/made-on-s2', alias: 'mine', domain: 's2.kurz.test', enabled: 'true' });
  t.is(created.status, 303);
  t.is(created.headers.get('location'), '/links/mine?domain=s2.kurz.test&created');
  const page = await b.page('/links/mine?domain=s2.kurz.test&created');
  t.regex(page.html, /id="short-url">https:\/\/s2\.kurz\.test\/mine</);
  t.regex(page.html, /id="link-domain">s2\.kurz\.test</);
  t.regex(page.html, /src="\/api\/v1\/links\/mine\/qr\?format=svg&amp;domain=s2\.kurz\.test"/);
  const taken = await b.submit('/', { url: 'https://example.com/again', alias: 'go', domain: 's2.kurz.test' });
  t.is(taken.status, 409);
  t.regex(await taken.text(), /on s2\.kurz\.test/);
  t.is((await b.submit('/', { url: 'https://example.com/x', domain: 'nowhere.test' })).status, 400);
});

test('the same alias on two domains: each link page shows its own target, and forms and redirects keep ?domain', async (t) => {
  const k = await withS2(t);
  const b = await browser(k);
  t.regex((await b.page('/links/go')).html, /id="target-url">https:\/\/example\.com\/default-go</);
  const s2 = (await b.page('/links/go?domain=s2.kurz.test')).html;
  t.regex(s2, /id="target-url">https:\/\/example\.com\/s2-go</);
  t.regex(s2, /action="\/links\/go\?domain=s2\.kurz\.test"/);
  t.regex(s2, /action="\/links\/go\/state\?domain=s2\.kurz\.test"/);
  t.regex(s2, /href="\/links\/go\/delete\?domain=s2\.kurz\.test"/);
  t.regex(s2, /href="\/links\/go\/stats\?domain=s2\.kurz\.test"/);
  const off = await b.submit('/links/go/state?domain=s2.kurz.test', { enabled: 'false' });
  t.is(off.headers.get('location'), '/links/go?domain=s2.kurz.test&disabled');
  const { links, registry } = k.kurz.services;
  t.false((await links.existingLink(SERVER_ADMIN, 'go', registry.idOf('s2.kurz.test'))).enabled);
  t.true((await links.existingLink(SERVER_ADMIN, 'go')).enabled, 'the default domain’s go is untouched');
  const stats = await b.page('/links/go/stats?domain=s2.kurz.test');
  t.is(stats.res.status, 200);
  t.regex(stats.html, /https:\/\/s2\.kurz\.test\/go/);
  t.regex((await b.page('/links/go/delete?domain=s2.kurz.test')).html, /action="\/links\/go\/delete\?domain=s2\.kurz\.test"/);
  const deleted = await b.submit('/links/go/delete?domain=s2.kurz.test', {});
  t.is(deleted.headers.get('location'), '/links?domain=s2.kurz.test&deleted=go');
  t.is((await links.existingLink(SERVER_ADMIN, 'go')).deletedAt, null);
  t.is((await b.get('/links/go?domain=nowhere.test')).status, 400);
});

test('a code on one domain is 404 on the others’ pages', async (t) => {
  const k = await withS2(t);
  const { link } = await k.kurz.services.creation.createLink(SERVER_ADMIN, { url: 'https://example.com/only-s2', domain: 's2.kurz.test' });
  const b = await browser(k);
  t.is((await b.get(`/links/${link.code}?domain=s2.kurz.test`)).status, 200);
  for (const path of ['', '/stats', '/delete']) t.is((await b.get(`/links/${link.code}${path}`)).status, 404, path);
});

test('the edit form moves a link to another domain and its page follows it', async (t) => {
  const k = await withS2(t);
  const { link } = await k.kurz.services.creation.createLink(SERVER_ADMIN, { url: 'https://example.com/mover' });
  const b = await browser(k);
  const form = (await b.page(`/links/${link.code}`)).html;
  t.regex(form, /<option value="kurz\.test" selected>kurz\.test \(default\)<\/option>/);
  const saved = await b.submit(`/links/${link.code}`, { url: 'https://example.com/mover', domain: 's2.kurz.test', enabled: 'true' });
  t.is(saved.headers.get('location'), `/links/${link.code}?domain=s2.kurz.test&saved`);
  t.is((await b.get(`/links/${link.code}`)).status, 404);
  const clash = await b.submit('/links/go', { url: 'https://example.com/default-go', domain: 's2.kurz.test', enabled: 'true' });
  t.is(clash.status, 409);
  const kept = await b.submit('/links/go?domain=s2.kurz.test', {
    url: 'https://example.com/s2-kept',
    domain: 's2.kurz.test',
    enabled: 'true',
  });
  t.is(kept.headers.get('location'), '/links/go?domain=s2.kurz.test&saved', 'its own domain is no move');
});

test('the list filters by domain, keeps the filter while paging and shows each short URL with its domain', async (t) => {
  const k = await withS2(t);
  for (let i = 0; i < 3; i++)
    await k.kurz.services.creation.createLink(SERVER_ADMIN, { url: `https://example.com/p${i}`, domain: 's2.kurz.test' });
  const b = await browser(k);
  const all = (await b.page('/links')).html;
  t.regex(all, /https:\/\/kurz\.test\/go/);
  t.regex(all, /https:\/\/s2\.kurz\.test\/go/);
  t.regex(all, /<option value="" selected>All domains<\/option>/);
  const s2 = (await b.page('/links?domain=s2.kurz.test&limit=2')).html;
  t.regex(s2, /<option value="s2\.kurz\.test" selected>/);
  t.notRegex(s2, /https:\/\/kurz\.test\/go/);
  t.regex(s2, /href="\/links\?domain=s2\.kurz\.test&amp;limit=2&amp;cursor=[\w-]+" rel="next"/);
  t.is((await b.get('/links?domain=nowhere.test')).status, 400);
});

test('the dashboard shows each domain’s links and visits when there are several', async (t) => {
  const one = await startKurz(t);
  t.notRegex((await (await browser(one)).page('/')).html, /id="per-domain"/);
  const k = await withS2(t);
  const html = (await (await browser(k)).page('/')).html;
  t.regex(html, /id="per-domain"/);
  t.regex(html, /href="\/links\?domain=s2\.kurz\.test">s2\.kurz\.test<\/a><\/th><td class="num">1<\/td>/);
});
