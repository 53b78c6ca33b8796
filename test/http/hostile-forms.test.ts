import { asSentence } from '../../src/core/errors.ts';
import test, { type ExecutionContext } from 'ava';
import { ADMIN_PASSWORD, BROWSER_ACCEPT, cookiesOf, csrfOf, startKurz, type TestKurz } from '../helpers.ts';
import { corpus, escapeHtml, fieldCases, LEAK, pageText, rawRequest, type FieldCase, type RawResponse } from '../support/hostile.ts';
import { browser, type Browser } from './ui-session.ts';

/**
 * The hostile-input corpus (test/fixtures/hostile/) replayed against the HTML forms: every link field through
 * the dashboard's form and a link's edit form, and the login, API key, bulk, edit, state, delete and password
 * forms with hostile fields, bodies and codes. A refused case is a 4xx page with the corpus's message (as the
 * form labels the field), the typed value shown back escaped, no stack trace, nothing stored or changed; a
 * case stored is stored exactly. One server per test, the cases in turn.
 */

type LinkBody = Record<string, unknown> & { code: string };
const FORM = 'application/x-www-form-urlencoded';

/** POST a form body exactly as given, as a browser with `cookie` would. */
function postForm(
  k: TestKurz,
  path: string,
  cookie: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return rawRequest(k.base, 'POST', path, { cookie, accept: BROWSER_ACCEPT, 'content-type': FORM, ...headers }, body);
}

/** The message as the form shows it: "url must…" is "Long URL must…"; the part after the field's name is the same. */

/** Whether the page shows the message (or part of one), which a page starts with a capital when it starts it. */
function shows(text: string, message: string): boolean {
  return text.includes(message) || text.includes(asSentence(message));
}
function formMessage(c: FieldCase): string {
  const message = c.message ?? '';
  return message.startsWith(`${c.field} `) ? message.slice(c.field.length + 1) : message;
}

function shownField(link: LinkBody, field: string): unknown {
  return field === 'alias' ? link.code : field === 'password' ? link['passwordProtected'] : link[field];
}

/** A refused form: a 4xx page naming the problem, the typed value kept (escaped), no stack trace. */
function assertRefusedPage(t: ExecutionContext, res: RawResponse, c: FieldCase, where: string): void {
  t.true(res.status >= 400 && res.status < 500, `${where}: ${c.name}: status ${res.status}`);
  t.true(shows(pageText(res.text), formMessage(c)), `${where}: ${c.name}: the page lacks "${formMessage(c)}"`);
  t.false(LEAK.test(res.text), `${where}: ${c.name}`);
  if (typeof c.value === 'string' && c.field !== 'password' && c.field !== 'maxVisits')
    t.true(res.text.includes(escapeHtml(c.value)), `${where}: ${c.name}: what was typed is not shown back, escaped`);
}

async function codeOf(res: RawResponse): Promise<string> {
  const location = String(res.headers['location'] ?? '');
  return decodeURIComponent(/^\/links\/([^/?]+)/.exec(location)?.[1] ?? '');
}

test('link fields through the dashboard form: refused beside the field with nothing stored, or stored exactly', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const csrf = await b.csrf();
  const cases = fieldCases('form');
  for (const [i, c] of cases.entries()) {
    const before = await k.linkCount();
    const fields = { _csrf: csrf, url: `https://example.com/form/${i}`, enabled: 'true', [c.field]: String(c.value) };
    const res = await postForm(k, '/', b.cookie, new URLSearchParams(fields).toString());
    if (c.expect === 'refused') {
      assertRefusedPage(t, res, c, 'create form');
      t.is(await k.linkCount(), before, `${c.name}: nothing stored`);
      continue;
    }
    t.is(res.status, 303, `${c.name}: ${pageText(res.text).slice(0, 200)}`);
    const link = (await (await k.get(`/api/v1/links/${encodeURIComponent(await codeOf(res))}`)).json()) as LinkBody;
    t.deepEqual(shownField(link, c.field), c.stored, c.name);
  }
  t.log(`${cases.length} cases`);
});

