import test from 'ava';
import { parse as parseCsv } from 'csv-parse/sync';
import { BROWSER_ACCEPT, csrfOf, startKurz, type TestKurz } from '../helpers.ts';
import { member } from './members.ts';

// POST /links, the list's bulk form, over HTTP as a browser without JavaScript sends it: permissions
// (only links one could change one by one), limits, empty and unknown selections, CSRF, the question before
// a deletion, the CSV of a selection, and the audit entries each change leaves.

/** A session's form post of `pairs` (repeated names kept), with the session's CSRF token unless `csrf` is given. */
async function post(k: TestKurz, cookie: string, pairs: Array<[string, string]>, csrf?: string): Promise<Response> {
  const token = csrf ?? csrfOf(await (await fetch(`${k.base}/links`, { headers: { cookie, accept: BROWSER_ACCEPT } })).text());
  return fetch(`${k.base}/links`, {
    method: 'POST',
    headers: { cookie, accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([['_csrf', token], ...pairs]),
    redirect: 'manual',
  });
}

const picks = (...codes: string[]): Array<[string, string]> => codes.map((code) => ['link', code]);

async function linkOf(
  k: TestKurz,
  code: string,
): Promise<{ enabled: boolean; tags: string[]; deletedAt: string | null; domain: string | null }> {
  return (await (await k.get(`/api/v1/links/${code}`)).json()) as {
    enabled: boolean;
    tags: string[];
    deletedAt: string | null;
    domain: string | null;
  };
}

async function seed(k: TestKurz, ...codes: string[]): Promise<void> {
  for (const code of codes) {
    const res = await k.postJson('/api/v1/links', { url: `https://example.com/${code}`, alias: code, tags: ['base'] });
    if (res.status !== 201) throw new Error(`creating ${code}: ${res.status}`);
  }
}

test('disable, enable, tag, untag and delete several links; each goes back to the same filtered list, which says what was done', async (t) => {
  const k = await startKurz(t);
  const cookie = await k.login();
  await seed(k, 'one', 'two', 'three');
  const back = '/links?tag=base&sort=code';

  const disabled = await post(k, cookie, [['action', 'disable'], ['back', back], ...picks('one', 'two')]);
  t.is(disabled.status, 303);
  t.is(disabled.headers.get('location'), '/links?tag=base&sort=code&done=disabled&links=2');
  t.deepEqual(
    [(await linkOf(k, 'one')).enabled, (await linkOf(k, 'two')).enabled, (await linkOf(k, 'three')).enabled],
    [false, false, true],
  );
  const page = await (await fetch(k.base + disabled.headers.get('location'), { headers: { cookie, accept: BROWSER_ACCEPT } })).text();
  t.regex(page, /<p class="notice" role="status">2 links disabled: their short URLs answer “410 Gone” until enabled again\.<\/p>/);
  t.regex(page, /name="back" value="\/links\?tag=base&amp;sort=code"/, 'the next change goes back to the list without this notice');

  t.is((await post(k, cookie, [['action', 'enable'], ...picks('one')])).headers.get('location'), '/links?done=enabled&links=1');
  t.true((await linkOf(k, 'one')).enabled);

  const tagged = await post(k, cookie, [['action', 'tag'], ['tag', ' launch '], ...picks('one', 'three')]);
  t.is(tagged.headers.get('location'), '/links?done=tagged&links=2&named=launch');
  t.deepEqual((await linkOf(k, 'three')).tags, ['base', 'launch']);
  const untagged = await post(k, cookie, [['action', 'untag'], ['tag', 'base'], ...picks('one', 'two', 'three')]);
  t.is(untagged.headers.get('location'), '/links?done=untagged&links=3&named=base');
  t.deepEqual([(await linkOf(k, 'one')).tags, (await linkOf(k, 'two')).tags], [['launch'], []]);
  const notice = await (
    await fetch(`${k.base}/links?done=untagged&links=3&named=base`, { headers: { cookie, accept: BROWSER_ACCEPT } })
  ).text();
  t.regex(notice, /Tag “base” removed from 3 links\./);

  // A deletion asks first, on a page naming the links; the question's form sends them again, confirmed.
  const asked = await post(k, cookie, [['action', 'delete'], ['back', back], ...picks('two', 'three')]);
  t.is(asked.status, 200);
  const question = await asked.text();
  t.regex(question, /<h1>Delete 2 links\?<\/h1>/);
  t.regex(question, /name="confirmed" value="yes"/);
  t.regex(question, /name="link" value="two"[\s\S]*name="link" value="three"/);
  t.is((await linkOf(k, 'two')).deletedAt, null, 'nothing deleted before the answer');
  const deleted = await post(k, cookie, [['action', 'delete'], ['confirmed', 'yes'], ['back', back], ...picks('two', 'three')]);
  t.is(deleted.headers.get('location'), '/links?tag=base&sort=code&done=deleted&links=2');
  t.not((await linkOf(k, 'three')).deletedAt, null);
  t.is((await fetch(`${k.base}/two`, { redirect: 'manual' })).status, 410);

  // A link deleted already is left as it was, and named.
  const again = await post(k, cookie, [['action', 'disable'], ...picks('one', 'two')]);
  t.is(again.headers.get('location'), '/links?done=disabled&links=1&failed=two');
  const partly = await (await fetch(k.base + again.headers.get('location'), { headers: { cookie, accept: BROWSER_ACCEPT } })).text();
  t.regex(partly, /1 link disabled[^<]*Left as it was: <span class="mono">two<\/span>/);

  // A crafted notice link says nothing: a tag added must be one of the links', the domain kurz's, each code a code.
  for (const crafted of [
    'done=tagged&links=3&named=call%20%2B1%20555%3A',
    'done=moved&links=3&named=evil.test',
    'done=disabled&links=1&failed=%3Cb%3E',
  ]) {
    const html = await (await fetch(`${k.base}/links?${crafted}`, { headers: { cookie, accept: BROWSER_ACCEPT } })).text();
    t.notRegex(html, /<p class="notice" role="status">/, crafted);
  }

  // Each change is recorded as the link's own page records it.
  const audit = (await (await k.get('/api/v1/audit?limit=100')).json()) as {
    entries: Array<{ action: string; subject: { label: string } }>;
  };
  const entries = audit.entries.map((e) => `${e.action} ${e.subject.label}`);
  for (const entry of [
    'link.disable one',
    'link.disable two',
    'link.enable one',
    'link.edit three',
    'link.delete two',
    'link.delete three',
  ])
    t.true(entries.includes(entry.replace(' ', ' kurz.test/')), entry);
});

test('moving links to another domain; a code taken there is left where it is', async (t) => {
  const k = await startKurz(t);
  const cookie = await k.login();
  t.is((await k.postJson('/api/v1/domains', { host: 's2.kurz.test' })).status, 201);
  await seed(k, 'mover', 'clash');
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/there', alias: 'clash', domain: 's2.kurz.test' })).status, 201);
  const list = await (await fetch(`${k.base}/links`, { headers: { cookie, accept: BROWSER_ACCEPT } })).text();
  t.regex(list, /<select id="bulk-domain" name="domain">/, 'the move shows with more than one domain');
  t.regex(list, /name="link" value="s2\.kurz\.test\/clash"/, 'a row off the default domain names its host');
  const moved = await post(k, cookie, [['action', 'move'], ['domain', 's2.kurz.test'], ...picks('mover', 'clash')]);
  t.is(moved.headers.get('location'), '/links?done=moved&links=1&named=s2.kurz.test&failed=clash');
  t.is(((await (await k.get('/api/v1/links/mover?domain=s2.kurz.test')).json()) as { code: string }).code, 'mover');
  t.is((await linkOf(k, 'clash')).deletedAt, null);
  const unknown = await post(k, cookie, [['action', 'move'], ['domain', 'nowhere.test'], ...picks('clash')]);
  t.is(unknown.status, 400);
  t.regex(await unknown.text(), /nowhere\.test/);
});

test('a single-domain instance offers no move', async (t) => {
  const k = await startKurz(t);
  const cookie = await k.login();
  await seed(k, 'solo');
  const list = await (await fetch(`${k.base}/links`, { headers: { cookie, accept: BROWSER_ACCEPT } })).text();
  t.notRegex(list, /name="action" value="move"/);
});

test("a member acts on their own links only: another's code in the selection is not found and nothing changes", async (t) => {
  const k = await startKurz(t);
  const adminCookie = await k.login();
  await seed(k, 'admins');
  const ann = await member(k, 'ann');
  t.is((await ann.api('POST', '/api/v1/links', { url: 'https://example.com/anns', alias: 'anns' })).status, 201);
  for (const action of ['disable', 'delete', 'export']) {
    const res = await post(k, ann.cookie, [['action', action], ['confirmed', 'yes'], ...picks('anns', 'admins')]);
    t.is(res.status, 404, action);
    t.regex(await res.text(), /No link of yours has the code &quot;admins&quot;; nothing was changed/);
  }
  t.true((await linkOf(k, 'admins')).enabled);
  t.true((await linkOf(k, 'anns')).enabled, 'her own link neither: all or nothing');
  t.is((await linkOf(k, 'admins')).deletedAt, null);
  t.is((await post(k, ann.cookie, [['action', 'disable'], ...picks('anns')])).status, 303);
  t.false((await linkOf(k, 'anns')).enabled);
  // An admin reaches every link.
  t.is(
    (await post(k, adminCookie, [['action', 'enable'], ...picks('anns', 'admins')])).headers.get('location'),
    '/links?done=enabled&links=2',
  );
});

test('an empty selection, too many links, an unknown action, a bad tag or address: a 400 that says which; unknown codes a 404 naming them', async (t) => {
  const k = await startKurz(t);
  const cookie = await k.login();
  await seed(k, 'real');
  const cases: Array<[Array<[string, string]>, number, RegExp]> = [
    [[['action', 'disable']], 400, /No link is selected/],
    [
      [['action', 'disable'], ...picks(...Array.from({ length: 101 }, (_, i) => `c${i}`))],
      400,
      /At most 100 links at once \(101 are selected\)/,
    ],
    [[['action', 'explode'], ...picks('real')], 400, /Action must be one of enable, disable, tag, untag, move, delete, export/],
    [[...picks('real')], 400, /Action must be one of/],
    [[['action', 'tag'], ...picks('real')], 400, /Tag must be a string/],
    [[['action', 'tag'], ['tag', 'a,b'], ...picks('real')], 400, /Tag may only hold/],
    [[['action', 'tag'], ['tag', 'x'.repeat(51)], ...picks('real')], 400, /Tag must be 1 to 50 characters/],
    [[['action', 'disable'], ...picks('nope.test/real')], 400, /nope\.test/],
    [
      [
        ['action', 'disable'],
        ['link', ''],
      ],
      400,
      /Link must name a link of the list/,
    ],
    [
      [['action', 'disable'], ...picks('real', 'ghost', 'phantom')],
      404,
      /No link of yours has the code &quot;ghost&quot;, &quot;phantom&quot;; nothing was changed/,
    ],
  ];
  for (const [pairs, status, message] of cases) {
    const res = await post(k, cookie, pairs);
    t.is(res.status, status, JSON.stringify(pairs).slice(0, 80));
    t.regex(await res.text(), message);
  }
  t.true((await linkOf(k, 'real')).enabled, 'nothing changed');
});

test('the form needs its CSRF token and a session; `back` never leads off the list', async (t) => {
  const k = await startKurz(t);
  const cookie = await k.login();
  await seed(k, 'guarded');
  const forged = await post(k, cookie, [['action', 'disable'], ...picks('guarded')], 'forged-token');
  t.is(forged.status, 403);
  t.regex(await forged.text(), /The form has expired or did not come from this site/);
  const stranger = await fetch(`${k.base}/links`, {
    method: 'POST',
    headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([
      ['action', 'disable'],
      ['link', 'guarded'],
    ]),
    redirect: 'manual',
  });
  t.not(stranger.status, 303);
  t.true((await linkOf(k, 'guarded')).enabled);
  for (const back of ['https://evil.test/links', '//evil.test/links', '/settings', '/links/../settings'])
    t.is(
      (await post(k, cookie, [['action', 'enable'], ['back', back], ...picks('guarded')])).headers.get('location'),
      '/links?done=enabled&links=1',
      back,
    );
});

test('the CSV of a selection: the export columns, formula-safe cells, a dated file name', async (t) => {
  const k = await startKurz(t);
  const cookie = await k.login();
  t.is(
    (
      await k.postJson('/api/v1/links', {
        url: 'https://example.com/f',
        alias: 'formula',
        title: '=HYPERLINK("https://evil.test")',
        tags: ['x'],
      })
    ).status,
    201,
  );
  await seed(k, 'plain', 'left');
  const res = await post(k, cookie, [['action', 'export'], ...picks('formula', 'plain')]);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.is(res.headers.get('content-disposition'), 'attachment; filename="kurz-links-2026-01-15-2.csv"');
  const text = await res.text();
  const rows = parseCsv(text, { columns: true }) as Array<Record<string, string>>;
  const whole = await (await k.get('/api/v1/export?what=links&format=csv')).text();
  t.is(text.split('\n')[0], whole.split('\n')[0], 'the columns of the whole export');
  t.deepEqual(
    rows.map((r) => [r['code'], r['title'], r['tags']]),
    [
      ['formula', `'=HYPERLINK("https://evil.test")`, 'x'],
      ['plain', '', 'base'],
    ],
  );
  t.true((await linkOf(k, 'formula')).enabled, 'an export changes nothing');
});

test('the list offers each row its actions: copy, QR, statistics, edit, its tags as filters, badges for rules and a split', async (t) => {
  const k = await startKurz(t);
  const cookie = await k.login();
  await k.postJson('/api/v1/links', {
    url: 'https://example.com/split',
    alias: 'ab',
    tags: ['two words'],
    split: [
      { url: 'https://example.com/a', weight: 1 },
      { url: 'https://example.com/b', weight: 1 },
    ],
  });
  t.is(
    (
      await k.request('PUT', '/api/v1/links/ab/rules', {
        rules: [{ conditions: [{ type: 'language', matchValue: 'de' }], target: 'https://example.com/de' }],
      })
    ).status,
    200,
  );
  await seed(k, 'bare');
  const html = await (await fetch(`${k.base}/links`, { headers: { cookie, accept: BROWSER_ACCEPT } })).text();
  const row = (code: string): string => html.slice(html.indexOf(`<tr data-href="/links/${code}">`)).split('</tr>')[0] ?? '';
  t.regex(row('ab'), /data-copy="https:\/\/kurz\.test\/ab"/);
  t.regex(row('ab'), /<summary class="button secondary small">QR<span class="visually-hidden"> code of ab<\/span><\/summary>/);
  t.regex(row('ab'), /<img src="\/api\/v1\/links\/ab\/qr\?format=svg"/);
  t.regex(row('ab'), /href="\/links\/ab\/stats">Stats/);
  t.regex(row('ab'), /href="\/links\/ab#edit-form">Edit/);
  t.regex(row('ab'), /<a class="tag" href="\/links\?tag=two\+words"/);
  t.regex(row('ab'), />rules<\/span>/);
  t.regex(row('ab'), />A\/B ×2<\/span>/);
  t.notRegex(row('bare'), /rules<\/span>|A\/B/);
  t.regex(
    row('bare'),
    /<td data-label="Target" class="target"><span title="https:\/\/example\.com\/bare">https:\/\/example\.com\/bare<\/span>/,
  );
  const all = await (await fetch(`${k.base}/links?select=all`, { headers: { cookie, accept: BROWSER_ACCEPT } })).text();
  t.is((all.match(/name="link" value="\w+">/g) ?? []).length, 0, 'none left unticked');
  t.is((all.match(/name="link" value="\w+" checked>/g) ?? []).length, 2, '"select all" without JavaScript');
});

test("the form posts to the list itself, so a link called 'bulk' keeps its page and its edit form", async (t) => {
  const k = await startKurz(t);
  const cookie = await k.login();
  await seed(k, 'bulk');
  t.regex(
    await (await fetch(`${k.base}/links/bulk`, { headers: { cookie, accept: BROWSER_ACCEPT } })).text(),
    /<h1>Link <span class="mono">bulk<\/span>/,
  );
  const token = csrfOf(await (await fetch(`${k.base}/links/bulk`, { headers: { cookie, accept: BROWSER_ACCEPT } })).text());
  const edited = await fetch(`${k.base}/links/bulk`, {
    method: 'POST',
    headers: { cookie, accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: token, url: 'https://example.com/edited', tags: 'base' }),
    redirect: 'manual',
  });
  t.is(edited.status, 303);
  t.is(edited.headers.get('location'), '/links/bulk?saved');
  t.is(((await (await k.get('/api/v1/links/bulk')).json()) as { url: string }).url, 'https://example.com/edited');
});

