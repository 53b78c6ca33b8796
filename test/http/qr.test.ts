import test from 'ava';
import jsqr from 'jsqr';
import { PNG } from 'pngjs';
import { startKurz, type TestKurz } from '../helpers.ts';

// jsqr's types declare an ES default export, but Node hands an ES module its module.exports: the function itself.
const jsQR = jsqr as unknown as typeof jsqr.default;

interface Problem {
  status: number;
  code: string;
  field?: string;
}

async function createLink(k: TestKurz, body: Record<string, unknown> = { url: 'https://example.com/qr' }) {
  const res = await k.postJson('/api/v1/links', body);
  if (res.status !== 201) throw new Error(`could not create a link: ${res.status} ${await res.text()}`);
  return (await res.json()) as { code: string; shortUrl: string };
}

async function png(res: Response): Promise<PNG> {
  return PNG.sync.read(Buffer.from(await res.arrayBuffer()));
}

test('the PNG QR code decodes to the short URL', async (t) => {
  const k = await startKurz(t);
  const link = await createLink(k);
  const res = await k.get(`/api/v1/links/${link.code}/qr?format=png`);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'image/png');
  t.is(res.headers.get('content-disposition'), `inline; filename="kurz-${link.code}.png"`);
  t.is(res.headers.get('cache-control'), 'no-store', 'an answer for a key is kept by no cache');
  const image = await png(res);
  t.is(image.width, 256);
  t.is(image.height, 256);
  const decoded = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
  t.is(decoded?.data, link.shortUrl);
});

test('a long alias still decodes, at the smallest size too', async (t) => {
  const k = await startKurz(t);
  const link = await createLink(k, { url: 'https://example.com/long', alias: 'a-rather-long-alias_for_a-qr-code-test' });
  for (const size of [64, 2048]) {
    const image = await png(await k.get(`/api/v1/links/${link.code}/qr?format=png&size=${size}`));
    t.is(image.width, size);
    t.is(jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data, link.shortUrl, `size ${size}`);
  }
});

test('size sets the PNG width in pixels', async (t) => {
  const k = await startKurz(t);
  const { code } = await createLink(k);
  for (const size of [64, 255, 333, 1000]) {
    const image = await png(await k.get(`/api/v1/links/${code}/qr?format=png&size=${size}`));
    t.deepEqual([image.width, image.height], [size, size]);
  }
});

test('the default is an SVG, whose width and height size sets', async (t) => {
  const k = await startKurz(t);
  const { code } = await createLink(k);
  const res = await k.get(`/api/v1/links/${code}/qr`);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'image/svg+xml');
  t.is(res.headers.get('content-disposition'), `inline; filename="kurz-${code}.svg"`);
  const svg = await res.text();
  t.true(svg.startsWith('<svg'));
  t.regex(svg, /width="256" height="256"/);
  const sized = await (await k.get(`/api/v1/links/${code}/qr?format=svg&size=512`)).text();
  t.regex(sized, /width="512" height="512"/);
});

test('the QR code needs an API key or a session', async (t) => {
  const k = await startKurz(t);
  const { code } = await createLink(k);
  const res = await fetch(`${k.base}/api/v1/links/${code}/qr`);
  t.is(res.status, 401);
  t.is(((await res.json()) as Problem).code, 'unauthorized');
  const cookie = await k.login();
  const withSession = await fetch(`${k.base}/api/v1/links/${code}/qr`, { headers: { cookie } });
  t.is(withSession.status, 200);
});

test('an unknown code is a 404 and a deleted link a 410', async (t) => {
  const k = await startKurz(t);
  const missing = await k.get('/api/v1/links/nope42/qr');
  t.is(missing.status, 404);
  t.is(((await missing.json()) as Problem).code, 'not_found');
  const { code } = await createLink(k);
  t.is((await k.request('DELETE', `/api/v1/links/${code}`)).status, 204);
  const gone = await k.get(`/api/v1/links/${code}/qr?format=png`);
  t.is(gone.status, 410);
  t.is(((await gone.json()) as Problem).code, 'gone');
});

test('a bad format or size is a 400 naming the parameter', async (t) => {
  const k = await startKurz(t);
  const { code } = await createLink(k);
  const cases: [string, string][] = [
    ['format=gif', 'format'],
    ['format=', 'format'],
    ['format=svg&format=png', 'format'],
    ['size=63', 'size'],
    ['size=2049', 'size'],
    ['size=12.5', 'size'],
    ['size=-100', 'size'],
    ['size=1e3', 'size'],
    ['size=big', 'size'],
    ['size=', 'size'],
  ];
  for (const [query, field] of cases) {
    const res = await k.get(`/api/v1/links/${code}/qr?${query}`);
    t.is(res.status, 400, query);
    const problem = (await res.json()) as Problem;
    t.is(problem.code, 'invalid', query);
    t.is(problem.field, field, query);
  }
});
