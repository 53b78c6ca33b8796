import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import test from 'ava';
import { ADMIN_PASSWORD, startKurz, type TestKurz } from '../helpers.ts';
import { member, MEMBER_PASSWORD } from './members.ts';
import { browser } from './ui-session.ts';

// YOURLS' API as its clients use it: each request below is what a client sends, byte for byte where the
// client's source says how (ShareX's YourlsURLShortener and RequestHelpers; the "YOURLS Shortener" browser
// extension's background script), and each answer is compared with what YOURLS' own code writes.

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/**
 * Sends `head` and `body` on a connection of its own, exactly as given; when the head asks for
 * `Expect: 100-continue`, waits for the interim answer before sending the body, as .NET does.
 */
function rawExchange(base: string, head: string, body: Buffer | string): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let bodySent = false;
    const sendBody = () => {
      bodySent = true;
      socket.write(body);
    };
    socket.on('error', reject);
    socket.on('connect', () => {
      socket.write(head);
      if (!/^expect: 100-continue$/im.test(head)) sendBody();
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      let text = received.toString('latin1');
      if (!bodySent && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        received = received.subarray('HTTP/1.1 100 Continue\r\n\r\n'.length);
        return sendBody();
      }
      text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return;
      const lines = text.slice(0, end).split('\r\n');
      const headers = new Map(
        lines.slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      const length = Number(headers.get('content-length') ?? -1);
      const rest = received.subarray(end + 4);
      if (rest.length < length) return;
      socket.destroy();
      resolve({ status: Number(lines[0]?.split(' ')[1]), headers, body: rest.subarray(0, length).toString('utf8') });
    });
  });
}

/** The multipart body ShareX's RequestHelpers.MakeInputContent writes for `fields`, in their order. */
function shareXBody(boundary: string, fields: ReadonlyArray<[string, string]>): Buffer {
  const parts = fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  return Buffer.from(`${parts.join('')}--${boundary}--\r\n`, 'utf8');
}

/** What ShareX's YOURLS shortener sends for `url` (HttpWebRequest's headers, in its order). */
function shareXRequest(k: TestKurz, signature: string, url: string, host = new URL(k.base).host): Promise<RawAnswer> {
  // RequestHelpers.CreateBoundary: twenty dashes and DateTime.Now.Ticks in hex.
  const boundary = `--------------------${639_040_320_000_000_000n.toString(16)}`;
  const body = shareXBody(boundary, [
    ['signature', signature],
    ['action', 'shorturl'],
    ['url', url],
    ['format', 'simple'],
  ]);
  const head =
    'POST /yourls-api.php HTTP/1.1\r\n' +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\n` +
    'User-Agent: ShareX/17.1.0\r\n' +
    `Host: ${host}\r\n` +
    `Content-Length: ${body.length}\r\n` +
    'Expect: 100-continue\r\n' +
    'Connection: Keep-Alive\r\n\r\n';
  return rawExchange(k.base, head, body);
}

/** What the browser extension's XMLHttpRequest sends: its own form encoding (names as they are), in Firefox. */
function extensionRequest(k: TestKurz, options: ReadonlyArray<[string, string]>): Promise<RawAnswer> {
  const body = options.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
  const head =
    'POST /yourls-api.php HTTP/1.1\r\n' +
    `Host: ${new URL(k.base).host}\r\n` +
    'User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n' +
    'Accept: */*\r\n' +
    'Accept-Language: en-US,en;q=0.5\r\n' +
    'Accept-Encoding: gzip, deflate, br, zstd\r\n' +
    'Content-type: application/x-www-form-urlencoded;charset=UTF-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Origin: moz-extension://0b6e8f34-5a3c-4c1e-9a43-6f1d2a7c9e10\r\n' +
    'Connection: keep-alive\r\n' +
    'Sec-Fetch-Dest: empty\r\n' +
    'Sec-Fetch-Mode: cors\r\n' +
    'Sec-Fetch-Site: same-origin\r\n\r\n';
  return rawExchange(k.base, head, body);
}

/** A GET of the API with `params` in the query, as a script builds it. */
async function yourls(k: TestKurz, params: Record<string, string>, init: RequestInit = {}): Promise<Response> {
  return fetch(`${k.base}/yourls-api.php?${new URLSearchParams(params)}`, init);
}

/** The one link the test made, by its target. */
async function codeOf(k: TestKurz, url: string): Promise<string> {
  const [row] = await k.sql<{ code: string }>(`SELECT code FROM links WHERE url = '${url.replaceAll("'", "''")}'`);
  if (!row) throw new Error(`no link to ${url}`);
  return row.code;
}