test('Compare visits sends two to five selected links to the comparison, HOST/CODE off the default domain', async (t) => {
  const k = await startKurz(t);
  const cookie = await k.login();
  await k.postJson('/api/v1/domains', { host: 's2.kurz.test' });
  for (const alias of ['one', 'two', 'three', 'four', 'five', 'six'])
    await k.postJson('/api/v1/links', { url: `https://example.com/${alias}`, alias });
  await k.postJson('/api/v1/links', { url: 'https://example.com/away', alias: 'away', domain: 's2.kurz.test' });
  const res = await post(k, cookie, [['action', 'compare'], ...picks('one', 's2.kurz.test/away')]);
  t.is(res.status, 303);
  t.is(res.headers.get('location'), '/stats/compare?code=one&code=s2.kurz.test%2Faway');
  const page = await fetch(`${k.base}${res.headers.get('location')}`, { headers: { cookie, accept: 'text/html' } });
  t.is(page.status, 200);
  for (const [codes, given] of [
    [['one'], 1],
    [['one', 'two', 'three', 'four', 'five', 'six'], 6],
  ] as const) {
    const refused = await post(k, cookie, [['action', 'compare'], ...picks(...codes)]);
    t.is(refused.status, 400);
    t.regex(await refused.text(), new RegExp(`Compare takes two to 5 links; ${given} links? selected`));
  }
});
