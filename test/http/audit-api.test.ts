import test from 'ava';
import type { Actor } from '../../src/auth/actor.ts';
import { startKurz, type TestKurz } from '../helpers.ts';

// GET /api/v1/audit (admin) and GET /api/v1/links/CODE/audit: entries seeded through services.audit.record,
// read back through the API: filters, pages, scopes and bad queries.

interface Entry {
  id: number;
  at: string;
  actorName: string;
  via: string;
  keyName: string | null;
  action: string;
  subject: { kind: string; id: number; label: string };
  details: Record<string, unknown>;
}
interface Page {
  entries: Entry[];
  nextCursor: string | null;
}

const MINUTE = 60_000;
const ADMIN: Actor = { userId: 1, name: 'admin', role: 'admin', via: { kind: 'session' }, client: '203.0.113.5' };
const ANA: Actor = { userId: 2, name: 'ana', role: 'member', via: { kind: 'key', key: 'deploy' }, client: '198.51.100.7' };

/** Kurz with links a (the admin's) and b (ana's, on s2.kurz.test too), each creation recorded as it is made, after the domain and the user were added; then three more entries; a minute apart. */
async function seeded(t: Parameters<typeof startKurz>[0]): Promise<TestKurz & { ids: Record<string, number> }> {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/domains', { host: 's2.kurz.test' })).status, 201);
  t.is((await k.postJson('/api/v1/users', { name: 'ana' })).status, 201);
  const ids: Record<string, number> = {};
  for (const [actor, alias, domain] of [
    [ADMIN, 'a'],
    [ANA, 'b'],
    [ANA, 'b', 's2.kurz.test'],
  ] as const) {
    k.clock.advance(MINUTE);
    const { link } = await k.kurz.services.creation.createLink(actor, { url: `https://example.com/${alias}`, alias, domain });
    ids[domain ? `${alias}@s2` : alias] = link.id;
  }
  const { audit } = k.kurz.services;
  const record = async (...args: Parameters<typeof audit.record>) => {
    k.clock.advance(MINUTE);
    await audit.record(...args);
  };
  await record(ANA, 'link.edit', { kind: 'link', id: ids['b']!, label: 'kurz.test/b' }, { url: 'https://example.com/bb' });
  await record(ADMIN, 'key.revoke', { kind: 'key', id: 9, label: 'deploy' });
  await record(ADMIN, 'link.delete', { kind: 'link', id: ids['a']!, label: 'kurz.test/a' });
  return Object.assign(k, { ids });
}

const page = async (k: TestKurz, path: string): Promise<Page> => {
  const res = await k.get(path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Page;
};
const summary = (p: Page) => p.entries.map((e) => `${e.actorName} ${e.action} ${e.subject.label}`);

test('GET /api/v1/audit: every entry newest first; filters by user, action, kind, link and domain, time', async (t) => {
  const k = await seeded(t);
  const all = await page(k, '/api/v1/audit');
  t.deepEqual(summary(all), [
    'admin link.delete kurz.test/a',
    'admin key.revoke deploy',
    'ana link.edit kurz.test/b',
    'ana link.create s2.kurz.test/b',
    'ana link.create kurz.test/b',
    'admin link.create kurz.test/a',
    'admin user.create ana',
    // Adding the domain records itself.
    'admin domain.add s2.kurz.test',
  ]);
  t.is(all.nextCursor, null);
  t.like(all.entries[2], { via: 'key', keyName: 'deploy', details: { url: 'https://example.com/bb' } });
  t.regex(all.entries[0]!.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  t.deepEqual(summary(await page(k, '/api/v1/audit?user=ana&action=link.create')), [
    'ana link.create s2.kurz.test/b',
    'ana link.create kurz.test/b',
  ]);
  t.deepEqual(summary(await page(k, '/api/v1/audit?user=2&action=link.edit')), ['ana link.edit kurz.test/b']);
  t.deepEqual(summary(await page(k, '/api/v1/audit?action=key')), ['admin key.revoke deploy']);
  t.deepEqual(summary(await page(k, '/api/v1/audit?link=b')), ['ana link.edit kurz.test/b', 'ana link.create kurz.test/b']);
  t.deepEqual(summary(await page(k, '/api/v1/audit?link=b&domain=s2.kurz.test')), ['ana link.create s2.kurz.test/b']);
  const third = all.entries[3]!.at;
  t.deepEqual(summary(await page(k, `/api/v1/audit?from=${encodeURIComponent(third)}&to=${encodeURIComponent(all.entries[1]!.at)}`)), [
    'ana link.edit kurz.test/b',
    'ana link.create s2.kurz.test/b',
  ]);
});

test('GET /api/v1/audit pages with limit and cursor, none twice', async (t) => {
  const k = await seeded(t);
  const seen: string[] = [];
  let path = '/api/v1/audit?limit=4';
  for (;;) {
    const p = await page(k, path);
    seen.push(...p.entries.map((e) => String(e.id)));
    if (p.nextCursor === null) break;
    path = `/api/v1/audit?limit=4&cursor=${encodeURIComponent(p.nextCursor)}`;
  }
  t.is(seen.length, 8, 'the six, the user ana and the domain s2.kurz.test');
  t.is(new Set(seen).size, 8);
});

test('GET /api/v1/links/CODE/audit: that link’s entries, on its domain', async (t) => {
  const k = await seeded(t);
  t.deepEqual(summary(await page(k, '/api/v1/links/b/audit')), ['ana link.edit kurz.test/b', 'ana link.create kurz.test/b']);
  t.deepEqual(summary(await page(k, '/api/v1/links/b/audit?domain=s2.kurz.test')), ['ana link.create s2.kurz.test/b']);
  t.deepEqual(summary(await page(k, '/api/v1/links/a/audit?limit=1')).length, 1);
  t.is((await k.get('/api/v1/links/nope/audit')).status, 404);
});

test('scopes: the audit trail needs admin; a link’s needs links:read', async (t) => {
  const k = await seeded(t);
  const reader = (await k.kurz.services.access.createKey(1, 'reader', { scopes: ['links:read'] })).secret;
  const as = (path: string) => k.get(path, { authorization: `Bearer ${reader}` });
  t.is((await as('/api/v1/audit')).status, 403);
  t.is((await as('/api/v1/links/b/audit')).status, 200);
  t.is((await fetch(`${k.base}/api/v1/audit`)).status, 401);
});

test('bad queries: 400 naming the parameter, never a 500', async (t) => {
  const k = await seeded(t);
  const cases: Array<[string, string]> = [
    ['action=link.frobnicate', 'action'],
    ['action=links', 'action'],
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['cursor=zzz', 'cursor'],
    ['from=yesterday', 'from'],
    ['to=2026-13-40', 'to'],
    ['from=2026-02-01&to=2026-01-01', 'from'],
    ['link=b&domain=nowhere.example', 'domain'],
  ];
  for (const [query, field] of cases) {
    const res = await k.get(`/api/v1/audit?${query}`);
    t.is(res.status, 400, query);
    t.is(((await res.json()) as { field?: string }).field, field, query);
  }
  t.is((await k.get('/api/v1/audit?link=nope')).status, 404);
  t.is((await k.get('/api/v1/links/b/audit?limit=9999')).status, 400);
});
