import test, { type ExecutionContext } from 'ava';
import { browser } from './ui-session.ts';
import { BROWSER_UA, startKurz } from '../helpers.ts';
import { corpus, escapeHtml, fieldCases, LEAK, pageText, rawRequest, shown, type FieldCase } from '../support/hostile.ts';

/**
 * The hostile-input corpus (test/fixtures/hostile/) replayed against the JSON API: every link field through
 * create, batch and edit; malformed, nested, duplicated, oversized and mis-encoded requests; hostile query
 * strings and codes; hostile referrers and user agents. A refused case is a 4xx with the corpus's message,
 * without a stack trace, and stores nothing; a case stored is stored exactly and every page shows it escaped.
 * One server per test, the cases in turn.
 */

type Problem = { status: number; detail: string; field?: string };
type LinkBody = Record<string, unknown> & { code: string };

/** The field as the API shows it back: an alias as the code, a password only as `passwordProtected`. */
function shownField(link: LinkBody, field: string): unknown {
  return field === 'alias' ? link.code : field === 'password' ? link['passwordProtected'] : link[field];
}

/** A case's body: the field alone on a target of its own (so no two cases meet in the dedupe), or the target itself. */
function bodyOf(c: FieldCase, i: number): Record<string, unknown> {
  return c.field === 'url' ? { url: c.value } : { url: `https://example.com/hostile/${i}`, [c.field]: c.value };
}

async function refusal(t: ExecutionContext, res: Response, c: FieldCase, where: string): Promise<void> {
  const text = await res.text();
  t.true(res.status >= 400 && res.status < 500, `${where}: ${c.name}: status ${res.status}`);
  t.is(res.headers.get('content-type'), 'application/problem+json', `${where}: ${c.name}`);
  const problem = JSON.parse(text) as Problem;
  t.true(problem.detail.includes(c.message ?? '\0'), `${where}: ${c.name}: "${problem.detail}" lacks "${c.message}"`);
  t.false(LEAK.test(text), `${where}: ${c.name}: ${text}`);
}