test("ShareX's YOURLS shortener: its multipart request gets the bare short URL, and the same URL again the same link", async (t) => {
  const k = await startKurz(t);
  const url = 'https://example.com/screenshots/2026-01-15_12-00-00.png?size=1920x1080&dpr=1';
  const res = await shareXRequest(k, k.key, url);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  const code = await codeOf(k, url);
  t.is(res.body, `https://kurz.test/${code}`);
  t.is(res.headers.get('cache-control'), 'no-store', 'an answer for someone known is kept by no cache');

  // YOURLS answers a URL it has already with that link's short URL, under 400 error:url.
  const again = await shareXRequest(k, k.key, url);
  t.is(again.status, 400);
  t.is(again.body, `https://kurz.test/${code}`);
  t.is(await k.linkCount(), 1);
});

test("ShareX with a wrong signature gets YOURLS' 403 and its message, and nothing is stored", async (t) => {
  const k = await startKurz(t);
  const res = await shareXRequest(k, 'kurz_not-a-key', 'https://example.com/');
  t.is(res.status, 403);
  t.is(res.body, 'the API key is not valid: unknown or revoked');
  t.is(await k.linkCount(), 0);
});

test("the browser extension: a form-encoded shorturl with format=simple, and its version check that reads YOURLS' XML", async (t) => {
  const k = await startKurz(t);
  const url = 'https://developer.mozilla.org/en-US/docs/Web/API/XMLHttpRequest';
  const shortened = await extensionRequest(k, [
    ['action', 'shorturl'],
    ['format', 'simple'],
    ['url', url],
    ['signature', k.key],
  ]);
  t.is(shortened.status, 200);
  // The extension takes the one word of the answer: '^\s*(\S+)\s*$', multiline.
  const taken = /^\s*(\S+)\s*$/m.exec(shortened.body)?.[1];
  t.is(taken, `https://kurz.test/${await codeOf(k, url)}`);

  const version = await extensionRequest(k, [
    ['action', 'version'],
    ['signature', k.key],
  ]);
  t.is(version.status, 200);
  t.is(version.headers.get('content-type'), 'application/xml; charset=utf-8');
  t.is(version.body, '<?xml version="1.0" encoding="UTF-8"?>\n<root><version>1.10.4</version></root>\n');
  // The extension's own pattern for it, with the multiline flag it matches with (YOURLS 1.8 and later write
  // the XML declaration on a line of its own).
  t.is(new RegExp('^.*<version>(\\d+\\.\\d+.*)<\\/version>.*$', 'm').exec(version.body)?.[1], '1.10.4');

  const refused = await extensionRequest(k, [
    ['action', 'version'],
    ['signature', 'kurz_wrong'],
  ]);
  t.is(refused.status, 403, 'the status the extension explains as a wrong signature');
  t.is(
    refused.body,
    '<?xml version="1.0" encoding="UTF-8"?>\n<root><message>the API key is not valid: unknown or revoked</message><errorCode>403</errorCode><callback/></root>\n',
  );
});

