import test from 'ava';
import { ErrorType, shlinkClient, type ShlinkApiClient } from '../support/shlink-sdk.ts';
import { BROWSER_UA, getWithHost, startKurz, textWithHost, type TestKurz } from '../helpers.ts';

// Shlink's own SDK from npm drives kurz as it would drive Shlink: both of its HTTP clients (fetch, node:http).

const DAY = 86_400_000;

function sdk(k: TestKurz, apiKey = k.key, http: 'fetch' | 'node' = 'fetch'): ShlinkApiClient {
  return shlinkClient(k.base, apiKey, http);
}

/** The problem an SDK call rejects with (it throws the parsed problem+json). */
async function problemOf(call: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await call;
  } catch (err) {
    return err as Record<string, unknown>;
  }
  throw new Error('the call succeeded');
}

/** A visit of `code` on the default domain: a person's, or a bot's. */
async function visit(k: TestKurz, code: string, userAgent = BROWSER_UA): Promise<number> {
  const res = await fetch(`${k.base}/${code}`, { redirect: 'manual', headers: { 'user-agent': userAgent } });
  await res.arrayBuffer();
  return res.status;
}

test('the SDK creates a short URL with every field Shlink takes, reads it back, and kurz stores what each field means', async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/domains', { host: 'short.test' })).status, 201);
  const api = sdk(k);
  const now = k.clock.now();
  const full = await api.createShortUrl({
    longUrl: 'https://example.com/full',
    customSlug: 'full-link',
    tags: ['news', 'blog'],
    title: 'Everything set',
    validSince: new Date(now - DAY).toISOString(),
    validUntil: '2027-01-01T00:00:00+00:00',
    maxVisits: 10,
    crawlable: true,
    forwardQuery: false,
    findIfExists: false,
    domain: 'short.test',
    shortCodeLength: 6,
  });
  t.like(full, {
    shortCode: 'full-link',
    shortUrl: 'https://short.test/full-link',
    longUrl: 'https://example.com/full',
    dateCreated: '2026-01-15T12:00:00+00:00',
    visitsSummary: { total: 0, nonBots: 0, bots: 0 },
    tags: ['blog', 'news'],
    meta: { validSince: '2026-01-14T12:00:00+00:00', validUntil: '2027-01-01T00:00:00+00:00', maxVisits: 10 },
    domain: 'short.test',
    title: 'Everything set',
    crawlable: true,
    forwardQuery: false,
    hasRedirectRules: false,
  });
  // kurz's own API sees the same link, with each Shlink field in its place.
  const own = (await (await k.get('/api/v1/links/full-link?domain=short.test')).json()) as Record<string, unknown>;
  t.like(own, {
    url: 'https://example.com/full',
    startsAt: '2026-01-14T12:00:00.000Z',
    expiresAt: '2027-01-01T00:00:00.000Z',
    crawlable: true,
    maxVisits: 10,
    forwardQuery: false,
    title: 'Everything set',
  });
  t.is((await textWithHost(k.base, 'short.test', '/robots.txt')).text, 'User-agent: *\nAllow: /full-link\nDisallow: /\n');
  t.is((await textWithHost(k.base, 'kurz.test', '/robots.txt')).text, 'User-agent: *\nDisallow: /\n', 'only on its own domain');
  t.deepEqual(await api.getShortUrl({ shortCode: 'full-link', domain: 'short.test' }), full);
  const notThere = await problemOf(api.getShortUrl({ shortCode: 'full-link' }));
  t.like(notThere, { type: ErrorType.INVALID_SHORTCODE, status: 404, shortCode: 'full-link' }, 'a code is looked up on its domain');

  const plain = await api.createShortUrl({ longUrl: 'https://example.com/plain' });
  t.is(plain.domain, null, 'the default domain is null');
  t.is(plain.shortUrl, `https://kurz.test/${plain.shortCode}`);
  t.is(plain.forwardQuery, k.config.forwardQuery, "absent: the instance's setting, which the answer says");
  const again = await api.createShortUrl({ longUrl: 'https://example.com/plain' });
  t.not(again.shortCode, plain.shortCode, 'without findIfExists Shlink makes a new short URL each time');
  const found = await api.createShortUrl({ longUrl: 'https://example.com/plain', findIfExists: true });
  t.true([plain.shortCode, again.shortCode].includes(found.shortCode), 'findIfExists returns an existing one');
  t.is(await k.linkCount(), 3);
  const tagged = await api.createShortUrl({ longUrl: 'https://example.com/plain', tags: ['x'], findIfExists: true });
  t.false([plain.shortCode, again.shortCode].includes(tagged.shortCode), 'none has the tag asked for: a new one, as Shlink');
  t.deepEqual(tagged.tags, ['x']);
  const same = await api.createShortUrl({ longUrl: 'https://example.com/plain', tags: [' x'], findIfExists: true });
  t.is(same.shortCode, tagged.shortCode, 'the tagged one matches now');
  const slug = await api.createShortUrl({ longUrl: 'https://example.com/plain', tags: ['x'], customSlug: 'own-slug', findIfExists: true });
  t.is(slug.shortCode, 'own-slug', 'a slug asked for is part of the match');
  t.is(await k.linkCount(), 5);
});

