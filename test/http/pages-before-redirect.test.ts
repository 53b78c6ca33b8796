import test from 'ava';
import { BROWSER_ACCEPT, startKurz, type TestKurz } from '../helpers.ts';
import { UA } from '../fixtures/user-agents.ts';
import { member } from './members.ts';
import { browser } from './ui-session.ts';

// The pages before the redirect (issue 26): a notice, a form and the open-in-browser page, shown by a rule's
// page action (or, for in-app browsers, by openInBrowser), and the signed continue that leads on to the target
// and counts the visit. On the backend of the run.

const TARGET = 'https://example.com/secret-target';
const STORE = 'https://apps.apple.com/app/id1234567890';

const NOTICE = { title: 'You are leaving', message: 'This link goes to <b>another</b> site.', button: 'Go on' };
const FORM = {
  fields: [
    { type: 'name', required: true },
    { type: 'email', required: true },
    { type: 'text', label: 'Company' },
  ],
  consent: 'I agree that my answers are stored.',
};

async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

function visit(k: TestKurz, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${k.base}/${path}`, {
    headers: { 'user-agent': UA.desktopChromeWindows, accept: BROWSER_ACCEPT, ...headers },
    redirect: 'manual',
  });
}

/** Posts the page's form fields (the pass and query it holds, and `fields`) to its continue route. */
function post(k: TestKurz, code: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return postForm(k, `/links/${code}/continue`, fields, headers);
}

/** Posts `fields` as a browser's form to `path`, not following the answer. */
function postForm(k: TestKurz, path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${k.base}${path}`, {
    method: 'POST',
    headers: {
      'user-agent': UA.desktopChromeWindows,
      accept: BROWSER_ACCEPT,
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

/** The value of a hidden input of the page. */
function hidden(html: string, name: string): string {
  const found = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  if (found === undefined) throw new Error(`no ${name} in the page`);
  return found.replaceAll('&amp;', '&').replaceAll('&#39;', "'").replaceAll('&quot;', '"');
}

async function linkWith(k: TestKurz, alias: string, url: string, pages: unknown, rules: unknown[] = []): Promise<void> {
  t_ok(await k.postJson('/api/v1/links', { url, alias }), 201, `creating ${alias}`);
  if (pages !== undefined) t_ok(await k.request('PATCH', `/api/v1/links/${alias}`, { pages }), 200, `pages of ${alias}`);
  if (rules.length > 0) t_ok(await k.request('PUT', `/api/v1/links/${alias}/rules`, { rules }), 200, `rules of ${alias}`);
}

function t_ok(res: Response, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: ${res.status}`);
}

async function humans(k: TestKurz, code: string): Promise<number> {
  await k.flushVisits();
  return (await json<{ visits: { humans: number } }>(await k.get(`/api/v1/links/${code}/stats`))).visits.humans;
}

test('PATCH sets a link’s pages (shown in its JSON); a page rule without its page is a 400 naming the field', async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/links', { url: TARGET, alias: 'p' })).status, 201);
  const refused = await k.request('PUT', '/api/v1/links/p/rules', { rules: [{ conditions: [], page: 'form' }] });
  t.is(refused.status, 400);
  t.like(await json(refused), { field: 'rules[0].page' });
  const patched = await k.request('PATCH', '/api/v1/links/p', { pages: { notice: NOTICE, form: FORM } });
  t.is(patched.status, 200);
  t.deepEqual((await json<{ pages: unknown }>(patched)).pages, {
    notice: NOTICE,
    form: {
      fields: [
        { type: 'name', required: true, label: null },
        { type: 'email', required: true, label: null },
        { type: 'text', required: false, label: 'Company' },
      ],
      consent: FORM.consent,
    },
    openInBrowser: 'auto',
  });
  t.is((await k.request('PUT', '/api/v1/links/p/rules', { rules: [{ conditions: [], page: 'form' }] })).status, 200);
  // The form a rule shows cannot be taken away.
  const removing = await k.request('PATCH', '/api/v1/links/p', { pages: { notice: NOTICE } });
  t.is(removing.status, 400);
  t.like(await json(removing), { field: 'pages.form' });
  const cases: Array<[unknown, string]> = [
    [{ notice: { message: 'x' } }, 'pages.notice.button'],
    [{ notice: { message: 'x', button: 'y'.repeat(41) } }, 'pages.notice.button'],
    [{ form: { fields: [{ type: 'fax' }] } }, 'pages.form.fields[0].type'],
    [{ form: { fields: [{ type: 'name' }, { type: 'name' }] } }, 'pages.form.fields[1].type'],
    [{ openInBrowser: 'sometimes' }, 'pages.openInBrowser'],
    [{ colour: 'red' }, 'pages.colour'],
  ];
  for (const [pages, field] of cases) {
    const res = await k.request('PATCH', '/api/v1/links/p', { pages });
    t.is(res.status, 400, JSON.stringify(pages));
    t.is((await json<{ field: string }>(res)).field, field);
  }
  const [row] = await k.sql<{ pages: string | null }>("SELECT pages FROM links WHERE code = 'p'");
  t.truthy(row?.pages);
});

test('POST takes a link’s pages as PATCH does: stored with the link, shown by a page rule; a malformed one is a 400 naming the field, creating nothing', async (t) => {
  const k = await startKurz(t);
  for (const [pages, field] of [
    [{ notice: { message: 'x' } }, 'pages.notice.button'],
    [{ openInBrowser: 'sometimes' }, 'pages.openInBrowser'],
    ['notice', 'pages'],
  ] as const) {
    const res = await k.postJson('/api/v1/links', { url: TARGET, alias: 'refused', pages });
    t.is(res.status, 400, JSON.stringify(pages));
    t.is((await json<{ field: string }>(res)).field, field);
  }
  t.deepEqual(await k.sql("SELECT code FROM links WHERE code = 'refused'"), [], 'a refused creation stores nothing');
  const created = await k.postJson('/api/v1/links', { url: TARGET, alias: 'born', pages: { notice: NOTICE, openInBrowser: 'on' } });
  t.is(created.status, 201);
  t.like((await json<{ pages: unknown }>(created)).pages, { notice: NOTICE, form: null, openInBrowser: 'on' });
  t.like((await json<{ pages: unknown }>(await k.get('/api/v1/links/born'))).pages, { notice: NOTICE, openInBrowser: 'on' });
  t.is((await k.request('PUT', '/api/v1/links/born/rules', { rules: [{ conditions: [], page: 'notice' }] })).status, 200);
  const shown = await visit(k, 'born');
  t.is(shown.status, 200);
  t.regex(await shown.text(), /You are leaving/);
  // A URL with pages is what its author asked for: never answered with an earlier link of the same URL.
  const again = await k.postJson('/api/v1/links', { url: TARGET, pages: { notice: NOTICE } });
  t.is(again.status, 201);
});

test('a notice rule shows the notice (bots too), never the target; its button leads on with 303 and one visit', async (t) => {
  const k = await startKurz(t);
  await linkWith(k, 'warn', TARGET, { notice: NOTICE }, [{ conditions: [], page: 'notice' }]);
  const shown = await visit(k, 'warn?ref=mail');
  t.is(shown.status, 200);
  t.is(shown.headers.get('cache-control'), 'no-store');
  t.regex(shown.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  const html = await shown.text();
  t.regex(html, /You are leaving/);
  t.regex(html, /This link goes to &lt;b&gt;another&lt;\/b&gt; site\./, 'the message is escaped');
  t.false(html.includes('secret-target'), 'no target in the page');
  const bot = await visit(k, 'warn', { 'user-agent': UA.facebookPreviewBot });
  t.is(bot.status, 200);
  t.false((await bot.text()).includes('secret-target'), 'a bot gets the page, not the target');
  t.is(await humans(k, 'warn'), 0, 'showing the page is no visit');

  const pass = hidden(html, 'pass');
  t.is(hidden(html, 'query'), 'ref=mail');
  const botOn = await post(k, 'warn', { pass, query: 'ref=mail' }, { 'user-agent': UA.googlebot });
  t.is(botOn.status, 403, 'a bot that follows the button is not led on either');
  t.false((await botOn.text()).includes('secret-target'));
  t.is(await humans(k, 'warn'), 0);
  const on = await post(k, 'warn', { pass, query: 'ref=mail' });
  t.is(on.status, 303);
  t.is(on.headers.get('location'), TARGET);
  t.is(on.headers.get('cache-control'), 'no-store');
  t.is(await humans(k, 'warn'), 1, 'the visit counts when the visitor is sent on');
});

test('continue refuses a forged, a tampered or an expired pass (400), and another link’s', async (t) => {
  const k = await startKurz(t);
  await linkWith(k, 'warn', TARGET, { notice: NOTICE }, [{ conditions: [], page: 'notice' }]);
  await linkWith(k, 'other', TARGET, { notice: NOTICE }, [{ conditions: [], page: 'notice' }]);
  const pass = hidden(await (await visit(k, 'warn')).text(), 'pass');
  const forged = await post(k, 'warn', { pass: `${Date.now() + 10 ** 9}.AAAA`, query: '' });
  t.is(forged.status, 400);
  t.regex(await forged.text(), /not a pass through a page of the link/);
  t.is((await post(k, 'warn', { pass, query: 'x=1' })).status, 400, 'the query is part of the pass');
  t.is((await post(k, 'other', { pass, query: '' })).status, 400, 'a pass is for one link');
  t.is((await post(k, 'nosuch', { pass, query: '' })).status, 404);
  k.clock.advance(60 * 60 * 1000 + 1);
  const expired = await post(k, 'warn', { pass, query: '' });
  t.is(expired.status, 400);
  t.regex(await expired.text(), /has expired: open \/warn again/);
  t.is(await humans(k, 'warn'), 0);
});

test('a form rule: checked with precise messages, stored, listed, exported as formula-safe CSV, deleted', async (t) => {
  const k = await startKurz(t);
  await linkWith(k, 'survey', TARGET, { form: FORM }, [{ conditions: [], page: 'form' }]);
  const html = await (await visit(k, 'survey')).text();
  t.false(html.includes('secret-target'));
  t.regex(html, /I agree that my answers are stored\./);
  const pass = hidden(html, 'pass');

  const wrong = await post(k, 'survey', { pass, query: '', name: '', email: 'not-an-address', text: 'x' });
  t.is(wrong.status, 400);
  const again = await wrong.text();
  t.regex(again, /Name is required/);
  t.regex(again, /E-mail must be an e-mail address/);
  t.regex(again, /Tick the box to agree/);
  t.regex(again, /value="not-an-address"/, 'the answers are shown again');
  t.false(again.includes('secret-target'));

  const oversized = await post(k, 'survey', { pass, query: '', text: 'x'.repeat(20_000) });
  t.is(oversized.status, 413, 'a post over 16 KiB is refused before it is read');
  const huge = await post(k, 'survey', { pass, query: '', name: 'a'.repeat(201), email: 'a@b.co', consent: 'yes' });
  t.is(huge.status, 400);
  t.regex(await huge.text(), /Name is longer than 200 characters/);

  const sent = await post(k, 'survey', {
    pass,
    query: '',
    name: '=HYPERLINK("http://evil")',
    email: 'ana@example.org',
    text: 'ACME',
    consent: 'yes',
  });
  t.is(sent.status, 303);
  t.is(sent.headers.get('location'), TARGET);
  t.is(await humans(k, 'survey'), 1);
  const [stored] = await k.sql<{ answers: string }>('SELECT answers FROM form_answers');
  t.deepEqual(JSON.parse(stored!.answers), { name: '=HYPERLINK("http://evil")', email: 'ana@example.org', text: 'ACME', consent: true });

  const csv = await k.get('/api/v1/links/survey/form-answers');
  t.is(csv.status, 200);
  t.regex(csv.headers.get('content-type') ?? '', /^text\/csv/);
  const lines = (await csv.text()).trim().split('\n');
  t.is(lines[0], 'at,name,email,phone,text,consent');
  t.regex(lines[1]!, /^2026-01-15T12:00:00\.000Z,"'=HYPERLINK\(""http:\/\/evil""\)",ana@example\.org,,ACME,yes$/);

  const cookie = await k.login();
  const page = await fetch(`${k.base}/links/survey/form-answers`, { headers: { cookie } });
  t.is(page.status, 200);
  const listed = await page.text();
  t.regex(listed, /=HYPERLINK\(&quot;http:\/\/evil&quot;\)/);
  t.regex(listed, /1 answer,/);
  const linkPage = await (await fetch(`${k.base}/links/survey`, { headers: { cookie } })).text();
  t.regex(linkPage, /<h3 id="latest-answers">Latest form answers<\/h3>/, 'the link page lists the newest answers');
  t.regex(linkPage, /id="latest-form-answers"[\s\S]*email:<\/span> ana@example\.org[\s\S]*<\/ol>/);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(listed)?.[1] ?? '';
  const deleted = await fetch(`${k.base}/links/survey/form-answers/delete`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf }).toString(),
    redirect: 'manual',
  });
  t.is(deleted.status, 303);
  t.deepEqual(await k.sql('SELECT answers FROM form_answers'), []);
});

test('another member’s form answers are not found (404); a key needs links:read', async (t) => {
  const k = await startKurz(t);
  await linkWith(k, 'survey', TARGET, { form: FORM }, [{ conditions: [], page: 'form' }]);
  const alice = await member(k, 'alice');
  t.is((await alice.api('GET', '/api/v1/links/survey/form-answers')).status, 404);
  t.is((await alice.page('/links/survey/form-answers')).status, 404);
  t.is((await alice.page('/links/survey/form-answers.csv')).status, 404);
});

test('open-in-browser: WeChat and Instagram are told how, in their language; auto is on for an app store, off for an ordinary target', async (t) => {
  const k = await startKurz(t);
  await linkWith(k, 'app', STORE, undefined);
  await linkWith(k, 'plain', TARGET, undefined);
  await linkWith(k, 'forced', TARGET, { openInBrowser: 'on' });
  await linkWith(k, 'never', STORE, { openInBrowser: 'off' });

  const wechat = await visit(k, 'app?src=qr', { 'user-agent': UA.wechatIos, 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.5' });
  t.is(wechat.status, 200);
  const zh = await wechat.text();
  t.regex(zh, /<html lang="zh">/);
  t.regex(zh, /请在浏览器中打开此链接/);
  t.regex(zh, /您正在使用WeChat。/);
  t.regex(zh, /value="https:\/\/kurz\.test\/app\?src=qr"/, 'the short URL to copy, with the query');
  t.false(zh.includes('apps.apple.com'), 'no target in the page');
  const anyway = /href="(\/links\/app\/continue\?[^"]+)"/.exec(zh)?.[1]?.replaceAll('&amp;', '&');
  t.truthy(anyway);
  const on = await fetch(k.base + anyway!, { headers: { 'user-agent': UA.wechatIos }, redirect: 'manual' });
  t.is(on.status, 303);
  t.is(on.headers.get('location'), STORE, 'continue here anyway leads on');
  t.is(await humans(k, 'app'), 1);

  const insta = await visit(k, 'app', { 'user-agent': UA.instagramIos, 'accept-language': 'de-DE,de;q=0.9' });
  t.regex(await insta.text(), /Sie sind in Instagram\./);
  const other = await visit(k, 'app', { 'user-agent': UA.instagramIos, 'accept-language': 'ko' });
  t.regex(await other.text(), /<html lang="en">[\s\S]*Open this link in your browser/, 'English otherwise');

  t.is((await visit(k, 'app', { 'user-agent': UA.iphoneSafari })).status, 302, 'a real browser goes on at once');
  t.is((await visit(k, 'plain', { 'user-agent': UA.wechatIos })).status, 302, 'auto: off for an ordinary target');
  t.is((await visit(k, 'forced', { 'user-agent': UA.wechatIos })).status, 200, 'on: every in-app browser');
  t.is((await visit(k, 'never', { 'user-agent': UA.wechatIos })).status, 302, 'off: never');
});

test('a page rule decides only when it matches: past the page, the next rule’s target', async (t) => {
  const k = await startKurz(t);
  await linkWith(k, 'chain', TARGET, { notice: NOTICE }, [
    { conditions: [{ type: 'language', matchValue: 'de' }], page: 'notice' },
    { conditions: [{ type: 'language', matchValue: 'de' }], target: 'https://example.de/' },
  ]);
  t.is(await (await visit(k, 'chain')).headers.get('location'), TARGET, 'no match: the link’s target');
  const html = await (await visit(k, 'chain', { 'accept-language': 'de' })).text();
  const on = await post(k, 'chain', { pass: hidden(html, 'pass'), query: '' }, { 'accept-language': 'de' });
  t.is(on.headers.get('location'), 'https://example.de/');
  // The visit past the page counts under the rule that decided where it went (both go by the same words here).
  await k.flushVisits();
  const { rules } = await json<{ rules: unknown }>(await k.get('/api/v1/links/chain/stats'));
  t.deepEqual(rules, [
    { name: 'language is de', count: 1 },
    { name: 'no rule matched', count: 1 },
  ]);
});

test('the link page sets the pages and the rule editor a page rule, without JavaScript; a refused setting is shown beside its field', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  t.is((await k.postJson('/api/v1/links', { url: TARGET, alias: 'edit' })).status, 201);
  const { html } = await b.page('/links/edit');
  t.regex(html, /<h2 id="pages">Pages before the redirect<\/h2>/);
  t.regex(html, /<option value="auto" selected>/);

  const noRule = await b.submit('/links/edit/rules', { op: 'add', type1: '', action: 'page-notice' });
  t.is(noRule.status, 400, 'a notice rule before the notice');
  t.regex(await noRule.text(), /the link has no notice to show/);

  const tooLong = await b.submit('/links/edit/pages', {
    noticeMessage: 'Hi',
    noticeButton: 'x'.repeat(41),
    formName: 'off',
    formEmail: 'off',
    formPhone: 'off',
    formText: 'off',
    openInBrowser: 'auto',
  });
  t.is(tooLong.status, 400);
  t.regex(await tooLong.text(), /<p class="field-error" id="noticeButton-error" role="alert">Button must be at most 40 characters<\/p>/);

  const saved = await b.submit('/links/edit/pages', {
    noticeTitle: '',
    noticeMessage: 'Mind the step.',
    noticeButton: 'Onwards',
    formName: 'required',
    formEmail: 'optional',
    formPhone: 'off',
    formText: 'off',
    formTextLabel: '',
    formConsent: '',
    openInBrowser: 'on',
  });
  t.is(saved.status, 303);
  t.is(saved.headers.get('location'), '/links/edit#pages');
  const link = (await (await k.get('/api/v1/links/edit')).json()) as { pages: unknown };
  t.deepEqual(link.pages, {
    notice: { title: null, message: 'Mind the step.', button: 'Onwards' },
    form: {
      fields: [
        { type: 'name', required: true, label: null },
        { type: 'email', required: false, label: null },
      ],
      consent: null,
    },
    openInBrowser: 'on',
  });
  t.is((await b.submit('/links/edit/rules', { op: 'add', type1: '', action: 'page-notice' })).status, 303);
  const page = await b.page('/links/edit');
  t.regex(page.html, /for every visitor<\/span> → <strong>page notice<\/strong>/);
  t.regex(page.html, /id="form-answers-link"/);
  t.regex(await (await visit(k, 'edit')).text(), /Mind the step\./);
});

test('a change of the pages goes through the change log, so that every process drops the link', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: TARGET, alias: 'logged' });
  const [{ seq: before } = { seq: 0 }] = await k.sql<{ seq: number }>('SELECT coalesce(max(seq), 0) AS seq FROM link_changes');
  t.is((await k.request('PATCH', '/api/v1/links/logged', { pages: { openInBrowser: 'on' } })).status, 200);
  const changes = await k.sql<{ code: string }>('SELECT code FROM link_changes WHERE seq > ' + String(Number(before)));
  t.deepEqual(
    changes.map((c) => c.code),
    ['logged'],
  );
  // Served at once in this process too: WeChat now gets the page.
  t.is((await visit(k, 'logged', { 'user-agent': UA.wechatAndroid })).status, 200);
});

test('a page before a link with a visit limit: the page uses none; the continue claims it, and the limit holds', async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/links', { url: TARGET, alias: 'once', maxVisits: 1 })).status, 201);
  await k.request('PATCH', '/api/v1/links/once', { pages: { notice: NOTICE } });
  await k.request('PUT', '/api/v1/links/once/rules', { rules: [{ conditions: [], page: 'notice' }] });
  const pass = hidden(await (await visit(k, 'once')).text(), 'pass');
  await visit(k, 'once');
  t.like(await json(await k.get('/api/v1/links/once')), { visitsLeft: 1 }, 'showing the page twice uses no visit');
  const first = await post(k, 'once', { pass, query: '' });
  t.is(first.status, 303);
  t.is(first.headers.get('location'), TARGET);
  const second = await post(k, 'once', { pass, query: '' });
  t.is(second.status, 410);
  t.false((await second.text()).includes('secret-target'));
});

test('a rule of the link refuses past its page too; a page rule on a disabled link never shows', async (t) => {
  const k = await startKurz(t);
  await linkWith(k, 'off', TARGET, { notice: NOTICE }, [{ conditions: [], page: 'notice' }]);
  const pass = hidden(await (await visit(k, 'off')).text(), 'pass');
  t.is((await k.request('PATCH', '/api/v1/links/off', { enabled: false })).status, 200);
  t.is((await visit(k, 'off')).status, 410);
  t.is((await post(k, 'off', { pass, query: '' })).status, 410, 'a pass from before does not open a disabled link');
  t.is(await humans(k, 'off'), 0);
});

test('a password link applies its rules past the password: a page rule shows its page, whose pass carries the password on; a refusal refuses', async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/links', { url: TARGET, alias: 'guarded', password: 'open sesame' })).status, 201);
  t.is((await k.request('PATCH', '/api/v1/links/guarded', { pages: { notice: NOTICE } })).status, 200);
  const rules = [
    { conditions: [{ type: 'language', matchValue: 'fr' }], refuse: 451 },
    { conditions: [{ type: 'language', matchValue: 'de' }], target: 'https://example.com/de' },
    { conditions: [], page: 'notice' },
  ];
  t.is((await k.request('PUT', '/api/v1/links/guarded/rules', { rules })).status, 200);
  const unlock = (headers: Record<string, string>, password = 'open sesame'): Promise<Response> =>
    postForm(k, '/links/guarded/unlock?ref=mail', { password }, headers);

  const asked = await visit(k, 'guarded?ref=mail');
  t.is(asked.status, 200);
  t.regex(await asked.text(), /name="password"/, 'the password comes first, before any rule');
  t.is((await unlock({}, 'wrong')).status, 401);

  const german = await unlock({ 'accept-language': 'de-DE,de;q=0.9' });
  t.is(german.status, 303);
  t.is(german.headers.get('location'), 'https://example.com/de', 'a target rule decides past the password');
  t.is((await unlock({ 'accept-language': 'fr-FR' })).status, 403, 'a refusal rule refuses past the password');

  const paged = await unlock({ 'accept-language': 'en-GB' });
  t.is(paged.status, 200, 'a page rule shows its page past the password');
  const html = await paged.text();
  t.regex(html, /You are leaving/);
  t.false(html.includes('secret-target'), 'no target in the page');
  t.is(await humans(k, 'guarded'), 1, 'only the German visit counted so far');
  const on = await post(k, 'guarded', { pass: hidden(html, 'pass'), query: hidden(html, 'query') });
  t.is(on.status, 303, 'the page’s pass carries the password on: no password asked again');
  t.is(on.headers.get('location'), TARGET);
  t.is(await humans(k, 'guarded'), 2);

  // A page's pass given without the password does not open the link: the continue asks for it.
  t.is((await k.request('PATCH', '/api/v1/links/guarded', { password: null })).status, 200);
  const open = await visit(k, 'guarded');
  const pass = hidden(await open.text(), 'pass');
  t.is((await k.request('PATCH', '/api/v1/links/guarded', { password: 'a new password' })).status, 200);
  t.is((await post(k, 'guarded', { pass, query: '' })).status, 401);
});
