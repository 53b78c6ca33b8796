import test from 'ava';
import { BROWSER_ACCEPT, startKurz, type TestKurz } from '../helpers.ts';
import { UA } from '../fixtures/user-agents.ts';
import { browser } from './ui-session.ts';

// A link's social preview (issue 26, Helpers): set on create and PATCH, shown in the link's JSON, and served
// as Open Graph and Twitter tags to link-preview bots instead of the redirect; people still get the redirect.

const TARGET = 'https://example.com/secret-target';

async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

function visit(k: TestKurz, path: string, userAgent: string, method = 'GET'): Promise<Response> {
  return fetch(`${k.base}/${path}`, { method, headers: { 'user-agent': userAgent, accept: BROWSER_ACCEPT }, redirect: 'manual' });
}

/** The content of each `<meta property|name="KEY" content="…">` of a page, as the page escapes it. */
function metaOf(html: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [, key = '', content = ''] of html.matchAll(/<meta (?:property|name)="([^"]+)" content="([^"]*)">/g)) found[key] = content;
  return found;
}

const CARD = { title: 'Spring <sale> & "more"', description: 'Two lines\nof text', image: 'https://cdn.example.com/card.png' };

test('create sets a preview and the link JSON shows it; PATCH changes one part; null clears it', async (t) => {
  const k = await startKurz(t);
  const created = await k.postJson('/api/v1/links', { url: TARGET, alias: 'card', preview: CARD });
  t.is(created.status, 201);
  t.deepEqual((await json(created))['preview'], CARD);
  const patched = await k.request('PATCH', '/api/v1/links/card', { preview: { title: '  New title ', image: null } });
  t.is(patched.status, 200);
  t.deepEqual((await json(patched))['preview'], { title: 'New title', description: null, image: null });
  const [entry] = (await json<{ entries: Array<{ action: string; details: unknown }> }>(await k.get('/api/v1/links/card/audit'))).entries;
  t.deepEqual(entry?.details, { preview: 'set' });
  const cleared = await k.request('PATCH', '/api/v1/links/card', { preview: null });
  t.is((await json(cleared))['preview'], null);
  const [row] = await k.sql<{ preview: string | null }>("SELECT preview FROM links WHERE code = 'card'");
  t.is(row?.preview, null, 'no preview is stored as NULL');
  const plain = await json(await k.postJson('/api/v1/links', { url: 'https://example.com/plain' }));
  t.is(plain['preview'], null);
});

test('a malformed preview is a 400 naming its part', async (t) => {
  const k = await startKurz(t);
  const cases: Array<[unknown, string]> = [
    ['a card', 'preview'],
    [{ title: 'x'.repeat(201) }, 'preview.title'],
    [{ description: 'x'.repeat(501) }, 'preview.description'],
    [{ image: '/relative.png' }, 'preview.image'],
    [{ image: 'javascript:alert(1)' }, 'preview.image'],
    [{ image: 'ftp://example.com/a.png' }, 'preview.image'],
    [{ image: 'https://user:pw@example.com/a.png' }, 'preview.image'],
    [{ title: 'a\u0000b' }, 'preview.title'],
    [{ title: 3 }, 'preview.title'],
    [{ colour: 'red' }, 'preview.colour'],
  ];
  for (const [preview, field] of cases) {
    const res = await k.postJson('/api/v1/links', { url: TARGET, preview });
    t.is(res.status, 400, JSON.stringify(preview));
    t.is((await json(res))['field'], field, JSON.stringify(preview));
  }
});

