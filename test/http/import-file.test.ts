import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { BROWSER_ACCEPT, startKurz, type TestKurz } from '../helpers.ts';
import { browser, type Browser } from './ui-session.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'import');

/** Uploads `bytes` as the import page's file form does (multipart), with the session's CSRF token unless `csrf` is false. */
async function upload(
  k: TestKurz,
  b: Browser,
  fields: { source: string; map?: string },
  bytes: Uint8Array | string,
  fileName: string,
  csrf = true,
): Promise<Response> {
  const form = new FormData();
  if (csrf) form.set('_csrf', await b.csrf());
  form.set('source', fields.source);
  if (fields.map !== undefined) form.set('map', fields.map);
  form.set('file', new Blob([bytes]), fileName);
  return fetch(`${k.base}/import/file`, {
    method: 'POST',
    headers: { accept: BROWSER_ACCEPT, cookie: b.cookie },
    body: form,
    redirect: 'manual',
  });
}

/** The hidden fields of the preview's confirmation form. */
function confirmation(html: string): Record<string, string> {
  const form = /<form method="post" action="\/import\/file\/confirm"[^>]*>([\s\S]*?)<\/form>/.exec(html)?.[1] ?? '';
  const unescape = (v: string) =>
    v.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
  return Object.fromEntries(
    [...form.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [m[1], unescape(m[2] ?? '')]),
  );
}

/** The rows of the lines table: [line, code, url, what happens] as text. */
function lines(html: string): string[][] {
  return [
    ...html.matchAll(
      /<tr>\s*<td data-label="Line"[^>]*><span>(\d+)<\/span><\/td>\s*<td data-label="Code"[^>]*><span>(.*?)<\/span><\/td>\s*<td data-label="URL"[^>]*><span>(.*?)<\/span><\/td>\s*<td data-label="What happens"><span>(.*?)<\/span><\/td>/g,
    ),
  ].map((m) => m.slice(1).map((cell) => cell.replace(/<[^>]+>/g, '').trim()));
}

test('the import page previews a YOURLS dump line by line, stores nothing, and imports exactly that on confirmation', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  await k.postJson('/api/v1/links', { url: 'https://example.com/mine', alias: 'ozh' });
  const form = await b.page('/import');
  t.regex(form.html, /<form method="post" action="\/import\/file" enctype="multipart\/form-data"/);
  t.regex(form.html, /<option value="yourls">YOURLS \(mysqldump\)<\/option>/);

  const preview = await upload(k, b, { source: 'yourls' }, readFileSync(join(FIXTURES, 'yourls.sql')), 'yourls.sql');
  t.is(preview.status, 200);
  const html = await preview.text();
  t.regex(html, /yourls\.sql, read as YOURLS \(mysqldump\): 2 links will be imported, 1 skipped\. Nothing is stored until you confirm\./);
  t.deepEqual(lines(html), [
    ['97', '1', 'https://yourls.org/', 'import'],
    [
      '97',
      'ozh',
      'https://ozh.org/?q=it&#39;s',
      'skip code &quot;ozh&quot; already exists here with another URL (https://example.com/mine)',
    ],
    ['97', 'Release_2', 'https://example.com/releases/2.0', 'import'],
  ]);
  t.is(await k.linkCount(), 1, 'a preview stores nothing');

  const fields = confirmation(html);
  t.deepEqual(Object.keys(fields).sort(), ['_csrf', 'file', 'fileName', 'map', 'seal', 'source', 'until']);
  const done = await b.post('/import/file/confirm', fields);
  t.is(done.status, 200);
  const result = await done.text();
  t.regex(result, /2 links imported from yourls\.sql, 1 skipped\./);
  t.deepEqual(
    lines(result).map((l) => l[1]),
    ['ozh'],
    'the result lists the skipped lines',
  );
  t.like(await (await k.get('/api/v1/links/Release_2')).json(), { visitCount: 41, createdAt: '2024-04-30T23:59:59.000Z' });
  // The log's one click of Release_2 is in its figures by day; none of ozh's goes to the link that kept the code.
  const days = (code: string, from: string, to: string) => k.get(`/api/v1/links/${code}/stats?from=${from}&to=${to}&granularity=day`);
  t.like(await (await days('Release_2', '2024-04-30', '2024-05-02')).json(), {
    visits: { total: 1, humans: 1 },
    series: [
      { t: '2024-04-30T00:00:00.000Z', humans: 0 },
      { t: '2024-05-01T00:00:00.000Z', humans: 1 },
    ],
    countries: [{ name: 'US', count: 1 }],
  });
  t.like(await (await days('ozh', '2024-03-01', '2024-03-05')).json(), { visits: { total: 0 } });
  t.like(await (await k.get('/api/v1/links/ozh')).json(), { url: 'https://example.com/mine' }, 'never overwritten');
});