/** The pages that show a link render `value` escaped, never as markup. */
async function assertRenderedEscaped(t: ExecutionContext, pages: Array<[string, string]>, value: unknown, name: string): Promise<void> {
  const texts = Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : [];
  for (const [path, html] of pages) {
    for (const text of texts) {
      if (/[<>"'&]/.test(text)) t.false(html.includes(text), `${name}: ${path} holds it unescaped`);
      t.true(html.includes(escapeHtml(text)), `${name}: ${path} does not show it`);
    }
  }
}

test('link fields through POST /api/v1/links: refused with the precise message and nothing stored, or stored exactly and shown escaped', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const cases = fieldCases('api');
  for (const [i, c] of cases.entries()) {
    const before = await k.linkCount();
    const res = await k.postJson('/api/v1/links', bodyOf(c, i));
    if (c.expect === 'refused') {
      await refusal(t, res, c, 'create');
      t.is(await k.linkCount(), before, `${c.name}: nothing stored`);
      continue;
    }
    t.true(res.status === 201 || res.status === 200, `${c.name}: status ${res.status}`);
    const link = (await res.json()) as LinkBody;
    t.deepEqual(shownField(link, c.field), c.stored, c.name);
    const stored = (await (await k.get(`/api/v1/links/${link.code}`)).json()) as LinkBody;
    t.deepEqual(shownField(stored, c.field), c.stored, `${c.name}: as read back`);
    // The link's page shows every field; the list its target, title and tags.
    const paths = [`/links/${link.code}`, ...(['url', 'title', 'tags'].includes(c.field) ? [`/links?q=${link.code}`] : [])];
    const pages: Array<[string, string]> = [];
    for (const path of paths) pages.push([path, (await b.page(path)).html]);
    await assertRenderedEscaped(t, pages, c.field === 'password' ? undefined : c.stored, c.name);
  }
  t.log(`${cases.length} cases`);
});

test('link fields through POST /api/v1/links/batch: each refused entry names the reason and only the valid ones are stored', async (t) => {
  const k = await startKurz(t);
  const cases = fieldCases('batch');
  const res = await k.postJson('/api/v1/links/batch', { links: cases.map((c, i) => bodyOf(c, i)) });
  t.is(res.status, 200);
  const { results, failed } = (await res.json()) as {
    failed: number;
    results: Array<{ status: string; error?: { message: string }; link?: LinkBody }>;
  };
  for (const [i, c] of cases.entries()) {
    const result = results[i];
    if (c.expect === 'refused') {
      t.is(result?.status, 'error', c.name);
      t.true(result?.error?.message.includes(c.message ?? '\0'), `${c.name}: "${result?.error?.message}"`);
    } else {
      t.true(result?.status === 'created' || result?.status === 'existing', `${c.name}: ${result?.status}`);
      t.deepEqual(result?.link && shownField(result.link, c.field), c.stored, c.name);
    }
  }
  const refused = cases.filter((c) => c.expect === 'refused').length;
  t.is(failed, refused);
  const stored = new Set(results.flatMap((r) => (r.link ? [r.link.code] : []))).size;
  t.is(await k.linkCount(), stored, 'the refused entries left nothing behind');
  t.log(`${cases.length} entries in one batch: ${refused} refused, ${stored} links stored`);
});

test('link fields through PATCH /api/v1/links/CODE: a refused edit changes nothing', async (t) => {
  const k = await startKurz(t);
  const created = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/base', title: 'base' })).json()) as LinkBody;
  const path = `/api/v1/links/${created.code}`;
  const cases = fieldCases('patch');
  for (const c of cases) {
    const before = await (await k.get(path)).text();
    const res = await k.request('PATCH', path, { [c.field]: c.value });
    if (c.expect === 'refused') {
      await refusal(t, res, c, 'edit');
      t.is(await (await k.get(path)).text(), before, `${c.name}: the link is unchanged`);
      continue;
    }
    t.is(res.status, 200, c.name);
    t.deepEqual(shownField((await res.json()) as LinkBody, c.field), c.stored, c.name);
  }
  t.is(await k.linkCount(), 1);
  t.log(`${cases.length} cases`);
});

interface RequestCase {
  name: string;
  category: string;
  method: string;
  path: string;
  body?: string;
  bodyBase64?: string;
  bodyGenerate?: { prefix?: string; repeat: string; times: number; middle?: string; suffixRepeat?: string; suffix?: string };
  headers?: Record<string, string | null>;
  headersGenerate?: { name: string; prefix?: string; repeat: string; times: number };
  auth?: boolean;
  status: number | '4xx';
  message?: string;
  batchError?: string;
  linksFound?: number;
}

function requestBody(c: RequestCase): Uint8Array | string | undefined {
  if (c.bodyBase64 !== undefined) return Buffer.from(c.bodyBase64, 'base64');
  const g = c.bodyGenerate;
  if (g) {
    const closing = g.suffixRepeat ? g.suffixRepeat.repeat(g.times) : '';
    return (g.prefix ?? '') + g.repeat.repeat(g.times) + (g.middle ?? '') + closing + (g.suffix ?? '');
  }
  return c.body;
}

test('malformed, nested, duplicated, oversized and mis-encoded requests, hostile query strings and codes: a precise 4xx, nothing stored', async (t) => {
  const k = await startKurz(t);
  const base = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/base' })).json()) as LinkBody;
  // A password link for the password form's cases.
  await k.postJson('/api/v1/links', { url: 'https://example.com/locked', alias: 'locked', password: 'secret password' });
  const cases = corpus<RequestCase>('requests');
  for (const c of cases) {
    const before = await k.linkCount();
    const headers: Record<string, string> = { 'user-agent': BROWSER_UA, accept: 'application/json' };
    if (c.auth !== false) headers['authorization'] = `Bearer ${k.key}`;
    const body = requestBody(c);
    if (body !== undefined) headers['content-type'] = 'application/json';
    for (const [name, value] of Object.entries(c.headers ?? {})) {
      if (value === null) delete headers[name];
      else headers[name] = value;
    }
    const g = c.headersGenerate;
    if (g) headers[g.name] = (g.prefix ?? '') + g.repeat.repeat(g.times);
    const path = c.path.replace('{code}', c.path.includes('unlock') ? 'locked' : base.code);
    const res = await rawRequest(k.base, c.method, path, headers, body);
    const text = res.text;
    if (c.status === '4xx') t.true(res.status >= 400 && res.status < 500, `${c.name}: status ${res.status}`);
    else t.is(res.status, c.status, `${c.name}: ${text.slice(0, 200)}`);
    t.false(LEAK.test(text), `${c.name}: ${text.slice(0, 300)}`);
    if (c.message !== undefined)
      t.true(text.includes(JSON.stringify(c.message).slice(1, -1)), `${c.name}: "${text.slice(0, 300)}" lacks "${c.message}"`);
    if (c.batchError !== undefined) {
      const batch = JSON.parse(text) as { failed: number; results: Array<{ error?: { message: string } }> };
      t.is(batch.failed, 1, c.name);
      t.true(batch.results[0]?.error?.message.includes(c.batchError), `${c.name}: ${text.slice(0, 200)}`);
    }
    if (c.linksFound !== undefined) t.is((JSON.parse(text) as { links: unknown[] }).links.length, c.linksFound, c.name);
    t.is(await k.linkCount(), before, `${c.name}: nothing stored`);
  }
  t.deepEqual(await (await k.get(`/api/v1/links/${base.code}`)).json(), base, 'the link the requests aimed at is unchanged');
  t.log(`${cases.length} requests`);
});

interface VisitCase {
  name: string;
  category: string;
  headers: Record<string, string>;
  expect: { referrer?: string | null; bot?: string; human?: true; language?: string | null };
}

type Top = Array<{ name: string }>;

test('hostile referrers, user agents and languages: kept as the harmless part, counted, and shown escaped', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const cases = corpus<VisitCase>('visits');
  for (const [i, c] of cases.entries()) {
    const { code } = (await (await k.postJson('/api/v1/links', { url: `https://example.com/visited/${i}` })).json()) as LinkBody;
    const res = await rawRequest(k.base, 'GET', `/${code}`, c.headers);
    t.is(res.status, 302, c.name);
    await k.flushVisits();
    const stats = (await (await k.get(`/api/v1/links/${code}/stats`)).json()) as Record<string, Top> & { visits: { humans: number } };
    const names = (list: string) => (stats[list] ?? []).map((e) => e.name);
    const { referrer, bot, human, language } = c.expect;
    if (referrer !== undefined) t.deepEqual(names('referrers'), referrer === null ? [] : [referrer], c.name);
    if (bot !== undefined) t.deepEqual(names('bots'), [bot], c.name);
    if (human) t.deepEqual(names('bots'), [], `${c.name}: a person's visit`);
    if (language !== undefined) t.deepEqual(names('languages'), language === null ? [] : [language], c.name);
    const shownName = referrer ?? bot;
    if (shownName) {
      const html = (await b.page(`/links/${code}/stats`)).html;
      if (/[<>"'&]/.test(shownName)) t.false(html.includes(shownName), `${c.name}: unescaped on the stats page`);
      t.true(pageText(html).includes(shownName), `${c.name}: not on the stats page`);
      t.true(html.includes(escapeHtml(shownName)), `${c.name}: not escaped on the stats page`);
    }
    // Neither the whole Referer nor the User-Agent is stored anywhere.
    const headerValues = Object.values(c.headers).filter((v) => v.length > 20 && v !== BROWSER_UA);
    const rows = JSON.stringify(await k.sql('SELECT * FROM visits'));
    for (const value of headerValues) t.false(rows.includes(JSON.stringify(value).slice(1, -1)), `${c.name}: ${shown(value)} stored`);
  }
  t.log(`${cases.length} visits`);
});