test('link-preview bots get the card, escaped, uncached; people, crawlers and plain links get the redirect', async (t) => {
  const k = await startKurz(t);
  const { shortUrl } = await json<{ shortUrl: string }>(await k.postJson('/api/v1/links', { url: TARGET, alias: 'card', preview: CARD }));
  await k.postJson('/api/v1/links', { url: TARGET, alias: 'bare' });
  for (const bot of [UA.slackbot, UA.twitterbot, UA.facebookPreviewBot, UA.whatsapp, UA.telegramBot, UA.discordbot, UA.linkedinBot]) {
    const res = await visit(k, 'card', bot);
    t.is(res.status, 200, bot);
    t.is(res.headers.get('cache-control'), 'no-store', bot);
    t.is(res.headers.get('vary'), 'User-Agent', bot);
    t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
    const html = await res.text();
    t.false(html.includes(TARGET), 'the page names no target');
    t.false(html.includes('<sale>'), 'the title is escaped');
    t.deepEqual(
      { ...metaOf(html), robots: undefined, viewport: undefined },
      {
        'og:type': 'website',
        'og:url': shortUrl,
        'og:site_name': 'kurz',
        'og:title': 'Spring &lt;sale&gt; &amp; &quot;more&quot;',
        'twitter:title': 'Spring &lt;sale&gt; &amp; &quot;more&quot;',
        'og:description': 'Two lines\nof text',
        description: 'Two lines\nof text',
        'twitter:description': 'Two lines\nof text',
        'og:image': 'https://cdn.example.com/card.png',
        'twitter:image': 'https://cdn.example.com/card.png',
        'twitter:card': 'summary_large_image',
        'color-scheme': 'light dark',
        robots: undefined,
        viewport: undefined,
      },
      bot,
    );
  }
  for (const person of [UA.iphoneSafari, UA.desktopChromeWindows, UA.googlebot]) {
    const res = await visit(k, 'card', person);
    t.is(res.status, 302, person);
    t.is(res.headers.get('location'), TARGET);
    t.is(res.headers.get('cache-control'), 'no-store', 'a person’s redirect is not kept for a bot either');
  }
  const bare = await visit(k, 'bare', UA.slackbot);
  t.is(bare.status, 302, 'a link without a preview redirects a preview bot');
  t.is(bare.headers.get('cache-control'), 'private, max-age=90');
});

test('a preview bot’s GET counts as a bot’s visit; its HEAD does not', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: TARGET, alias: 'card', preview: { title: 'Hello' } });
  t.is((await visit(k, 'card', UA.slackbot)).status, 200);
  const head = await visit(k, 'card', UA.slackbot, 'HEAD');
  t.is(head.status, 200);
  t.is((await visit(k, 'card', UA.iphoneSafari)).status, 302);
  await k.flushVisits();
  const rows = await k.sql<{ bot: string | null }>('SELECT bot FROM visits ORDER BY id');
  t.deepEqual(
    rows.map((r) => r.bot),
    ['Slack', null],
  );
});

test('an edited preview reaches the redirect at once (the cache drops the link)', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: TARGET, alias: 'later' });
  t.is((await visit(k, 'later', UA.slackbot)).status, 302);
  await k.request('PATCH', '/api/v1/links/later', { preview: { title: 'Now with a card' } });
  const res = await visit(k, 'later', UA.slackbot);
  t.is(res.status, 200);
  t.regex(await res.text(), /<meta property="og:title" content="Now with a card">/);
  await k.request('PATCH', '/api/v1/links/later', { preview: null });
  t.is((await visit(k, 'later', UA.slackbot)).status, 302);
});

test('the link page’s edit form shows, sets and clears the preview; a bad image URL is shown beside its field', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: TARGET, alias: 'form', preview: { title: 'From the API' } });
  const b = await browser(k);
  const { html } = await b.page('/links/form');
  t.regex(html, /<legend>Social preview/);
  t.regex(html, /name="previewTitle"[^>]*value="From the API"/);
  const fields = { url: TARGET, enabled: 'true', previewTitle: 'From the form', previewDescription: 'Told', previewImage: '' };
  const saved = await b.submit('/links/form', fields);
  t.is(saved.status, 303);
  t.deepEqual((await json(await k.get('/api/v1/links/form')))['preview'], { title: 'From the form', description: 'Told', image: null });

  const refused = await b.submit('/links/form', { ...fields, previewImage: 'not a url' });
  t.is(refused.status, 400);
  const page = await refused.text();
  t.regex(page, /Preview image URL must be an absolute http or https URL/);
  t.regex(page, /id="previewImage-error"/);

  const cleared = await b.submit('/links/form', { ...fields, previewTitle: '', previewDescription: ' ' });
  t.is(cleared.status, 303);
  t.is((await json(await k.get('/api/v1/links/form')))['preview'], null);
});