test("link fields through a link's edit form: a refused edit is shown again as typed and changes nothing", async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/base', alias: 'base' });
  const b = await browser(k);
  const csrf = await b.csrf();
  const cases = fieldCases('edit-form');
  for (const c of cases) {
    const before = await (await k.get('/api/v1/links/base')).text();
    const fields = { _csrf: csrf, url: 'https://example.com/base', enabled: 'true', [c.field]: String(c.value) };
    const res = await postForm(k, '/links/base', b.cookie, new URLSearchParams(fields).toString());
    if (c.expect === 'refused') {
      assertRefusedPage(t, res, c, 'edit form');
      t.is(await (await k.get('/api/v1/links/base')).text(), before, `${c.name}: the link is unchanged`);
      continue;
    }
    t.is(res.status, 303, `${c.name}: ${pageText(res.text).slice(0, 200)}`);
    t.deepEqual(shownField((await (await k.get('/api/v1/links/base')).json()) as LinkBody, c.field), c.stored, c.name);
  }
  t.log(`${cases.length} cases`);
});

interface FormCase {
  name: string;
  category: string;
  form:
    'login' | 'create' | 'edit' | 'keys' | 'revoke' | 'bulk' | 'state' | 'unlock' | 'edit-code' | 'delete-code' | 'unlock-code' | 'page';
  fields?: Record<string, string>;
  raw?: string;
  rawBase64?: string;
  headers?: Record<string, string>;
  csrf?: 'none' | 'wrong';
  code?: string;
  path?: string;
  status: number;
  message?: string;
  location?: string;
  echoes?: string;
  bulk?: { failed: number; stored: number };
  stored?: Record<string, unknown>;
}

/** Where each form posts. */
const PATHS: Record<string, string> = {
  login: '/login',
  create: '/',
  edit: '/links/base',
  keys: '/keys',
  revoke: '/keys/revoke',
  bulk: '/import',
  state: '/links/base/state',
  unlock: '/links/locked/unlock',
};

/** A body for the case: its raw bytes, or its fields form-encoded, with the CSRF token the case calls for. */
function bodyOf(c: FormCase, csrf: string, password: string): string | Buffer {
  if (c.rawBase64 !== undefined)
    return Buffer.from(Buffer.from(c.rawBase64, 'base64').toString('latin1').replace('{csrf}', encodeURIComponent(csrf)), 'latin1');
  if (c.raw !== undefined) return c.raw.replace('{csrf}', encodeURIComponent(csrf));
  const fields = Object.fromEntries(Object.entries(c.fields ?? {}).map(([name, value]) => [name, value.replace('{password}', password)]));
  const withToken = c.csrf === 'none' || c.form === 'unlock' || c.form === 'unlock-code' ? fields : { _csrf: csrf, ...fields };
  return new URLSearchParams(withToken).toString();
}

