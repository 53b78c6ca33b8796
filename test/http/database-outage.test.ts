import test from 'ava';
import { backend, freshDatabase, startKurz, waitFor } from '../helpers.ts';
import { proxyTo } from '../support/tcp-proxy.ts';

// The connection to a database server can drop; SQLite is a file in the same process.
const outageTest = backend === 'postgres' ? test : test.skip;

outageTest(
  'while PostgreSQL is unreachable: cached redirects go on, creations get a 503, /healthz says so; then it recovers',
  async (t) => {
    const database = await freshDatabase(t);
    const direct = new URL((database.settings as { databaseUrl: string }).databaseUrl);
    const proxy = await proxyTo(t, direct);
    const url = new URL(direct);
    url.host = `127.0.0.1:${proxy.port}`;
    const k = await startKurz(t, { databaseUrl: url.href });
    const created = await k.postJson('/api/v1/links', { url: 'https://example.com/cached' });
    const { code } = (await created.json()) as { code: string };
    const uncached = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/uncached' })).json()) as { code: string };
    for (let i = 0; i < 2; i++) t.is((await k.get(`/${code}`)).status, 302, 'the code is then in the cache');

    await proxy.stop();
    t.is((await k.get(`/${code}`)).headers.get('location'), 'https://example.com/cached', 'served from the cache');
    const unknown = await k.get(`/${uncached.code}`, { accept: 'application/json' });
    t.is(unknown.status, 503, 'a code not in the cache cannot be looked up');
    t.like(await unknown.json(), { code: 'unavailable' });
    const refused = await k.postJson('/api/v1/links', { url: 'https://example.com/during' });
    t.is(refused.status, 503);
    t.like(await refused.json(), { code: 'unavailable', detail: 'the database is unreachable; try again in a moment' });
    const health = await k.get('/healthz');
    t.is(health.status, 503);
    t.deepEqual(await health.json(), { status: 'unhealthy', database: 'postgres', problem: 'database unreachable' });
    t.true(k.log.lines.some((l) => l.includes('the database is unreachable; retrying')));

    await proxy.start();
    await waitFor(async () => (await k.get('/healthz')).status === 200);
    t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/after' })).status, 201);
    // The monitor, pinging with backoff, notices and says so.
    await waitFor(() => k.log.lines.some((l) => l.includes('the database is reachable again')), 15_000);
  },
);
