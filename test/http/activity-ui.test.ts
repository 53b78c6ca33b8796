import test from 'ava';
import type { Actor } from '../../src/auth/actor.ts';
import { BROWSER_ACCEPT, startKurz } from '../helpers.ts';
import { SERVER_ADMIN } from '../../src/auth/actor.ts';

// /activity and the link page's History: entries seeded through services.audit.record, read as pages.

const ADMIN: Actor = { userId: 1, name: 'admin', role: 'admin', via: { kind: 'session' }, client: '203.0.113.5' };
const ANA: Actor = { userId: 2, name: 'ana', role: 'member', via: { kind: 'key', key: 'deploy' }, client: '198.51.100.7' };

async function seeded(t: Parameters<typeof startKurz>[0]) {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/a', alias: 'a' })).status, 201);
  const a = { kind: 'link' as const, id: (await k.kurz.services.links.existingLink(SERVER_ADMIN, 'a')).id, label: 'kurz.test/a' };
  const { audit } = k.kurz.services;
  for (let i = 0; i < 55; i++) {
    k.clock.advance(60_000);
    await audit.record(ADMIN, 'key.create', { kind: 'key', id: i, label: `key-${i}` });
  }
  k.clock.advance(60_000);
  await audit.record(ANA, 'link.edit', a, { url: 'https://example.com/<b>' });
  const cookie = await k.login();
  const page = async (path: string) => {
    const res = await fetch(k.base + path, { headers: { cookie, accept: BROWSER_ACCEPT }, redirect: 'manual' });
    return { status: res.status, html: await res.text() };
  };
  return { k, page };
}

test('/activity lists entries newest first, 50 a page, filtered by the GET form; a link subject links to its page', async (t) => {
  const { page } = await seeded(t);
  const first = await page('/activity');
  t.is(first.status, 200);
  t.regex(first.html, /<a class="mono" href="\/links\/a">kurz\.test\/a<\/a>/);
  t.true(first.html.includes('url: https://example.com/&lt;b&gt;'), 'details are escaped');
  t.is((first.html.match(/<tr>/g) ?? []).length, 51, 'a header row and 50 entries');
  const next = /href="(\/activity\?cursor=[^"]+)" rel="next"/.exec(first.html)?.[1];
  t.truthy(next);
  const second = await page(next!.replaceAll('&amp;', '&'));
  t.is((second.html.match(/<tr>/g) ?? []).length, 8, "a header row and the last 7 of 57: a's creation, 55 keys and an edit");
  t.regex(second.html, /key-0</);
  t.regex(second.html, /rel="first"/);

  const ana = await page('/activity?user=ana&action=link');
  t.is((ana.html.match(/<tr>/g) ?? []).length, 2);
  t.regex(ana.html, /link\.edit/);
  t.is((await page('/activity?action=key.revoke')).html.match(/Nothing matches/)?.length, 1);
});

test('/activity with a bad filter answers 400 with the form and the field’s message; without a session it sends to the login', async (t) => {
  const { k, page } = await seeded(t);
  const bad = await page('/activity?from=yesterday');
  t.is(bad.status, 400);
  t.regex(bad.html, /from must be an ISO 8601 date/);
  t.is((await page('/activity?action=link.frobnicate')).status, 400);
  const anonymous = await fetch(`${k.base}/activity`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
  t.is(anonymous.status, 303);
});

test('the link page shows its History', async (t) => {
  const { page } = await seeded(t);
  const link = await page('/links/a');
  t.is(link.status, 200);
  t.regex(link.html, /<h2 id="history">History<\/h2>/);
  t.regex(link.html, /<strong>ana<\/strong> <small>\(API key deploy, 198\.51\.100\.7\)<\/small>/);
  t.notRegex(link.html, /key\.create/, 'only its own entries');
});