test('a confirmation whose file, source or seal was changed, or that is more than an hour old, imports nothing', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const preview = await upload(k, b, { source: 'csv' }, 'url,code\nhttps://example.com/a,aaa\n', 'list.csv');
  const fields = confirmation(await preview.text());
  const changes: Array<[string, Record<string, string>]> = [
    ['another file', { ...fields, file: Buffer.from('url,code\nhttps://evil.example/,aaa\n').toString('base64url') }],
    ['another source', { ...fields, source: 'shlink' }],
    ['another name', { ...fields, fileName: 'other.csv' }],
    ['a later expiry', { ...fields, until: String(Number(fields['until']) + 3_600_000) }],
    ['no seal', { ...fields, seal: '' }],
  ];
  for (const [what, changed] of changes) {
    const res = await b.post('/import/file/confirm', changed);
    t.is(res.status, 400, what);
    t.regex(await res.text(), /id="file-error" role="alert">The preview was changed on its way back: upload the file again/, what);
  }
  k.clock.advance(60 * 60 * 1000 + 1);
  const late = await b.post('/import/file/confirm', fields);
  t.is(late.status, 400);
  t.regex(await late.text(), /The preview is more than an hour old: upload the file again/);
  t.is(await k.linkCount(), 0);
});

test('a file that cannot be read brings the form back with the reason and its line; no file, no CSRF token, a bad map are refused', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const broken = await upload(k, b, { source: 'yourls' }, "INSERT INTO yourls_url VALUES ('a',\n'b);", 'broken.sql');
  t.is(broken.status, 400);
  const html = await broken.text();
  t.regex(html, /<p class="alert" role="alert" id="import-file-error">Line 2: a string is never closed<\/p>/);
  t.regex(html, /<option value="yourls" selected>/, 'the source chosen stays chosen');

  const none = await upload(k, b, { source: 'csv' }, '', 'empty.txt');
  t.is(none.status, 400);
  t.regex(await none.text(), /id="file-error" role="alert">File is required: choose the file to import/);

  const map = await upload(k, b, { source: 'csv', map: 'code=x' }, 'https://example.com/\n', 'urls.txt');
  t.is(map.status, 400);
  t.regex(await map.text(), /id="map-error" role="alert">Bitly columns is only for a Bitly export: leave it empty/);

  const forged = await upload(k, b, { source: 'csv' }, 'https://example.com/\n', 'urls.txt', false);
  t.is(forged.status, 403);
  t.is(await k.linkCount(), 0);
});

test('a preview escapes what the file holds', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const res = await upload(k, b, { source: 'csv' }, 'url,code\n"https://example.com/?q=<script>alert(1)</script>",x\n', '<b>list</b>.csv');
  t.is(res.status, 200);
  const html = await res.text();
  t.false(html.includes('<script>alert(1)'));
  t.false(html.includes('<b>list</b>'));
  t.regex(html, /&lt;b&gt;list&lt;\/b&gt;\.csv, read as/);
});

test('a Kutt SQLite file uploads as bytes and previews its links', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Sqlite(':memory:');
  db.exec(
    "CREATE TABLE links (id integer PRIMARY KEY, address varchar(255) NOT NULL, description varchar(255), banned boolean NOT NULL DEFAULT '0', domain_id integer, password varchar(255), expire_in datetime, target varchar(2040) NOT NULL, visit_count integer NOT NULL DEFAULT '0', created_at datetime NOT NULL DEFAULT CURRENT_TIMESTAMP); INSERT INTO links (address, target, visit_count, created_at) VALUES ('kt', 'https://example.com/kutt', 5, '2024-01-01 00:00:00');",
  );
  const bytes = db.serialize();
  db.close();
  const res = await upload(k, b, { source: 'kutt' }, bytes, 'data');
  t.is(res.status, 200);
  const html = await res.text();
  t.deepEqual(lines(html), [['1', 'kt', 'https://example.com/kutt', 'import']]);
  t.is((await b.post('/import/file/confirm', confirmation(html))).status, 200);
  t.like(await (await k.get('/api/v1/links/kt')).json(), { visitCount: 5, createdAt: '2024-01-01T00:00:00.000Z' });
});

test('kurz’s own export is refused whole on a conflicting code, as `kurz import` refuses it; a file not UTF-8 or over 8 MiB is refused', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  await k.postJson('/api/v1/links', { url: 'https://example.com/mine', alias: 'clash' });
  const line = (code: string, url: string) =>
    JSON.stringify({
      code,
      url,
      isAlias: true,
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:00.000Z',
      visitCount: 0,
    });
  const conflict = await upload(
    k,
    b,
    { source: 'kurz' },
    [line('fresh', 'https://example.com/fresh'), line('clash', 'https://example.com/theirs')].join('\n'),
    'links.ndjson',
  );
  t.is(conflict.status, 409);
  t.regex(
    await conflict.text(),
    /id="import-file-error">Line 2: code &quot;clash&quot; already exists here with another URL \(https:\/\/example\.com\/mine\)/,
  );

  const latin1 = await upload(k, b, { source: 'csv' }, Buffer.from('url,title\nhttps://example.com/,caf\u00e9\n', 'latin1'), 'list.csv');
  t.is(latin1.status, 400);
  t.regex(await latin1.text(), /id="import-file-error">The file list\.csv is not UTF-8 text: save it as UTF-8 and import it again/);

  const huge = await upload(k, b, { source: 'csv' }, 'https://example.com/\n'.repeat(450_000), 'huge.txt');
  t.is(huge.status, 413);
  t.is(await k.linkCount(), 1);
});
