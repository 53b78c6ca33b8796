import test from 'ava';
import { startKurz, type TestKurz } from '../helpers.ts';
import { member } from './members.ts';
import { browser } from './ui-session.ts';

/** Each link's tags, by its code. */
async function tagsOf(k: TestKurz, codes: readonly string[]): Promise<Record<string, string[]>> {
  const shown: Record<string, string[]> = {};
  for (const code of codes) shown[code] = ((await (await k.get(`/api/v1/links/${code}`)).json()) as { tags: string[] }).tags;
  return shown;
}

async function linkWith(k: TestKurz, alias: string, tags: string[]): Promise<string> {
  const res = await k.postJson('/api/v1/links', { url: `https://example.com/${alias}`, alias, tags });
  if (res.status !== 201) throw new Error(`creating ${alias}: ${res.status}`);
  return alias;
}

test('PATCH /api/v1/tags/TAG renames a tag on every link that has it; an existing name merges the two, one tag per link', async (t) => {
  const k = await startKurz(t);
  const codes = [await linkWith(k, 'a1', ['news', 'old']), await linkWith(k, 'a2', ['old']), await linkWith(k, 'a3', ['other'])];
  const renamed = await k.request('PATCH', '/api/v1/tags/old', { name: 'news' });
  t.is(renamed.status, 200);
  t.deepEqual(await renamed.json(), { from: 'old', to: 'news', links: 2 });
  t.deepEqual(await tagsOf(k, codes), { a1: ['news'], a2: ['news'], a3: ['other'] });
  const counts = (await (await k.get('/api/v1/tags')).json()) as { tags: Array<{ tag: string; count: number }> };
  t.deepEqual(counts.tags, [
    { tag: 'news', count: 2 },
    { tag: 'other', count: 1 },
  ]);
  const spaced = await k.request('PATCH', `/api/v1/tags/${encodeURIComponent('news')}`, { name: '  Press releases ' });
  t.deepEqual(await spaced.json(), { from: 'news', to: 'Press releases', links: 2 }, 'trimmed, as tags are');
  t.deepEqual(await tagsOf(k, codes), { a1: ['Press releases'], a2: ['Press releases'], a3: ['other'] });
  const back = await k.request('PATCH', `/api/v1/tags/${encodeURIComponent('Press releases')}`, { name: 'news' });
  t.is(back.status, 200, 'a tag with a space is named in the path percent-encoded');
});