test('the SDK gets a generated short code of the shortCodeLength asked for, unless it gives a slug', async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/domains', { host: 'short.test' })).status, 201);
  const api = sdk(k);
  for (const shortCodeLength of [4, 9, 64]) {
    const made = await api.createShortUrl({ longUrl: 'https://example.com/sized', shortCodeLength, domain: 'short.test' });
    t.regex(made.shortCode, new RegExp(`^[0-9a-zA-Z]{${shortCodeLength}}$`), `shortCodeLength ${shortCodeLength}`);
    t.is(made.shortUrl, `https://short.test/${made.shortCode}`);
    t.deepEqual(await api.getShortUrl({ shortCode: made.shortCode, domain: 'short.test' }), made);
  }
  const slug = await api.createShortUrl({ longUrl: 'https://example.com/sized', customSlug: 'my-slug', shortCodeLength: 4 });
  t.is(slug.shortCode, 'my-slug', 'a slug wins over shortCodeLength, as in Shlink');
  for (const shortCodeLength of [3, 65]) {
    t.like(await problemOf(api.createShortUrl({ longUrl: 'https://example.com/sized', shortCodeLength })), {
      type: ErrorType.INVALID_ARGUMENT,
      status: 400,
      invalidElements: ['shortCodeLength'],
    });
  }
  t.is(await k.linkCount(), 4);
});