test('a JSON client: shorturl with keyword and title, expand, url-stats, stats and db-stats, as YOURLS writes them', async (t) => {
  const k = await startKurz(t);
  const url = 'https://example.com/a/b?c=d&é=1';
  const created = await yourls(k, {
    signature: k.key,
    action: 'shorturl',
    url,
    keyword: 'guide',
    title: 'Exämple <guide>',
    format: 'json',
  });
  t.is(created.status, 200, await created.clone().text());
  t.is(created.headers.get('content-type'), 'application/json; charset=utf-8');
  const normalised = 'https://example.com/a/b?c=d&%C3%A9=1';
  t.is(
    await created.text(),
    '{"status":"success","code":"","message":"https:\\/\\/example.com\\/a\\/b?c=d&%C3%A9=1 added to database","errorCode":"",' +
      '"statusCode":"200","url":{"keyword":"guide","url":"https:\\/\\/example.com\\/a\\/b?c=d&%C3%A9=1","title":"Ex\\u00e4mple <guide>",' +
      '"date":"2026-01-15 12:00:00","ip":"127.0.0.1"},"title":"Ex\\u00e4mple <guide>","shorturl":"https:\\/\\/kurz.test\\/guide"}',
  );

  const expanded = await yourls(k, { signature: k.key, action: 'expand', shorturl: 'https://kurz.test/guide', format: 'json' });
  t.deepEqual(await expanded.json(), {
    keyword: 'guide',
    shorturl: 'https://kurz.test/guide',
    longurl: normalised,
    title: 'Exämple <guide>',
    message: 'success',
    statusCode: '200',
  });
  const bare = await yourls(k, { signature: k.key, action: 'expand', shorturl: 'guide', format: 'simple' });
  t.is(await bare.text(), normalised);

  await fetch(`${k.base}/guide`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0' } });
  await k.flushVisits();
  const stats = await yourls(k, { signature: k.key, action: 'url-stats', shorturl: 'guide', format: 'json' });
  t.deepEqual(await stats.json(), {
    statusCode: '200',
    message: 'success',
    link: {
      shorturl: 'https://kurz.test/guide',
      url: normalised,
      title: 'Exämple <guide>',
      timestamp: '2026-01-15 12:00:00',
      ip: '',
      clicks: '1',
    },
  });

  await yourls(k, { signature: k.key, action: 'shorturl', url: 'https://example.org/', format: 'json' });
  const top = await yourls(k, { signature: k.key, action: 'stats', filter: 'top', limit: '5', format: 'json' });
  const topJson = (await top.json()) as { links: Record<string, { shorturl: string; clicks: string }>; stats: unknown };
  t.deepEqual(Object.keys(topJson.links), ['link_1', 'link_2']);
  t.is(topJson.links['link_1']?.shorturl, 'https://kurz.test/guide', 'the most visited first');
  t.deepEqual(topJson.stats, { total_links: 2, total_clicks: 1 });
  const last = (await (
    await yourls(k, { signature: k.key, action: 'stats', filter: 'last', limit: '1', start: '0', format: 'json' })
  ).json()) as {
    links: Record<string, { url: string }>;
  };
  t.deepEqual(Object.keys(last.links), ['link_1']);
  const noLimit = await yourls(k, { signature: k.key, action: 'stats', format: 'json' });
  t.deepEqual(
    await noLimit.json(),
    { stats: { total_links: 2, total_clicks: 1 }, statusCode: '200', message: 'success' },
    'YOURLS lists no link without a limit',
  );

  const db = await yourls(k, { signature: k.key, action: 'db-stats', format: 'json' });
  t.is(await db.text(), '{"db-stats":{"total_links":2,"total_clicks":1},"statusCode":"200","message":"success"}');
  const simpleStats = await yourls(k, { signature: k.key, action: 'db-stats', format: 'simple' });
  t.is(await simpleStats.text(), 'Need either XML or JSON format for stats');
});

test("shorturl's refusals in YOURLS' words: no URL, a taken keyword, a URL already shortened, kurz's own reasons", async (t) => {
  const k = await startKurz(t);
  const json = async (params: Record<string, string>) => {
    const res = await yourls(k, { signature: k.key, action: 'shorturl', format: 'json', ...params });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  t.deepEqual(await json({}), {
    status: 400,
    body: { status: 'fail', code: 'error:nourl', message: 'Missing or malformed URL', errorCode: '400', statusCode: '400' },
  });
  const javascript = await json({ url: 'javascript:alert(1)' });
  t.is(javascript.status, 400);
  t.like(javascript.body, { status: 'fail', code: 'error:nourl', message: 'url must use http or https, not javascript' });
  const loop = await json({ url: 'https://kurz.test/abc' });
  t.like(loop.body, { code: 'error:noloop' });

  t.is((await json({ url: 'https://example.com/1', keyword: 'mine' })).status, 200);
  t.deepEqual(await json({ url: 'https://example.com/2', keyword: 'mine' }), {
    status: 400,
    body: {
      status: 'fail',
      code: 'error:keyword',
      message: 'Short URL mine already exists in database or is reserved',
      errorCode: '400',
      statusCode: '400',
    },
  });
  t.like((await json({ url: 'https://example.com/2', keyword: 'keys' })).body, {
    code: 'error:keyword',
    message: 'Short URL keys already exists in database or is reserved',
  });
  t.like((await json({ url: 'https://example.com/2', keyword: 'no spaces' })).body, { code: 'error:keyword' });

  const first = await json({ url: 'https://example.com/same' });
  const code = String((first.body['url'] as { keyword: string }).keyword);
  const again = await json({ url: 'https://example.com/same', title: 'A title changes nothing' });
  t.deepEqual(again, {
    status: 400,
    body: {
      status: 'fail',
      code: 'error:url',
      message: `https://example.com/same already exists in database (short URL: kurz.test/${code})`,
      errorCode: '400',
      statusCode: '400',
      url: { keyword: code, url: 'https://example.com/same', title: '', date: '2026-01-15 12:00:00', ip: '', clicks: '0' },
      title: '',
      shorturl: `https://kurz.test/${code}`,
    },
  });
  t.is(await k.linkCount(), 2);
});

test('XML is the default format; jsonp wraps in the callback and refuses an unsafe one; an unknown action is a 400', async (t) => {
  const k = await startKurz(t);
  const xml = await yourls(k, { signature: k.key, action: 'expand', shorturl: 'nothing' });
  t.is(xml.status, 404);
  t.is(
    await xml.text(),
    '<?xml version="1.0" encoding="UTF-8"?>\n<root><keyword>nothing</keyword><message>Error: short URL not found</message><errorCode>404</errorCode></root>\n',
  );
  const jsonp = await yourls(k, { signature: k.key, action: 'version', format: 'jsonp', callback: 'yourls.cb_1' });
  t.is(jsonp.headers.get('content-type'), 'application/javascript; charset=utf-8');
  t.is(await jsonp.text(), 'yourls.cb_1({"version":"1.10.4","callback":"yourls.cb_1"})');
  const unsafe = await yourls(k, { signature: k.key, action: 'version', format: 'jsonp', callback: 'alert(1)//' });
  t.is(unsafe.status, 400);
  t.is(await unsafe.text(), '{"errorCode":"400","error":"Invalid callback parameter"}');
  const db = await yourls(k, { signature: k.key, action: 'version', db: '1', format: 'json' });
  t.is(await db.text(), '{"version":"1.10.4","db_version":"507"}');
  const unknown = await yourls(k, { signature: k.key, action: 'delete', format: 'json' });
  t.is(unknown.status, 400);
  t.is(await unknown.text(), '{"errorCode":"400","message":"Unknown or missing \\"action\\" parameter"}');
  const escaped = await yourls(k, { signature: k.key, action: 'expand', shorturl: 'a<b>&c', format: 'xml' });
  t.regex(await escaped.text(), /<keyword>a&lt;b&gt;&amp;c<\/keyword>/);
});

test("credentials: a key's scopes apply, a member sees only their own links, and a session cookie alone is not enough", async (t) => {
  const k = await startKurz(t);
  const reader = (await k.kurz.services.access.createKey(1, 'reader', { scopes: ['links:read'] })).secret;
  const refused = await yourls(k, { signature: reader, action: 'shorturl', url: 'https://example.com/', format: 'json' });
  t.is(refused.status, 403);
  t.like(await refused.json(), {
    errorCode: '403',
    message: 'the API key lacks the scope links:write, which the action shorturl needs; make a key that has it',
  });
  t.is(await k.linkCount(), 0);
  t.is((await yourls(k, { signature: reader, action: 'stats', format: 'json' })).status, 403);

  await yourls(k, { signature: k.key, action: 'shorturl', url: 'https://example.com/admin', keyword: 'adm', format: 'json' });
  await member(k, 'mia');
  const mia = await yourls(k, { username: 'mia', password: MEMBER_PASSWORD, action: 'expand', shorturl: 'adm', format: 'json' });
  t.is(mia.status, 404, "a member does not see another's link");
  const own = await yourls(k, {
    username: 'mia',
    password: MEMBER_PASSWORD,
    action: 'shorturl',
    url: 'https://example.com/mia',
    format: 'json',
  });
  t.is(own.status, 200);
  const [row] = await k.sql<{ owner_id: number; created_via: string }>(
    "SELECT owner_id, created_via FROM links WHERE url = 'https://example.com/mia'",
  );
  t.is(row?.created_via, 'password');
  t.not(row?.owner_id, 1);

  const cookie = await k.login();
  const withCookie = await yourls(k, { action: 'version', format: 'json' }, { headers: { cookie } });
  t.is(withCookie.status, 403);
  t.is(await withCookie.text(), '{"message":"Please log in","errorCode":"403","callback":""}');
  const wrong = await yourls(k, { username: 'mia', password: 'wrong', action: 'version', format: 'simple' });
  t.is(wrong.status, 403);
  t.is(await wrong.text(), 'Invalid username or password');
  const header = await yourls(k, { action: 'version', format: 'simple' }, { headers: { 'x-api-key': k.key } });
  t.is(await header.text(), '1.10.4', 'a key in a header works as the JSON API takes it');
});

test("the timed signature: a hash of the timestamp and the key's YOURLS token, in either order, within 12 hours", async (t) => {
  const k = await startKurz(t);
  const { key } = await k.kurz.services.access.createKey(1, 'sharex', { scopes: ['links:write'] });
  const token = k.kurz.services.access.yourlsToken(key);
  const now = Math.floor(k.clock.now() / 1000);
  const sign = (algorithm: string, text: string) => createHash(algorithm).update(text).digest('hex');
  const version = async (params: Record<string, string>) => {
    const res = await yourls(k, { action: 'version', format: 'simple', ...params });
    return `${res.status} ${await res.text()}`;
  };
  t.is(await version({ timestamp: String(now), signature: sign('md5', `${now}${token}`) }), '200 1.10.4', 'md5, as YOURLS 1.10.4 signs');
  t.is(await version({ timestamp: String(now), signature: sign('md5', `${token}${now}`) }), '200 1.10.4', 'the other order');
  t.is(await version({ timestamp: String(now), signature: sign('sha256', `${now}${token}`) }), '200 1.10.4', 'sha256, by its length');
  t.is(await version({ timestamp: String(now), signature: sign('sha512', `${now}${token}`), hash: 'sha512' }), '200 1.10.4');
  const used = (await k.kurz.services.access.listKeys(1)).find((listed) => listed.name === 'sharex');
  t.is(used?.lastUsedFrom, '127.0.0.1', "a timed signature records the key's use, as the key itself does");
  const stale = now - 43_200;
  t.is(
    await version({ timestamp: String(stale), signature: sign('md5', `${stale}${token}`) }),
    '403 the timestamp is more than 12 hours from now: sign again with the current time',
  );
  t.is(await version({ timestamp: String(now), signature: sign('md5', `${now}x${token}`) }), '403 the signature matches no live API key');
  t.is(
    await version({ timestamp: String(now), signature: sign('sha1', `${now}${token}`), hash: 'sha1' }),
    "403 the signature's hash must be one of md5, sha256, sha384, sha512",
  );
  await k.kurz.services.access.revokeKey(1, 'sharex');
  t.is(
    await version({ timestamp: String(now), signature: sign('md5', `${now}${token}`) }),
    '403 the signature matches no live API key',
    'revoking the key voids its token',
  );
});

test('hostile input: a file part, a field twice, a body that is not a form, a huge limit: precise 4xx, nothing stored', async (t) => {
  const k = await startKurz(t);
  const form = new FormData();
  form.set('signature', k.key);
  form.set('action', 'shorturl');
  form.set('url', new Blob(['https://example.com/']), 'url.txt');
  const file = await fetch(`${k.base}/yourls-api.php`, { method: 'POST', body: form });
  // A file is not a parameter (PHP's $_REQUEST leaves files out too): the URL is missing, in YOURLS' words.
  t.is(file.status, 400);
  t.regex(await file.text(), /<code>error:nourl<\/code>/);
  const twice = await fetch(`${k.base}/yourls-api.php`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `signature=${k.key}&action=shorturl&url=https%3A%2F%2Fa.example%2F&url=https%3A%2F%2Fb.example%2F`,
  });
  t.is(twice.status, 400);
  const json = await fetch(`${k.base}/yourls-api.php`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  t.is(json.status, 415);
  const broken = await fetch(`${k.base}/yourls-api.php`, {
    method: 'POST',
    headers: { 'content-type': 'multipart/form-data; boundary=x' },
    body: '--y\r\nnonsense',
  });
  t.is(broken.status, 400);
  const big = new FormData();
  big.set('signature', k.key);
  big.set('url', `https://example.com/${'a'.repeat(70_000)}`);
  t.is((await fetch(`${k.base}/yourls-api.php`, { method: 'POST', body: big })).status, 413);
  const latin1 = Buffer.concat([
    Buffer.from('--b\r\nContent-Disposition: form-data; name="title"\r\n\r\n'),
    Buffer.from([0xe9]),
    Buffer.from('\r\n--b--\r\n'),
  ]);
  const notUtf8 = await fetch(`${k.base}/yourls-api.php`, {
    method: 'POST',
    headers: { 'content-type': 'multipart/form-data; boundary=b' },
    body: latin1,
  });
  t.is(notUtf8.status, 400);
  t.regex(await notUtf8.text(), /not valid UTF-8/);
  const gzipped = await fetch(`${k.base}/yourls-api.php`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
    body: 'action=version',
  });
  t.is(gzipped.status, 415);
  const huge = await yourls(k, { signature: k.key, action: 'stats', limit: '100000', format: 'json' });
  t.is(huge.status, 400);
  t.like(await huge.json(), { errorCode: '400', message: 'start + limit may be at most 1000, got 100000' });
  t.is(await k.linkCount(), 0);
});

test("the keys page shows a new key's YOURLS signature token once, and it signs for that key", async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const { html } = await b.follow(await b.submit('/keys', { name: 'sharex' }));
  const token = /<code class="secret" id="new-token-value">([0-9a-f]{32})<\/code>/.exec(html)?.[1] ?? '';
  t.truthy(token);
  t.regex(html, /https:\/\/kurz\.test\/yourls-api\.php/);
  const now = Math.floor(k.clock.now() / 1000);
  const signature = createHash('md5').update(`${now}${token}`).digest('hex');
  const res = await yourls(k, { timestamp: String(now), signature, action: 'shorturl', url: 'https://example.com/signed', format: 'json' });
  t.is(res.status, 200);
  const [row] = await k.sql<{ created_key: string }>("SELECT created_key FROM links WHERE url = 'https://example.com/signed'");
  t.is(row?.created_key, 'sharex', 'the link is recorded as made with that key');
  t.false((await b.page('/keys')).html.includes(token), 'the token is never shown again');
});

