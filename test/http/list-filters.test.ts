import test from 'ava';
import { BROWSER_UA, startKurz, type TestKurz } from '../helpers.ts';
import { browser } from './ui-session.ts';

type Listed = { code: string; url: string; title: string | null; visits: number };
const DAY = 86_400_000;

/** The codes the list gives for `query`, page after page of `limit`, following nextCursor. */
async function codes(k: TestKurz, query: string, limit = 100): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const res = await k.get(`/api/v1/links?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    if (res.status !== 200) throw new Error(`${query}: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { links: Listed[]; nextCursor: string | null };
    found.push(...body.links.map((l) => l.code));
    cursor = body.nextCursor;
    if (cursor === null) return found;
  }
  throw new Error('too many pages');
}

async function create(k: TestKurz, body: Record<string, unknown>): Promise<void> {
  const res = await k.postJson('/api/v1/links', body);
  if (res.status !== 201) throw new Error(`${JSON.stringify(body)}: ${res.status} ${await res.text()}`);
}

test('the list sorts by code, target, title, visits and creation, either way; paging gives the same order as one page', async (t) => {
  const k = await startKurz(t);
  const links = [
    { alias: 'delta', url: 'https://example.com/b', title: 'Zebra' },
    { alias: 'alpha', url: 'https://example.com/d', title: null },
    { alias: 'charlie', url: 'https://example.com/a', title: 'apple' },
    { alias: 'Bravo', url: 'https://example.com/c', title: 'Mango' },
    { alias: 'echo', url: 'https://example.com/a', title: 'Mango' },
  ];
  for (const link of links) {
    await create(k, link);
    k.clock.advance(1000);
  }
  for (let i = 0; i < 3; i++) await fetch(`${k.base}/echo`, { headers: { 'user-agent': BROWSER_UA }, redirect: 'manual' });
  await fetch(`${k.base}/alpha`, { headers: { 'user-agent': BROWSER_UA }, redirect: 'manual' });
  await k.flushVisits();
  // Code point order, as both stores sort: capitals first; equal keys newest first when descending.
  const expected: Record<string, string[]> = {
    'sort=code': ['Bravo', 'alpha', 'charlie', 'delta', 'echo'],
    'sort=code&order=desc': ['echo', 'delta', 'charlie', 'alpha', 'Bravo'],
    'sort=url': ['charlie', 'echo', 'delta', 'Bravo', 'alpha'],
    'sort=url&order=desc': ['alpha', 'Bravo', 'delta', 'echo', 'charlie'],
    'sort=title': ['alpha', 'Bravo', 'echo', 'delta', 'charlie'],
    'sort=visits': ['echo', 'alpha', 'Bravo', 'charlie', 'delta'],
    'sort=visits&order=asc': ['delta', 'charlie', 'Bravo', 'alpha', 'echo'],
    'sort=created': ['echo', 'Bravo', 'charlie', 'alpha', 'delta'],
    'sort=created&order=asc': ['delta', 'alpha', 'charlie', 'Bravo', 'echo'],
  };
  for (const [query, order] of Object.entries(expected)) {
    t.deepEqual(await codes(k, query), order, query);
    t.deepEqual(await codes(k, query, 2), order, `${query}, two at a time`);
  }
  const first = (await (await k.get('/api/v1/links?sort=code&limit=2')).json()) as { nextCursor: string };
  const wrong = await k.get(`/api/v1/links?sort=code&order=desc&limit=2&cursor=${first.nextCursor}`);
  t.is(wrong.status, 400, 'a cursor of one order is refused in another');
  t.is((await k.get('/api/v1/links?order=sideways')).status, 400);
});

test('several tags: links with any of them, or with all; a tag given twice counts once', async (t) => {
  const k = await startKurz(t);
  await create(k, { url: 'https://example.com/1', alias: 'both', tags: ['red', 'blue'] });
  await create(k, { url: 'https://example.com/2', alias: 'red', tags: ['red'] });
  await create(k, { url: 'https://example.com/3', alias: 'blue', tags: ['blue', 'green'] });
  await create(k, { url: 'https://example.com/4', alias: 'none' });
  t.deepEqual((await codes(k, 'tag=red&tag=blue')).sort(), ['blue', 'both', 'red']);
  t.deepEqual(await codes(k, 'tag=red&tag=blue&tagMode=all'), ['both']);
  t.deepEqual(await codes(k, 'tag=red&tag=red&tagMode=all'), ['red', 'both']);
  t.deepEqual(await codes(k, 'tag=green&tag=red&tagMode=all'), []);
  t.is((await k.get('/api/v1/links?tag=red&tagMode=most')).status, 400);
});