test('the SDK lists short URLs with Shlink filters, orders and numbered pages', async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/domains', { host: 'short.test' })).status, 201);
  const api = sdk(k, k.key, 'node');
  const made = [
    { longUrl: 'https://example.com/alpha', customSlug: 'c-alpha', tags: ['red', 'blue'], title: 'Zulu' },
    { longUrl: 'https://example.com/beta', customSlug: 'a-beta', tags: ['red'], title: 'Yankee' },
    { longUrl: 'https://example.com/gamma', customSlug: 'b-gamma', tags: ['blue'], title: 'Xray' },
    { longUrl: 'https://example.com/delta', customSlug: 'd-delta', tags: [], title: 'Whiskey', domain: 'short.test' },
    { longUrl: 'https://other.example/epsilon', customSlug: 'e-epsilon', tags: ['green'], title: 'Victor' },
  ];
  for (const shortUrl of made) {
    await api.createShortUrl(shortUrl);
    k.clock.advance(DAY);
  }
  const codes = async (params: Parameters<ShlinkApiClient['listShortUrls']>[0]) =>
    (await api.listShortUrls(params)).data.map((shortUrl) => shortUrl.shortCode);

  const first = await api.listShortUrls({ itemsPerPage: 2 });
  t.deepEqual(first.pagination, { currentPage: 1, pagesCount: 3, itemsPerPage: 2, itemsInCurrentPage: 2, totalItems: 5 });
  t.deepEqual(
    first.data.map((s) => s.shortCode),
    ['e-epsilon', 'd-delta'],
    'newest first by default',
  );
  const last = await api.listShortUrls({ itemsPerPage: 2, page: '3' });
  t.deepEqual(last.pagination, { currentPage: 3, pagesCount: 3, itemsPerPage: 2, itemsInCurrentPage: 1, totalItems: 5 });
  t.deepEqual(
    last.data.map((s) => s.shortCode),
    ['c-alpha'],
  );
  const all = await api.listShortUrls({ itemsPerPage: -1 });
  t.deepEqual(all.pagination, { currentPage: 1, pagesCount: 1, itemsPerPage: 5, itemsInCurrentPage: 5, totalItems: 5 });
  // The SDK's types leave out some of what Shlink sends (itemsPerPage, the tag lists' pagination): read as sent.
  t.is(((await api.listShortUrls({})).pagination as Record<string, unknown>)['itemsPerPage'], 10, "Shlink's default page size");

  t.deepEqual(await codes({ orderBy: { field: 'shortCode', dir: 'ASC' } }), ['a-beta', 'b-gamma', 'c-alpha', 'd-delta', 'e-epsilon']);
  t.deepEqual(await codes({ orderBy: { field: 'title', dir: 'ASC' } }), ['e-epsilon', 'd-delta', 'b-gamma', 'a-beta', 'c-alpha']);
  t.deepEqual(await codes({ orderBy: { field: 'longUrl', dir: 'DESC' } }), ['e-epsilon', 'b-gamma', 'd-delta', 'a-beta', 'c-alpha']);
  t.deepEqual(await codes({ orderBy: { field: 'dateCreated', dir: 'ASC' } }), ['c-alpha', 'a-beta', 'b-gamma', 'd-delta', 'e-epsilon']);
  t.deepEqual(await codes({ searchTerm: 'other.example' }), ['e-epsilon']);
  t.deepEqual(await codes({ tags: ['red', 'blue'] }), ['b-gamma', 'a-beta', 'c-alpha'], 'any tag by default');
  t.deepEqual(await codes({ tags: ['red', 'blue'], tagsMode: 'all' }), ['c-alpha']);
  t.deepEqual(await codes({ excludeTags: ['red', 'green'] }), ['d-delta', 'b-gamma']);
  t.deepEqual(await codes({ excludeTags: ['red', 'blue'], excludeTagsMode: 'all' }), ['e-epsilon', 'd-delta', 'b-gamma', 'a-beta']);
  const start = Date.UTC(2026, 0, 16, 12);
  t.deepEqual(
    await codes({ startDate: new Date(start).toISOString(), endDate: new Date(start + DAY).toISOString() }),
    ['b-gamma', 'a-beta'],
    'both dates included',
  );
  t.deepEqual(await codes({ domain: 'short.test' }), ['d-delta']);
  t.deepEqual(await codes({ domain: 'DEFAULT' }), ['e-epsilon', 'b-gamma', 'a-beta', 'c-alpha']);
  t.deepEqual(await codes({ domain: 'unknown.test' }), [], 'a domain kurz does not serve has no short URLs');
});