test("limits: creations past creationRateLimit are YOURLS' error:flood with Retry-After; wrong signatures and passwords are limited as at the door", async (t) => {
  const k = await startKurz(t, { creationRateLimit: 2, apiKeyRateLimit: 2, loginRateLimit: 2 });
  await k.login();
  for (const n of [1, 2])
    t.is((await yourls(k, { signature: k.key, action: 'shorturl', url: `https://example.com/${n}`, format: 'simple' })).status, 200);
  const flooded = await yourls(k, { signature: k.key, action: 'shorturl', url: 'https://example.com/3', format: 'json' });
  t.is(flooded.status, 429);
  t.is(flooded.headers.get('retry-after'), '60');
  t.like(await flooded.json(), { status: 'fail', code: 'error:flood', errorCode: '429', statusCode: '429' });
  t.is(await k.linkCount(), 2);

  for (const n of [1, 2]) t.is((await yourls(k, { signature: `kurz_wrong${n}`, action: 'version', format: 'simple' })).status, 403);
  const waiting = await yourls(k, { signature: k.key, action: 'version', format: 'simple' });
  t.is(waiting.status, 429, 'past the limit even a right key waits, as in a header');
  t.regex(await waiting.text(), /too many requests with a wrong API key from this address; try again in \d+ s/);

  for (const n of [1, 2])
    t.is((await yourls(k, { username: 'admin', password: `wrong ${n}`, action: 'version', format: 'simple' })).status, 403);
  const guessing = await yourls(k, { username: 'admin', password: ADMIN_PASSWORD, action: 'version', format: 'simple' });
  t.is(guessing.status, 429, 'the login limit holds for the API too');
  t.regex(await guessing.text(), /too many failed logins/);
});