test('the state filter finds active, disabled, expired, used-up and deleted links; created between two days', async (t) => {
  const k = await startKurz(t);
  const day0 = k.clock.now();
  await create(k, { url: 'https://example.com/1', alias: 'plain' });
  await create(k, { url: 'https://example.com/2', alias: 'off', enabled: false });
  await create(k, { url: 'https://example.com/3', alias: 'soon', expiresAt: new Date(day0 + DAY / 2).toISOString() });
  await create(k, { url: 'https://example.com/4', alias: 'once', maxVisits: 1 });
  k.clock.advance(DAY);
  await create(k, { url: 'https://example.com/5', alias: 'gone' });
  t.is((await k.request('DELETE', '/api/v1/links/gone')).status, 204);
  await create(k, { url: 'https://example.com/6', alias: 'later' });
  t.is((await fetch(`${k.base}/once`, { headers: { 'user-agent': BROWSER_UA }, redirect: 'manual' })).status, 302);
  const state = async (s: string) => (await codes(k, `state=${s}`)).sort();
  t.deepEqual(await state('active'), ['later', 'plain']);
  t.deepEqual(await state('disabled'), ['off']);
  t.deepEqual(await state('expired'), ['soon']);
  t.deepEqual(await state('used-up'), ['once']);
  t.deepEqual(await state('deleted'), ['gone']);
  t.deepEqual(await state('in-review'), []);
  t.deepEqual((await codes(k, '')).sort(), ['later', 'off', 'once', 'plain', 'soon'], 'no state: every link but the deleted');
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  t.deepEqual((await codes(k, `from=${day(day0)}&to=${day(day0)}`)).sort(), ['off', 'once', 'plain', 'soon']);
  t.deepEqual(await codes(k, `from=${day(day0 + DAY)}`), ['later']);
  for (const bad of ['from=2026-02-30', 'to=tomorrow', `from=${day(day0 + DAY)}&to=${day(day0)}`]) {
    const res = await k.get(`/api/v1/links?${bad}`);
    t.is(res.status, 400, bad);
  }
  t.is((await k.get('/api/v1/links?state=lost')).status, 400);
});

test('the list page sorts by its column headings and keeps every filter in the URL', async (t) => {
  const k = await startKurz(t);
  await create(k, { url: 'https://example.com/long/target/that/goes/on', alias: 'bee', tags: ['x', 'y'] });
  await create(k, { url: 'https://example.com/a', alias: 'ant', tags: ['x'] });
  const b = await browser(k);
  const { html } = await b.page('/links?tag=x&tag=y&tagMode=all&state=active&sort=code');
  t.regex(
    html,
    /<th scope="col" aria-sort="ascending"><input type="checkbox" class="pick" data-select-all aria-label="Select all on this page" hidden><a href="\/links\?tag=x&amp;tag=y&amp;tagMode=all&amp;state=active&amp;sort=code&amp;order=desc">Short link<span aria-hidden="true"> ↑<\/span><\/a><\/th>/,
  );
  t.regex(html, /<th scope="col"><a href="\/links\?tag=x&amp;tag=y&amp;tagMode=all&amp;state=active&amp;sort=url">Target<\/a><\/th>/);
  t.regex(
    html,
    /<th scope="col"><a href="\/links\?tag=x&amp;tag=y&amp;tagMode=all&amp;state=active">Created<\/a><\/th>/,
    'the default order needs no parameter',
  );
  t.regex(html, /<option value="x" selected>x \(2\)<\/option>\s*<option value="y" selected>y \(1\)<\/option>/);
  t.regex(html, /<option value="all" selected>All the tags<\/option>/);
  t.regex(html, /<option value="active" selected>Active<\/option>/);
  t.regex(html, /<caption>1 link, tagged “x” and “y”, active<\/caption>/);
  t.regex(html, /<a href="\/links" class="button secondary">Clear<\/a>/);
  t.regex(html, /<span title="https:\/\/example\.com\/long\/target\/that\/goes\/on">/, 'the full target on hover');
  t.regex(html, /<form method="get" action="\/links" class="card link-filters" role="search" aria-label="Filter links" data-autosubmit>/);
  t.notRegex((await b.page('/links')).html, /Clear<\/a>/, 'nothing to clear');
});
