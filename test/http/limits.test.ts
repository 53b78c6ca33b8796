import { once } from 'node:events';
import { connect } from 'node:net';
import test from 'ava';
import { BROWSER_ACCEPT, startKurz, type TestKurz } from '../helpers.ts';
import { browser } from './ui-session.ts';

interface Problem {
  status: number;
  code: string;
  detail: string;
}

/**
 * Writes `text` on a fresh connection to kurz and leaves it there (no more bytes, the connection open);
 * resolves with everything kurz sent once it closes the connection.
 */
async function sendAndWait(k: TestKurz, text: string): Promise<string> {
  const { port } = new URL(k.base);
  const socket = connect(Number(port), '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  socket.write(text);
  await once(socket, 'close');
  return received;
}

/** The JSON body of a raw HTTP response. */
function bodyOf(response: string): Problem {
  return JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as Problem;
}

test('a JSON body over 64 KiB is a 413 naming the limit; a batch may be up to 2 MiB; nothing over it is stored', async (t) => {
  const k = await startKurz(t);
  const single = await k.postJson('/api/v1/links', { url: 'https://example.com/', title: 'x'.repeat(65 * 1024) });
  t.is(single.status, 413);
  t.like((await single.json()) as Problem, { code: 'too_large', detail: 'request body is larger than 64 KiB' });

  // 1000 links of about 300 bytes each: far over 64 KiB, within the batch's 2 MiB.
  const links = Array.from({ length: 1000 }, (_, i) => ({ url: `https://example.com/${i}?${'q'.repeat(280)}` }));
  t.true(JSON.stringify({ links }).length > 256 * 1024);
  const batch = await k.postJson('/api/v1/links/batch', { links });
  t.is(batch.status, 200);
  t.is(((await batch.json()) as { created: number }).created, 1000);

  const huge = Array.from({ length: 300 }, (_, i) => ({ url: `https://example.com/huge/${i}?${'q'.repeat(7500)}` }));
  const tooLarge = await k.postJson('/api/v1/links/batch', { links: huge });
  t.is(tooLarge.status, 413);
  t.like((await tooLarge.json()) as Problem, { code: 'too_large', detail: 'request body is larger than 2 MiB' });
  t.is(await k.linkCount(), 1000);
});

test('a body announced larger than the limit is refused at once, without waiting for it', async (t) => {
  const k = await startKurz(t);
  const response = await sendAndWait(
    k,
    `POST /api/v1/links HTTP/1.1\r\nHost: kurz.test\r\nAuthorization: Bearer ${k.key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${100 * 1024 * 1024}\r\nConnection: close\r\n\r\n{"url":`,
  );
  t.regex(response, /^HTTP\/1\.1 413 /);
  t.is(bodyOf(response).detail, 'request body is larger than 64 KiB');
  t.is(await k.linkCount(), 0);
});

test('forms over their limit are a 413 page: 64 KiB for a form, 2 MiB for the bulk form; nothing is stored', async (t) => {
  const k = await startKurz(t, { anonymousShortening: true });
  const b = await browser(k);
  const form = await b.submit('/', { url: 'https://example.com/', note: 'n'.repeat(65 * 1024) });
  t.is(form.status, 413);
  t.regex(form.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(await form.text(), /Request body is larger than 64 KiB/);

  const login = await fetch(`${k.base}/login`, {
    method: 'POST',
    headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ user: 'admin', password: 'p'.repeat(65 * 1024) }),
  });
  t.is(login.status, 413);

  const unlock = await fetch(`${k.base}/links/anything/unlock`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password: 'p'.repeat(65 * 1024) }),
  });
  t.is(unlock.status, 413);
  t.is(((await unlock.json()) as Problem).detail, 'request body is larger than 64 KiB');

  const lines = Array.from({ length: 1000 }, (_, i) => `https://example.com/${i}?${'q'.repeat(200)}`).join('\n');
  const bulk = await b.submit('/import', { urls: lines });
  t.is(bulk.status, 200, 'a bulk form of 200 KiB is within its limit');
  t.regex(await bulk.text(), /1000 created/);
  const tooLarge = await b.submit('/import', { urls: `${lines}\n${'x'.repeat(2 * 1024 * 1024)}` });
  t.is(tooLarge.status, 413);
  t.regex(await tooLarge.text(), /Request body is larger than 2 MiB/);
  t.is(await k.linkCount(), 1000);
});

test('a request URL over 8 KiB is a 414, for a redirect and the API alike', async (t) => {
  const k = await startKurz(t);
  const long = `/${'a'.repeat(8192)}`;
  const redirect = await fetch(k.base + long, { redirect: 'manual' });
  t.is(redirect.status, 414);
  t.like((await redirect.json()) as Problem, { status: 414, detail: 'the request URL is longer than 8192 characters' });
  const api = await k.get(`/api/v1/links?q=${'a'.repeat(8192)}`);
  t.is(api.status, 414);
  const page = await fetch(k.base + long, { headers: { accept: BROWSER_ACCEPT } });
  t.is(page.status, 414);
  t.regex(await page.text(), /The request URL is longer than 8192 characters/);
  t.is((await fetch(k.base + long.slice(0, 8192), { redirect: 'manual' })).status, 404, 'at the limit it is served');
});

test('headers over maxHeaderSize are a 431 naming the limit, and the server goes on serving', async (t) => {
  const k = await startKurz(t, { maxHeaderSize: 4096 });
  const response = await sendAndWait(k, `GET /x HTTP/1.1\r\nHost: kurz.test\r\nX-Big: ${'b'.repeat(5000)}\r\n\r\n`);
  t.regex(response, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  t.like(bodyOf(response), { status: 431, detail: 'the request line and headers are larger than 4096 bytes' });
  const url = await sendAndWait(k, `GET /${'u'.repeat(5000)} HTTP/1.1\r\nHost: kurz.test\r\n\r\n`);
  t.regex(url, /^HTTP\/1\.1 431 /, 'the request line counts too');
  t.is((await fetch(`${k.base}/healthz`)).status, 200);
});

test('a client too slow with its headers or its body gets 408 and is disconnected', async (t) => {
  const k = await startKurz(t, { headersTimeout: '1s', requestTimeout: '2s' });
  const headers = await sendAndWait(k, 'GET /x HTTP/1.1\r\nHost: kurz.te');
  t.regex(headers, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  t.is(bodyOf(headers).detail, 'the request took too long to arrive: its headers must come within 1 s, all of it within 2 s');
  const body = await sendAndWait(
    k,
    `POST /api/v1/links HTTP/1.1\r\nHost: kurz.test\r\nAuthorization: Bearer ${k.key}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 100\r\n\r\n{"url":',
  );
  t.regex(body, /^HTTP\/1\.1 408 /);
  t.is(await k.linkCount(), 0);
  t.false(
    k.log.lines.some((l) => l.includes('request failed')),
    'nothing logged as a failure of kurz',
  );
});

test('malformed HTTP is a 400 saying so', async (t) => {
  const k = await startKurz(t);
  const response = await sendAndWait(k, 'GET /x HTTP/1.1\r\nHost kurz.test\r\n\r\n');
  t.regex(response, /^HTTP\/1\.1 400 Bad Request\r\n/);
  t.is(bodyOf(response).detail, 'the request is not valid HTTP/1.1');
});