test('stats: bottom, last with start, rand; parameters from the query and the body, the body winning as in PHP', async (t) => {
  const k = await startKurz(t);
  for (const n of [1, 2, 3]) {
    await yourls(k, { signature: k.key, action: 'shorturl', url: `https://example.com/${n}`, keyword: `k${n}`, format: 'simple' });
    k.clock.advance(1000);
  }
  for (let i = 0; i < 2; i++)
    await fetch(`${k.base}/k2`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0' } });
  await k.flushVisits();
  const list = async (params: Record<string, string>) => {
    const answer = (await (await yourls(k, { signature: k.key, action: 'stats', format: 'json', ...params })).json()) as {
      links?: Record<string, { shorturl: string }>;
    };
    return Object.values(answer.links ?? {}).map((link) => link.shorturl.slice('https://kurz.test/'.length));
  };
  t.deepEqual((await list({ filter: 'top', limit: '1' }))[0], 'k2');
  t.deepEqual((await list({ filter: 'bottom', limit: '3' })).at(-1), 'k2');
  t.deepEqual(await list({ filter: 'last', limit: '2', start: '1' }), ['k2', 'k1']);
  t.deepEqual((await list({ filter: 'rand', limit: '3' })).sort(), ['k1', 'k2', 'k3']);

  const posted = await fetch(`${k.base}/yourls-api.php?action=expand&format=xml&shorturl=k1`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `signature=${k.key}&format=simple&shorturl=k3`,
  });
  t.is(await posted.text(), 'https://example.com/3');
  const missing = await yourls(k, { signature: k.key, action: 'url-stats', shorturl: 'https://elsewhere.example/k1', format: 'json' });
  t.is(missing.status, 404);
  t.is(
    await missing.text(),
    '{"statusCode":"404","message":"Error: short URL not found"}',
    'a short URL on a host kurz does not serve is none of its links',
  );
  for (const shorturl of [
    'https://kurz.test/%E2',
    'https://kurz.test/k1/more',
    '../k1',
    'k1\u0000',
    'http://[::1',
    'https://kurz.test/k1?x=1',
  ]) {
    const res = await yourls(k, { signature: k.key, action: 'expand', shorturl, format: 'json' });
    t.is(res.status, shorturl.endsWith('?x=1') ? 200 : 404, shorturl);
  }
});