test('the SDK edits and deletes a short URL, and the redirect follows at once; a deleted code answers 410 and stays retired', async (t) => {
  const k = await startKurz(t);
  const api = sdk(k);
  await api.createShortUrl({
    longUrl: 'https://example.com/old',
    customSlug: 'edit-me',
    tags: ['a'],
    maxVisits: 5,
    validUntil: '2027-01-01T00:00:00Z',
  });
  t.is((await textWithHost(k.base, 'kurz.test', '/robots.txt')).text, 'User-agent: *\nDisallow: /\n');
  const edited = await api.updateShortUrl(
    { shortCode: 'edit-me' },
    {
      longUrl: 'https://example.com/new',
      title: 'Now titled',
      tags: ['b', 'c'],
      maxVisits: null,
      validUntil: null,
      forwardQuery: true,
      crawlable: true,
    },
  );
  t.like(edited, {
    longUrl: 'https://example.com/new',
    title: 'Now titled',
    tags: ['b', 'c'],
    meta: { validSince: null, validUntil: null, maxVisits: null },
    forwardQuery: true,
    crawlable: true,
  });
  t.is(
    (await textWithHost(k.base, 'kurz.test', '/robots.txt')).text,
    'User-agent: *\nAllow: /edit-me\nDisallow: /\n',
    'an edit reaches robots.txt at once',
  );
  const redirect = await fetch(`${k.base}/edit-me`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  t.is(redirect.headers.get('location'), 'https://example.com/new');

  await api.deleteShortUrl({ shortCode: 'edit-me' });
  t.is(
    (await textWithHost(k.base, 'kurz.test', '/robots.txt')).text,
    'User-agent: *\nDisallow: /\n',
    'a deleted link is no longer allowed',
  );
  t.like(await problemOf(api.getShortUrl({ shortCode: 'edit-me' })), {
    type: ErrorType.INVALID_SHORTCODE,
    title: 'Short URL not found',
    status: 404,
    shortCode: 'edit-me',
  });
  t.like(await problemOf(api.deleteShortUrl({ shortCode: 'edit-me' })), { type: ErrorType.INVALID_SHORTCODE, status: 404 });
  t.is((await getWithHost(k.base, 'kurz.test', '/edit-me')).status, 410, 'visitors are told it is gone');
  t.like(await problemOf(api.createShortUrl({ longUrl: 'https://example.com/again', customSlug: 'edit-me' })), {
    type: ErrorType.INVALID_SLUG,
    status: 400,
    customSlug: 'edit-me',
  });
});

test('a future validSince keeps the short URL unknown to visitors until then; editing it moves the start or clears it', async (t) => {
  const k = await startKurz(t);
  const api = sdk(k);
  const start = new Date(k.clock.now() + DAY);
  const created = await api.createShortUrl({
    longUrl: 'https://example.com/launch',
    customSlug: 'launch',
    validSince: start.toISOString(),
  });
  t.is(created.meta.validSince, '2026-01-16T12:00:00+00:00');
  const before = await fetch(`${k.base}/launch`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  t.is(before.status, 404, 'before its start the code answers as one no link has');
  t.is(await visit(k, 'never-made'), 404);
  t.like(await api.getShortUrl({ shortCode: 'launch' }), { shortCode: 'launch' }, 'its owner still sees it');

  k.clock.advance(DAY - 1);
  t.is(await visit(k, 'launch'), 404, 'a millisecond before');
  k.clock.advance(1);
  const after = await fetch(`${k.base}/launch`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  t.is(after.status, 302, 'from its start on it redirects');
  t.is(after.headers.get('location'), 'https://example.com/launch');

  const later = await api.updateShortUrl({ shortCode: 'launch' }, { validSince: new Date(k.clock.now() + DAY).toISOString() });
  t.is(later.meta.validSince, '2026-01-17T12:00:00+00:00');
  t.is(await visit(k, 'launch'), 404, 'a start moved ahead applies at once, cached or not');
  const cleared = await api.updateShortUrl({ shortCode: 'launch' }, { validSince: null });
  t.is(cleared.meta.validSince, null);
  t.is(await visit(k, 'launch'), 302);
});

test('the SDK reads tags, renames and deletes them; tag stats count short URLs and visits', async (t) => {
  const k = await startKurz(t);
  const api = sdk(k);
  await api.createShortUrl({ longUrl: 'https://example.com/1', customSlug: 'one', tags: ['red', 'blue'] });
  await api.createShortUrl({ longUrl: 'https://example.com/2', customSlug: 'two', tags: ['red'] });
  t.is(await visit(k, 'one'), 302);
  t.is(await visit(k, 'one', 'Twitterbot/1.0'), 302);
  t.is(await visit(k, 'two'), 302);
  await k.flushVisits();

  t.deepEqual((await api.listTags()).data, ['blue', 'red']);
  const stats = await api.tagsStats();
  t.deepEqual(stats.data, [
    { tag: 'blue', shortUrlsCount: 1, visitsSummary: { total: 2, nonBots: 1, bots: 1 } },
    { tag: 'red', shortUrlsCount: 2, visitsSummary: { total: 3, nonBots: 2, bots: 1 } },
  ]);
  t.deepEqual((stats as typeof stats & { pagination: unknown }).pagination, {
    currentPage: 1,
    pagesCount: 1,
    itemsPerPage: 2,
    itemsInCurrentPage: 2,
    totalItems: 2,
  });

  t.deepEqual(await api.editTag({ oldName: 'blue', newName: 'navy' }), { oldName: 'blue', newName: 'navy' });
  t.deepEqual((await api.getShortUrl({ shortCode: 'one' })).tags, ['navy', 'red']);
  t.like(await problemOf(api.editTag({ oldName: 'navy', newName: 'red' })), {
    type: ErrorType.TAG_CONFLICT,
    status: 409,
    oldName: 'navy',
    newName: 'red',
  });
  t.like(await problemOf(api.editTag({ oldName: 'nope', newName: 'fine' })), { type: ErrorType.TAG_NOT_FOUND, status: 404, tag: 'nope' });
  await api.deleteTags(['navy', 'never-there']);
  t.deepEqual((await api.listTags()).data, ['red']);
  t.deepEqual((await api.getShortUrl({ shortCode: 'one' })).tags, ['red'], 'the short URL stays');
});

test('the SDK reads visits per short URL, tag, domain and all of them, with bots apart, dates and pages', async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/domains', { host: 'short.test' })).status, 201);
  const api = sdk(k);
  await api.createShortUrl({ longUrl: 'https://example.com/v', customSlug: 'seen', tags: ['t'] });
  await api.createShortUrl({ longUrl: 'https://example.com/w', customSlug: 'other', domain: 'short.test' });
  const t0 = k.clock.now();
  t.is(await visit(k, 'seen'), 302);
  k.clock.advance(60_000);
  t.is(await visit(k, 'seen', 'Twitterbot/1.0'), 302);
  k.clock.advance(60_000);
  t.is(await visit(k, 'seen'), 302);
  t.is((await getWithHost(k.base, 'short.test', '/other')).status, 302);
  await k.flushVisits();

  const visits = await api.getShortUrlVisits({ shortCode: 'seen' });
  t.is(visits.pagination.totalItems, 3);
  t.deepEqual(
    visits.data.map((v) => [v.date, v.potentialBot]),
    [
      ['2026-01-15T12:02:00+00:00', false],
      ['2026-01-15T12:01:00+00:00', true],
      ['2026-01-15T12:00:00+00:00', false],
    ],
    'newest first',
  );
  t.like(visits.data[0], { visitedUrl: 'https://kurz.test/seen', redirectUrl: 'https://example.com/v', userAgent: '' });
  t.is((await api.getShortUrlVisits({ shortCode: 'seen' }, { excludeBots: true })).pagination.totalItems, 2);
  const paged = await api.getShortUrlVisits({ shortCode: 'seen' }, { itemsPerPage: 2, page: 2 });
  t.deepEqual(paged.pagination, { currentPage: 2, pagesCount: 2, itemsPerPage: 2, itemsInCurrentPage: 1, totalItems: 3 });
  const since = await api.getShortUrlVisits({ shortCode: 'seen' }, { startDate: new Date(t0 + 30_000).toISOString() });
  t.is(since.pagination.totalItems, 2);
  t.is((await api.getTagVisits('t')).pagination.totalItems, 3);
  t.is((await api.getDomainVisits('short.test')).pagination.totalItems, 1);
  t.is((await api.getDomainVisits('DEFAULT')).pagination.totalItems, 3);
  t.is((await api.getNonOrphanVisits()).pagination.totalItems, 4);
  t.is((await api.getNonOrphanVisits({ domain: 'short.test' })).pagination.totalItems, 1);
  t.is((await api.getTagVisits('t', { domain: 'short.test' })).pagination.totalItems, 0);
  t.is((await api.getTagVisits('t', { domain: 'DEFAULT' })).pagination.totalItems, 3);
  t.deepEqual(await api.getOrphanVisits(), {
    data: [],
    pagination: { currentPage: 1, pagesCount: 1, itemsPerPage: 10, itemsInCurrentPage: 0, totalItems: 0 },
  });
  t.deepEqual(await api.deleteOrphanVisits(), { deletedVisits: 0 });
  t.deepEqual(await api.getVisitsOverview(), {
    nonOrphanVisits: { total: 4, nonBots: 3, bots: 1 },
    orphanVisits: { total: 0, nonBots: 0, bots: 0 },
  });
  t.deepEqual((await api.getShortUrl({ shortCode: 'seen' })).visitsSummary, { total: 3, nonBots: 2, bots: 1 });
  t.like(await problemOf(api.getShortUrlVisits({ shortCode: 'nope' })), { type: ErrorType.INVALID_SHORTCODE, status: 404 });
  t.like(await problemOf(api.getTagVisits('nope')), { type: ErrorType.TAG_NOT_FOUND, status: 404 });
  t.like(await problemOf(api.getDomainVisits('nope.test')), { type: ErrorType.DOMAIN_NOT_FOUND, status: 404 });
});

test('the SDK reads the domains and sets their redirects; health and mercure-info answer as Shlink does without Mercure', async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/domains', { host: 'short.test', rootRedirect: 'https://example.com/home' })).status, 201);
  const api = sdk(k);
  const { data, defaultRedirects } = await api.listDomains();
  t.deepEqual(data, [
    { domain: 'kurz.test', isDefault: true, redirects: { baseUrlRedirect: null, regular404Redirect: null, invalidShortUrlRedirect: null } },
    {
      domain: 'short.test',
      isDefault: false,
      redirects: { baseUrlRedirect: 'https://example.com/home', regular404Redirect: null, invalidShortUrlRedirect: null },
    },
  ]);
  t.deepEqual(defaultRedirects, { baseUrlRedirect: null, regular404Redirect: null, invalidShortUrlRedirect: null });
  const set = await api.editDomainRedirects({ domain: 'short.test', invalidShortUrlRedirect: 'https://example.com/missing' });
  t.deepEqual(set, {
    baseUrlRedirect: 'https://example.com/home',
    regular404Redirect: null,
    invalidShortUrlRedirect: 'https://example.com/missing',
  });
  t.is((await getWithHost(k.base, 'short.test', '/unknown-code')).location, 'https://example.com/missing', 'the redirect follows');
  t.like(await problemOf(api.editDomainRedirects({ domain: 'short.test', regular404Redirect: 'https://example.com/x' })), {
    type: ErrorType.INVALID_ARGUMENT,
    status: 400,
    invalidElements: ['regular404Redirect'],
  });
  t.like(await problemOf(api.editDomainRedirects({ domain: 'nope.test', baseUrlRedirect: null })), {
    type: ErrorType.DOMAIN_NOT_FOUND,
    status: 404,
  });

  const health = await api.health();
  t.is(health.status, 'pass');
  t.regex(health.version, /^\d+\.\d+\.\d+(\+[0-9A-Za-z.-]+)?$/, 'semver: the web client reads features off it');
  t.like(await problemOf(api.mercureInfo()), { type: ErrorType.MERCURE_NOT_CONFIGURED, status: 501 });
});

test("refusals come as Shlink's problems, with its types and extra fields, and store nothing", async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/domains', { host: 'short.test' })).status, 201);
  const api = sdk(k);
  await api.createShortUrl({ longUrl: 'https://example.com/taken', customSlug: 'taken', domain: 'short.test' });
  const invalid = async (body: Record<string, unknown>, field: string) => {
    const problem = await problemOf(api.createShortUrl(body as { longUrl: string }));
    t.like(
      problem,
      { type: ErrorType.INVALID_ARGUMENT, title: 'Invalid data', status: 400, invalidElements: [field] },
      JSON.stringify(body),
    );
  };
  await invalid({ longUrl: 'javascript:alert(1)' }, 'longUrl');
  await invalid({ title: 'no URL' }, 'longUrl');
  await invalid({ longUrl: 'https://example.com/x', customSlug: 'has space' }, 'customSlug');
  await invalid({ longUrl: 'https://example.com/x', customSlug: 'rest' }, 'customSlug');
  await invalid({ longUrl: 'https://example.com/x', maxVisits: -1 }, 'maxVisits');
  await invalid({ longUrl: 'https://example.com/x', validUntil: 'tomorrow' }, 'validUntil');
  await invalid({ longUrl: 'https://example.com/x', validSince: 'next week' }, 'validSince');
  await invalid(
    { longUrl: 'https://example.com/x', validSince: '2027-02-01T00:00:00+00:00', validUntil: '2027-01-01T00:00:00+00:00' },
    'validSince',
  );
  await invalid({ longUrl: 'https://example.com/x', crawlable: 'yes' }, 'crawlable');
  await invalid({ longUrl: 'https://example.com/x', shortCodeLength: 3 }, 'shortCodeLength');
  await invalid({ longUrl: 'https://example.com/x', pathPrefix: 'p' }, 'pathPrefix');
  await invalid({ longUrl: 'https://example.com/x', domain: 'unknown.test' }, 'domain');
  await invalid({ longUrl: 'https://example.com/x', tags: ['<b>'] }, 'tags');
  await invalid({ longUrl: 'https://example.com/x', deviceLongUrls: { android: 'https://example.com/android' } }, 'deviceLongUrls');
  t.deepEqual(await problemOf(api.createShortUrl({ longUrl: 'https://example.com/y', customSlug: 'taken', domain: 'short.test' })), {
    type: ErrorType.INVALID_SLUG,
    title: 'Invalid custom slug',
    detail: 'Provided slug "taken" is already in use for domain "short.test".',
    status: 400,
    customSlug: 'taken',
    domain: 'short.test',
  });
  t.like(await problemOf(api.getShortUrl({ shortCode: 'taken', domain: 'elsewhere.test' })), {
    type: ErrorType.INVALID_SHORTCODE,
    detail: 'No URL found with short code "taken" for domain "elsewhere.test"',
    shortCode: 'taken',
    domain: 'elsewhere.test',
  });
  t.like(await problemOf(api.listShortUrls({ orderBy: { field: 'nonsense' as 'title', dir: 'ASC' } })), {
    type: ErrorType.INVALID_ARGUMENT,
    invalidElements: ['orderBy'],
  });
  t.like(await problemOf(api.listShortUrls({ itemsPerPage: 0 })), { type: ErrorType.INVALID_ARGUMENT, invalidElements: ['itemsPerPage'] });
  t.like(await problemOf(api.updateShortUrl({ shortCode: 'taken', domain: 'short.test' }, { maxVisits: 0 })), {
    type: ErrorType.INVALID_ARGUMENT,
    invalidElements: ['maxVisits'],
  });
  t.like(await problemOf(sdk(k, 'not-a-key').listShortUrls()), { type: ErrorType.INVALID_API_KEY, title: 'Invalid API key', status: 401 });
  const reader = (await k.kurz.services.access.createKey(1, 'reader', { scopes: ['links:read'] })).secret;
  t.like(await problemOf(sdk(k, reader).createShortUrl({ longUrl: 'https://example.com/z' })), { status: 403 });
  t.is((await sdk(k, reader).listShortUrls()).pagination.totalItems, 1, 'a read-only key reads');
  t.is(await k.linkCount(), 1, 'nothing refused was stored');
});

