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
      /<tr>\s*<td data-label="Line" class="num"><span>(\d+)<\/span><\/td>\s*<td data-label="URL" class="target"><span>([^<]*)<\/span><\/td>\s*<td data-label="Result"><span>(.*?)<\/span><\/td>\s*<td data-label="Short URL"><span>(.*?)<\/span><\/td>/g,
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
  t.regex(rows[2]?.[3] ?? '', /url must be absolute/);
  t.regex(rows[0]?.[4] ?? '', /<a href="\/links\/[A-Za-z0-9]{6}">https:\/\/kurz\.test\/[A-Za-z0-9]{6}<\/a>/);
  t.is(await k.linkCount(), 3);
  t.regex(html, /<textarea id="urls" name="urls"[^>]*>not a url<\/textarea>/, 'the failed lines are offered again');
  const code = /href="\/links\/([A-Za-z0-9]{6})">https:\/\/kurz\.test\/\1<\/a>/.exec(rows[0]?.[4] ?? '')?.[1];
  t.is((await k.get(`/${code}`)).headers.get('location'), 'https://example.com/one');
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