test("a link is made on the domain the request was sent to, when it is one of kurz's", async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/domains', { host: 's2.kurz.test' })).status, 201);
  const res = await shareXRequest(k, k.key, 'https://example.com/on-s2', 's2.kurz.test');
  t.is(res.status, 200);
  t.regex(res.body, /^https:\/\/s2\.kurz\.test\/\w+$/);
  const elsewhere = await shareXRequest(k, k.key, 'https://example.com/on-default', 'unknown.example');
  t.regex(elsewhere.body, /^https:\/\/kurz\.test\/\w+$/, 'a Host kurz does not serve makes it on the default domain');
});

test("the keys page's ShareX uploader, run as ShareX runs a custom URL shortener: its arguments as a multipart form, the answer as the URL", async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  const { html } = await b.follow(await b.submit('/keys', { name: 'sharex' }));
  const data = /href="data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)"/.exec(html)?.[1] ?? '';
  const uploader = JSON.parse(Buffer.from(data, 'base64').toString()) as {
    Version: string;
    DestinationType: string;
    RequestMethod: string;
    RequestURL: string;
    Body: string;
    Arguments: Record<string, string>;
    URL: string;
  };
  t.true(Number(uploader.Version.split('.')[0]) >= 13, 'the syntax of ShareX 13 and later: {input}, {response}');
  t.deepEqual(
    [uploader.DestinationType, uploader.RequestMethod, uploader.Body, uploader.URL],
    ['URLShortener', 'POST', 'MultipartFormData', '{response}'],
  );
  const url = 'https://example.com/from-sharex?x=1';
  const args = Object.entries(uploader.Arguments).map(([name, value]): [string, string] => [name, value.replaceAll('{input}', url)]);
  const boundary = '--------------------8de2c5a3f1b7e40';
  const body = shareXBody(boundary, args);
  const path = new URL(uploader.RequestURL).pathname;
  const head =
    `POST ${path} HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nUser-Agent: ShareX/17.1.0\r\n` +
    `Host: ${new URL(k.base).host}\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: Keep-Alive\r\n\r\n`;
  const res = await rawExchange(k.base, head, body);
  t.is(res.status, 200);
  t.is(res.body, `https://kurz.test/${await codeOf(k, url)}`, '{response}: the short URL');
});