function assertPage(t: ExecutionContext, res: RawResponse, c: FormCase): void {
  t.is(res.status, c.status, `${c.name}: ${pageText(res.text).replace(/\s+/g, ' ').slice(0, 300)}`);
  t.false(LEAK.test(res.text), c.name);
  if (c.message !== undefined) t.true(shows(pageText(res.text), c.message), `${c.name}: the page lacks "${c.message}"`);
  if (c.location !== undefined) t.is(res.headers['location'], c.location, c.name);
  const echoed = c.echoes ? c.fields?.[c.echoes] : undefined;
  if (echoed !== undefined) {
    const shown = c.echoes === 'user' ? echoed.trim() : echoed;
    t.true(res.text.includes(escapeHtml(shown)), `${c.name}: what was typed is not shown back, escaped`);
    if (/[<>"']/.test(shown)) t.false(res.text.includes(shown), `${c.name}: shown back unescaped`);
  }
}

test('the login form: hostile user names, passwords and next paths are refused or lead to kurz, never elsewhere', async (t) => {
  const k = await startKurz(t, { trustedProxies: '127.0.0.1' });
  await k.login();
  const cases = corpus<FormCase>('forms').filter((c) => c.form === 'login');
  for (const [i, c] of cases.entries()) {
    // Failed logins slow down the account; the cases are not about that (test/http/access.test.ts is).
    k.clock.advance(16 * 60_000);
    const client = { 'x-forwarded-for': `198.51.100.${i + 1}` };
    const page = await fetch(`${k.base}/login`, { headers: { accept: BROWSER_ACCEPT, ...client } });
    const html = await page.text();
    let csrf = csrfOf(html);
    if (c.csrf === 'wrong') csrf = csrfOf(await (await fetch(`${k.base}/login`, { headers: { accept: BROWSER_ACCEPT } })).text());
    const sessions = await k.sql<{ n: number }>('SELECT count(*) AS n FROM sessions');
    const res = await postForm(k, '/login', cookiesOf(page), bodyOf(c, csrf, ADMIN_PASSWORD), { ...client, ...c.headers });
    assertPage(t, res, c);
    const opened = res.status === 303 ? 1 : 0;
    t.is((await k.sql<{ n: number }>('SELECT count(*) AS n FROM sessions'))[0]?.n, (sessions[0]?.n ?? 0) + opened, `${c.name}: sessions`);
  }
  t.log(`${cases.length} logins`);
});

test('the other forms and pages: hostile fields, bodies and codes get a precise 4xx page and change nothing', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/base', alias: 'base' });
  await k.postJson('/api/v1/links', { url: 'https://example.com/locked', alias: 'locked', password: 'secret password' });
  const b: Browser = await browser(k);
  const csrf = await b.csrf();
  const cases = corpus<FormCase>('forms').filter((c) => c.form !== 'login');
  for (const c of cases) {
    const before = {
      links: await k.linkCount(),
      keys: (await k.kurz.services.access.listKeys()).length,
      base: await (await k.get('/api/v1/links/base')).text(),
    };
    let res: RawResponse;
    if (c.form === 'page') {
      res = await rawRequest(k.base, 'GET', c.path ?? '/', { cookie: b.cookie, accept: BROWSER_ACCEPT });
    } else {
      const path = c.form.endsWith('-code')
        ? `/links/${c.code}${c.form === 'delete-code' ? '/delete' : c.form === 'unlock-code' ? '/unlock' : ''}`
        : (PATHS[c.form] ?? '/');
      const cookie = c.form === 'unlock' || c.form === 'unlock-code' ? '' : b.cookie;
      res = await postForm(k, path, cookie, bodyOf(c, csrf, ADMIN_PASSWORD), c.headers);
    }
    assertPage(t, res, c);
    const stored = c.bulk?.stored ?? (c.status === 303 && c.form === 'create' ? 1 : 0);
    t.is(await k.linkCount(), before.links + stored, `${c.name}: links stored`);
    t.is((await k.kurz.services.access.listKeys()).length, before.keys, `${c.name}: no key made or lost`);
    t.is(await (await k.get('/api/v1/links/base')).text(), before.base, `${c.name}: the link the forms aim at is unchanged`);
    if (c.bulk) t.true(res.text.includes(`, ${c.bulk.failed} failed.`), `${c.name}: ${c.bulk.failed} lines failed`);
    if (c.stored && res.status === 303) {
      const link = (await (await k.get(`/api/v1/links/${encodeURIComponent(await codeOf(res))}`)).json()) as LinkBody;
      t.like(link, c.stored, c.name);
    }
    t.deepEqual(Object.keys(Object.prototype), [], `${c.name}: the prototype of every object is untouched`);
  }
  t.log(`${cases.length} cases`);
});