test("a member's key sees and changes only the member's own short URLs, tags and visits", async (t) => {
  const k = await startKurz(t);
  const admin = sdk(k);
  await admin.createShortUrl({ longUrl: 'https://example.com/admins', customSlug: 'admins', tags: ['mine'] });
  t.is((await k.postJson('/api/v1/users', { name: 'mia', role: 'member' })).status, 201);
  const [mia] = await k.sql<{ id: number }>("SELECT id FROM users WHERE name = 'mia'");
  const key = (await k.kurz.services.access.createKey(mia!.id, 'mias', { scopes: ['links:read', 'links:write', 'stats:read'] })).secret;
  const member = sdk(k, key);
  await member.createShortUrl({ longUrl: 'https://example.com/mias', customSlug: 'mias', tags: ['hers'] });
  t.deepEqual(
    (await member.listShortUrls()).data.map((s) => s.shortCode),
    ['mias'],
  );
  t.like(await problemOf(member.getShortUrl({ shortCode: 'admins' })), { type: ErrorType.INVALID_SHORTCODE, status: 404 });
  t.like(await problemOf(member.deleteShortUrl({ shortCode: 'admins' })), { type: ErrorType.INVALID_SHORTCODE, status: 404 });
  t.deepEqual((await member.listTags()).data, ['hers']);
  t.like(await problemOf(member.editTag({ oldName: 'mine', newName: 'taken' })), { type: ErrorType.TAG_NOT_FOUND });
  t.deepEqual((await admin.listTags()).data, ['hers', 'mine'], "an admin's key sees everyone's");
  t.deepEqual((await admin.getShortUrl({ shortCode: 'admins' })).tags, ['mine']);
});