test("the kurl extension's JSON calls: its connection check, shorten with keyword and title, a URL again, url-stats, and its delete YOURLS lacks too", async (t) => {
  const k = await startKurz(t);
  // kurl's yourlsFetch: a POST of URLSearchParams, asking for JSON.
  const kurl = async (payload: Record<string, string>) => {
    const res = await fetch(`${k.base}/yourls-api.php`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8', Accept: 'application/json' },
      body: new URLSearchParams(payload),
    });
    const text = await res.text();
    return { ok: res.ok, status: res.status, json: JSON.parse(text) as Record<string, unknown> & { stats?: { total_links: number } } };
  };
  const check = await kurl({ action: 'stats', format: 'json', signature: k.key });
  t.true(check.ok);
  t.is(check.json.stats?.total_links, 0, 'what kurl shows as connected');

  const url = 'https://example.com/kurl';
  const shortened = await kurl({ action: 'shorturl', format: 'json', signature: k.key, url, keyword: 'kurl-1', title: 'From kurl' });
  t.true(shortened.ok);
  t.is(shortened.json['shorturl'], 'https://kurz.test/kurl-1');
  const plain = await kurl({ action: 'shorturl', format: 'json', signature: k.key, url: 'https://example.com/plain' });
  const again = await kurl({ action: 'shorturl', format: 'json', signature: k.key, url: 'https://example.com/plain' });
  t.regex(String(again.json['message']), /already exists/i, 'kurl tells a URL it has by the message');
  t.is(again.json['shorturl'], plain.json['shorturl'], '…and takes the short URL from the field');

  const stats = await kurl({ action: 'url-stats', format: 'json', signature: k.key, shorturl: 'kurl-1' });
  t.like(stats.json, { link: { shorturl: 'https://kurz.test/kurl-1', url, clicks: '0' } });
  const deleted = await kurl({ action: 'delete', format: 'json', signature: k.key, shorturl: 'kurl-1' });
  t.false(deleted.ok, 'delete is a plugin of YOURLS, not its API: refused, nothing deleted');
  t.deepEqual(deleted.json, { errorCode: '400', message: 'Unknown or missing "action" parameter' });
  t.is(await k.linkCount(), 2);
});
