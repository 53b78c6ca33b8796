import test from 'ava';
import { startKurz } from '../helpers.ts';
import { browser } from './ui-session.ts';

test('bulk shortening creates every line and shows created, existing and failed ones', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/old' });
  const b = await browser(k);
  const urls = ['https://example.com/one', '', 'https://example.com/old', 'not a url', '  https://example.com/two  '].join('\r\n');
  const res = await b.submit('/import', { urls });
  t.is(res.status, 200);
  const html = await res.text();
  t.regex(html, /2 created, 1 already shortened, 1 failed\./);
  const rows = [
    ...html.matchAll(
      /<tr>\s*<td data-label="Line" class="num"><span>(\d+)<\/span><\/td>\s*<td data-label="URL" class="target"><span>([^<]*)<\/span><\/td>\s*<td data-label="Result"><span>(.*?)<\/span><\/td>\s*<td data-label="Short URL" class="short-cell"><span>(.*?)<\/span><\/td>/g,
    ),
  ];
  t.deepEqual(
    rows.map((r) => [
      r[1],
      r[2],
      /state-active">(\w+)|state-off">(error)/
        .exec(r[3] ?? '')
        ?.slice(1)
        .find(Boolean),
    ]),
    [
      ['1', 'https://example.com/one', 'created'],
      ['3', 'https://example.com/old', 'existing'],
      ['4', 'not a url', 'error'],
      ['5', 'https://example.com/two', 'created'],
    ],
  );
  t.regex(rows[2]?.[3] ?? '', /Long URL must be absolute/, "the single form's message");
  t.regex(html, /<p class="notice warn" role="status" id="bulk-summary">/, 'amber: a line failed');
  t.regex(rows[0]?.[4] ?? '', /<a href="\/links\/[A-Za-z0-9]{6}">https:\/\/kurz\.test\/[A-Za-z0-9]{6}<\/a>/);
  t.is(await k.linkCount(), 3);
  t.regex(html, /<textarea id="urls" name="urls"[^>]*>not a url<\/textarea>/, 'the failed lines are offered again');
  const code = /href="\/links\/([A-Za-z0-9]{6})">https:\/\/kurz\.test\/\1<\/a>/.exec(rows[0]?.[4] ?? '')?.[1];
  t.is((await k.get(`/${code}`)).headers.get('location'), 'https://example.com/one');
});

test('a batch gives every line its tags, domain and expiry, and its results are offered to copy and as CSV', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const urls = ['https://example.com/x', '=HYPERLINK("https://evil.example")', 'https://example.com/y'].join('\n');
  const res = await b.submit('/import', { urls, tags: 'launch, print', expiresAt: '2099-01-02T03:04' });
  t.is(res.status, 200);
  const html = await res.text();
  t.regex(html, /<p class="notice warn" role="status" id="bulk-summary">2 created, 0 already shortened, 1 failed\./);
  const codes = [...html.matchAll(/href="\/links\/([A-Za-z0-9]{6})">https:\/\/kurz\.test\/\1<\/a>/g)].map((m) => m[1]);
  t.is(codes.length, 2);
  for (const code of codes)
    t.like(await (await k.get(`/api/v1/links/${code}`)).json(), { tags: ['launch', 'print'], expiresAt: '2099-01-02T03:04:00.000Z' });
  t.true(html.includes(`data-copy="https://kurz.test/${codes[0]}\nhttps://kurz.test/${codes[1]}"`), 'copy all: one short URL per line');
  const csvHref =
    /<a class="button secondary" href="data:text\/csv;charset=utf-8,([^"]+)" download="(kurz-bulk-[0-9-]+T\d{4}Z\.csv)" id="results-csv">/.exec(
      html,
    );
  t.truthy(csvHref, 'a CSV download of the results');
  const csv = decodeURIComponent(csvHref?.[1] ?? '')
    .replaceAll('&#39;', "'")
    .replaceAll('&quot;', '"')
    .replaceAll('&amp;', '&');
  const lines = csv.trim().split('\n');
  t.is(lines[0], 'line,url,result,reason,short_url');
  t.is(lines[1], `1,https://example.com/x,created,,https://kurz.test/${codes[0]}`);
  t.true(lines[2]?.startsWith(`2,"'=HYPERLINK(""https://evil.example"")",error,`), `a formula is defused: ${lines[2]}`);
  t.is(lines.length, 4);
  // The batch's tags and expiry are kept in the form for the failed lines.
  t.regex(html, /name="tags"[^>]*value="launch, print"|value="launch, print"[^>]*name="tags"/);
});

test('a batch option that cannot be used is refused beside its field, creating nothing', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const past = await b.submit('/import', { urls: 'https://example.com/a\nhttps://example.com/b', expiresAt: '2001-01-01T00:00' });
  t.is(past.status, 400);
  t.regex(await past.text(), /id="expiresAt-error" role="alert">Expires[^<]* must be in the future/);
  const badTag = await b.submit('/import', { urls: 'https://example.com/a', tags: 'x'.repeat(500) });
  t.is(badTag.status, 400);
  t.regex(await badTag.text(), /id="tags-error" role="alert">Tags? /);
  const badDomain = await b.submit('/import', { urls: 'https://example.com/a', domain: 'nowhere.test' });
  t.is(badDomain.status, 400);
  t.regex(await badDomain.text(), /nowhere\.test/);
  t.is(await k.linkCount(), 0);
});

test('bulk shortening refuses an empty list and more than 1000 lines, storing nothing', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const empty = await b.submit('/import', { urls: ' \n\n' });
  t.is(empty.status, 400);
  t.regex(await empty.text(), /id="urls-error" role="alert">URLs must hold at least one URL/);
  const many = Array.from({ length: 1001 }, (_, i) => `https://e.x/${i}`).join('\n');
  const tooMany = await b.submit('/import', { urls: many });
  t.is(tooMany.status, 400);
  const html = await tooMany.text();
  t.regex(html, /id="urls-error" role="alert">URLs may hold at most 1000 URLs, got 1001/);
  t.regex(html, /aria-invalid="true"/);
  t.is(await k.linkCount(), 0);
});

test('a 1000-line bulk creates 1000 links', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const res = await b.submit('/import', { urls: Array.from({ length: 1000 }, (_, i) => `https://e.x/${i}`).join('\n') });
  t.is(res.status, 200);
  t.regex(await res.text(), /1000 created, 0 already shortened, 0 failed\./);
  t.is(await k.linkCount(), 1000);
});