test("the SDK sets and reads redirect rules, which are kurz's rules one to one, and the redirect follows them", async (t) => {
  const k = await startKurz(t);
  const api = sdk(k);
  await api.createShortUrl({ longUrl: 'https://example.com/default', customSlug: 'ruled' });
  const set = await api.setShortUrlRedirectRules(
    { shortCode: 'ruled' },
    {
      redirectRules: [
        { longUrl: 'https://example.com/android', conditions: [{ type: 'device', matchKey: null, matchValue: 'android' }] },
        {
          longUrl: 'https://example.com/campaign',
          conditions: [
            { type: 'query-param', matchKey: 'utm_campaign', matchValue: 'spring' },
            { type: 'language', matchKey: null, matchValue: 'fr' },
          ],
        },
      ],
    },
  );
  const expected = {
    defaultLongUrl: 'https://example.com/default',
    redirectRules: [
      { longUrl: 'https://example.com/android', priority: 1, conditions: [{ type: 'device', matchKey: null, matchValue: 'android' }] },
      {
        longUrl: 'https://example.com/campaign',
        priority: 2,
        conditions: [
          { type: 'query-param', matchKey: 'utm_campaign', matchValue: 'spring' },
          { type: 'language', matchKey: null, matchValue: 'fr' },
        ],
      },
    ],
  };
  t.deepEqual(set, expected);
  t.deepEqual(await api.getShortUrlRedirectRules({ shortCode: 'ruled' }), expected);
  t.true((await api.getShortUrl({ shortCode: 'ruled' })).hasRedirectRules);
  const own = (await (await k.get('/api/v1/links/ruled/rules')).json()) as { rules: Array<{ target?: string }> };
  t.deepEqual(
    own.rules.map((rule) => rule.target),
    ['https://example.com/android', 'https://example.com/campaign'],
    "kurz's own API shows the same rules",
  );
  const android = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
  const go = async (path: string, headers: Record<string, string>) =>
    (await fetch(`${k.base}${path}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA, ...headers } })).headers.get('location');
  t.is(await go('/ruled', { 'user-agent': android }), 'https://example.com/android');
  t.false(k.config.forwardQuery, "the query is not forwarded: the link leaves it to the instance's setting");
  t.is(await go('/ruled?utm_campaign=spring', { 'accept-language': 'fr-FR,fr;q=0.9' }), 'https://example.com/campaign');
  t.is(await go('/ruled', {}), 'https://example.com/default');

  t.like(
    await problemOf(
      api.setShortUrlRedirectRules(
        { shortCode: 'ruled' },
        {
          redirectRules: [
            { longUrl: 'https://example.com/x', conditions: [{ type: 'device', matchKey: null, matchValue: 'toaster' as 'ios' }] },
          ],
        },
      ),
    ),
    { type: ErrorType.INVALID_ARGUMENT, invalidElements: ['redirectRules'] },
  );
  t.deepEqual(await api.getShortUrlRedirectRules({ shortCode: 'ruled' }), expected, 'a refused set changes nothing');

  // A rule of kurz's own (here a refusal by country) is not Shlink's to show or replace.
  const rules = [
    { conditions: [{ type: 'geolocation-country-code', matchKey: null, matchValue: 'DE' }], refuse: 451 },
    { conditions: [{ type: 'device', matchKey: null, matchValue: 'ios' }], target: 'https://example.com/ios' },
  ];
  t.is((await k.request('PUT', '/api/v1/links/ruled/rules', { rules })).status, 200);
  t.deepEqual((await api.getShortUrlRedirectRules({ shortCode: 'ruled' })).redirectRules, [
    { longUrl: 'https://example.com/ios', priority: 2, conditions: [{ type: 'device', matchKey: null, matchValue: 'ios' }] },
  ]);
  t.like(await problemOf(api.setShortUrlRedirectRules({ shortCode: 'ruled' }, { redirectRules: [] })), {
    type: ErrorType.INVALID_ARGUMENT,
    invalidElements: ['redirectRules'],
  });
  t.is(((await (await k.get('/api/v1/links/ruled/rules')).json()) as { rules: unknown[] }).rules.length, 2, 'kept');
  t.like(await problemOf(api.getShortUrlRedirectRules({ shortCode: 'nope' })), { type: ErrorType.INVALID_SHORTCODE, status: 404 });
});