test('a malformed rename is a 400 naming the field, an unknown tag a 404, and nothing changes', async (t) => {
  const k = await startKurz(t);
  await linkWith(k, 'b1', ['keep']);
  for (const [body, message] of [
    [{}, /name is required/],
    [{ name: '' }, /name must be 1 to 50 characters/],
    [{ name: 'x'.repeat(51) }, /name must be 1 to 50 characters/],
    [{ name: '<b>' }, /name may only hold letters, digits/],
    [{ name: 7 }, /name must be a string/],
    [{ name: 'keep' }, /name must be a new one/],
    [{ name: 'ok', extra: 1 }, /extra/],
  ] as const) {
    const res = await k.request('PATCH', '/api/v1/tags/keep', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.regex(((await res.json()) as { detail: string }).detail, message);
  }
  const unknown = await k.request('PATCH', '/api/v1/tags/nope', { name: 'fine' });
  t.is(unknown.status, 404);
  t.is((await k.request('DELETE', '/api/v1/tags/nope')).status, 404);
  t.deepEqual(await tagsOf(k, ['b1']), { b1: ['keep'] });
});

test('DELETE /api/v1/tags/TAG takes the tag off its links, which stay; both changes are in the audit trail', async (t) => {
  const k = await startKurz(t);
  await linkWith(k, 'c1', ['gone', 'stays']);
  await linkWith(k, 'c2', ['gone']);
  const res = await k.request('DELETE', '/api/v1/tags/gone');
  t.is(res.status, 200);
  t.deepEqual(await res.json(), { tag: 'gone', links: 2 });
  t.deepEqual(await tagsOf(k, ['c1', 'c2']), { c1: ['stays'], c2: [] });
  t.is((await k.request('PATCH', '/api/v1/tags/stays', { name: 'kept' })).status, 200);
  const audit = (await (await k.get('/api/v1/audit?action=tag')).json()) as {
    entries: Array<{ action: string; subject: { kind: string; label: string }; details: Record<string, unknown> }>;
  };
  t.deepEqual(
    audit.entries.map((e) => [e.action, e.subject.kind, e.subject.label, e.details]),
    [
      ['tag.rename', 'tag', 'stays', { to: 'kept', links: 1 }],
      ['tag.delete', 'tag', 'gone', { links: 2 }],
    ],
  );
});

test("a member renames and deletes tags on their own links only; an admin's reach every link", async (t) => {
  const k = await startKurz(t);
  const ann = await member(k, 'ann');
  await linkWith(k, 'admins', ['shared']);
  t.is((await ann.api('POST', '/api/v1/links', { url: 'https://example.com/anns', alias: 'anns', tags: ['shared'] })).status, 201);
  const renamed = await ann.api('PATCH', '/api/v1/tags/shared', { name: 'mine' });
  t.deepEqual(await renamed.json(), { from: 'shared', to: 'mine', links: 1 });
  t.deepEqual(await tagsOf(k, ['admins', 'anns']), { admins: ['shared'], anns: ['mine'] });
  t.is((await ann.api('DELETE', '/api/v1/tags/shared')).status, 404, "the admin's link is not hers");
  const all = await k.request('PATCH', '/api/v1/tags/mine', { name: 'shared' });
  t.deepEqual(await all.json(), { from: 'mine', to: 'shared', links: 1 });
  t.deepEqual(await tagsOf(k, ['admins', 'anns']), { admins: ['shared'], anns: ['shared'] });
  t.deepEqual(await (await k.request('DELETE', '/api/v1/tags/shared')).json(), { tag: 'shared', links: 2 });
});

test('the tags page lists the tags with their counts; each renames, merges or, after asking, deletes without JavaScript', async (t) => {
  const k = await startKurz(t);
  await linkWith(k, 'd1', ['alpha', 'beta']);
  await linkWith(k, 'd2', ['alpha']);
  const b = await browser(k);
  const { res, html } = await b.page('/tags');
  t.is(res.status, 200);
  t.regex(html, /<a class="tag" href="\/links\?tag=alpha">alpha<\/a><\/td>\s*<td data-label="Live links" class="num"><span>2<\/span>/);
  t.regex(html, /<form method="post" action="\/tags\/beta" class="inline-form" novalidate>/);
  t.regex(html, /<label class="offscreen" for="name-1">New name for “beta”<\/label>/);
  t.regex((await b.page('/links')).html, /<a href="\/tags">Manage the tags<\/a>/);

  const bad = await b.submit('/tags/beta', { name: '<b>' });
  t.is(bad.status, 400);
  const shown = await bad.text();
  t.regex(shown, /id="name-1"[^>]*value="&lt;b&gt;"[^>]*aria-invalid="true" aria-describedby="name-1-error"/);
  t.regex(shown, /<p class="field-error" id="name-1-error" role="alert">Name may only hold letters/);

  const merged = await b.submit('/tags/beta', { name: 'alpha' });
  t.is(merged.status, 303);
  t.is(merged.headers.get('location'), '/tags?renamed=beta&to=alpha&links=1');
  const after = (await b.follow(merged)).html;
  t.regex(after, /<p class="notice" role="status">“beta” is now “alpha” on 1 link\.<\/p>/);
  t.notRegex(after, /href="\/links\?tag=beta"/);
  t.deepEqual(await tagsOf(k, ['d1', 'd2']), { d1: ['alpha'], d2: ['alpha'] });

  const ask = await b.page('/tags/alpha/delete');
  t.is(ask.res.status, 200);
  t.regex(ask.html, /The tag comes off <a href="\/links\?tag=alpha">2 links<\/a>/);
  t.deepEqual(await tagsOf(k, ['d1', 'd2']), { d1: ['alpha'], d2: ['alpha'] }, 'asking deletes nothing');
  const deleted = await b.submit('/tags/alpha/delete', {});
  t.is(deleted.status, 303);
  t.regex((await b.follow(deleted)).html, /The tag “alpha” was taken off 2 links; the links stay\./);
  t.deepEqual(await tagsOf(k, ['d1', 'd2']), { d1: [], d2: [] });
  t.is((await b.page('/tags/alpha/delete')).res.status, 404);
  t.regex((await b.page('/tags')).html, /No tags yet/);
  t.is((await b.post('/tags/x', { name: 'y' })).status, 403, 'no form without its token');
});
