import test from 'ava';
import { BASE62_ALPHABET } from '../../src/codes/base62.ts';
import { BROWSER_UA, startKurz, type TestKurz } from '../helpers.ts';

// `codeLength` on POST /api/v1/links (Shlink's shortCodeLength): a generated code of exactly that length,
// held to the rules of every generated code.

interface Created {
  status: number;
  code: string;
  field?: string;
}

async function create(k: TestKurz, body: Record<string, unknown>): Promise<Created> {
  const res = await k.postJson('/api/v1/links', body);
  const json = (await res.json()) as { code: string; field?: string };
  return { status: res.status, code: json.code, field: json.field };
}

test('a link asked for a code length gets a generated code of exactly that length, which redirects', async (t) => {
  const k = await startKurz(t);
  const codes: string[] = [];
  for (const codeLength of [4, 5, 6, 12, 64]) {
    const made = await create(k, { url: `https://example.com/${codeLength}`, codeLength });
    t.is(made.status, 201);
    t.regex(made.code, new RegExp(`^[0-9a-zA-Z]{${codeLength}}$`), `codeLength ${codeLength}`);
    const res = await fetch(`${k.base}/${made.code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
    t.is(res.status, 302);
    t.is(res.headers.get('location'), `https://example.com/${codeLength}`);
    codes.push(made.code);
  }
  const own = (await (await k.get(`/api/v1/links/${codes[0]}`)).json()) as { isAlias: boolean };
  t.false(own.isAlias, 'a generated code, not an alias');
});

test('a code length asked for is never answered with an earlier link of the same URL', async (t) => {
  const k = await startKurz(t);
  const bare = await create(k, { url: 'https://example.com/same' });
  t.is(bare.code.length, 6);
  const short = await create(k, { url: 'https://example.com/same', codeLength: 4 });
  t.is(short.status, 201, 'the earlier 6-character link is not what was asked for');
  t.is(short.code.length, 4);
  const again = await create(k, { url: 'https://example.com/same', codeLength: 4 });
  t.is(again.status, 201);
  t.not(again.code, short.code);
  const bareAgain = await create(k, { url: 'https://example.com/same' });
  t.is(bareAgain.status, 200, 'a bare URL is still deduplicated to the bare link');
  t.is(bareAgain.code, bare.code);
  t.is(await k.linkCount(), 3);
});

test('a code length outside 4 to 64, not a whole number, or beside an alias is a 400 naming codeLength and stores nothing', async (t) => {
  const k = await startKurz(t);
  for (const codeLength of [3, 0, -4, 65, 4.5, '6', true]) {
    const made = await create(k, { url: 'https://example.com/x', codeLength });
    t.is(made.status, 400, JSON.stringify(codeLength));
    t.is(made.field, 'codeLength', JSON.stringify(codeLength));
  }
  const both = await create(k, { url: 'https://example.com/x', codeLength: 5, alias: 'mine' });
  t.is(both.status, 400);
  t.is(both.field, 'codeLength');
  t.is(await k.linkCount(), 0);
});

// The test's randomness fills each draw with one byte, so every random code is one character repeated
// ("aaaa"): taking all but one of those 62 codes leaves the creation one free code to find by trying again.
test("a random code never takes a code in use on any domain or a deleted link's, and a full length is a 409 naming codeLength", async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/domains', { host: 'short.test' })).status, 201);
  const repeated = [...BASE62_ALPHABET].map((c) => c.repeat(4));
  const free = 'Q'.repeat(4);
  const links = repeated
    .filter((code) => code !== free)
    .map((code, i) => ({ url: `https://example.com/taken/${code}`, alias: code, ...(i % 2 === 0 ? { domain: 'short.test' } : {}) }));
  const batch = (await (await k.postJson('/api/v1/links/batch', { links })).json()) as { created: number };
  t.is(batch.created, 61);
  t.is((await k.request('DELETE', '/api/v1/links/1111')).status, 204, 'a retired code stays taken');

  const found = await create(k, { url: 'https://example.com/last', codeLength: 4 });
  t.is(found.status, 201);
  t.is(found.code, free, 'the one free code, after the taken ones were drawn and refused');

  const full = await k.postJson('/api/v1/links', { url: 'https://example.com/none', codeLength: 4 });
  t.is(full.status, 409);
  t.like(await full.json(), { field: 'codeLength' });
  t.is(await k.linkCount(), 62, 'the 61 aliases and the link of the free code');
  const gone = await fetch(`${k.base}/1111`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  t.is(gone.status, 410, 'the deleted link still answers for its code');
});

test('a batch takes codeLength per entry: a bad one fails alone', async (t) => {
  const k = await startKurz(t);
  const res = await k.postJson('/api/v1/links/batch', {
    links: [
      { url: 'https://example.com/b1', codeLength: 5 },
      { url: 'https://example.com/b2', codeLength: 3 },
      { url: 'https://example.com/b3', codeLength: 20 },
    ],
  });
  t.is(res.status, 200);
  const body = (await res.json()) as {
    created: number;
    failed: number;
    results: Array<{ status: string; link?: { code: string }; error?: { field: string } }>;
  };
  t.like(body, { created: 2, failed: 1 });
  t.is(body.results[0]?.link?.code.length, 5);
  t.is(body.results[1]?.error?.field, 'codeLength');
  t.is(body.results[2]?.link?.code.length, 20);
});
