import test from 'ava';
import { BROWSER_ACCEPT, getWithHost, runCli, startKurz, waitFor, type TestKurz } from '../helpers.ts';
import { SERVER_ADMIN } from '../../src/auth/actor.ts';

// The redirect reads Host: each domain has its own code space, an unknown host is the default domain's or
// refused (unknownHosts), and each domain may send unknown codes and `/` elsewhere.

/** A GET of `path` with exactly this Host header. */
const hit = (k: TestKurz, host: string, path: string, accept?: string) => getWithHost(k.base, host, path, accept);

/** Kurz with two more domains, s2.kurz.test and s3.kurz.test, and the alias `go` on the default domain and s2. */
async function withDomains(t: Parameters<typeof startKurz>[0], settings: Record<string, unknown> = {}) {
  const k = await startKurz(t, settings);
  const { domains, creation } = k.kurz.services;
  await domains.addDomain(SERVER_ADMIN, 's2.kurz.test', { notFoundRedirect: 'https://example.com/lost-on-s2' });
  await domains.addDomain(SERVER_ADMIN, 's3.kurz.test', {});
  await creation.createLink(SERVER_ADMIN, { url: 'https://example.com/default-go', alias: 'go' });
  await creation.createLink(SERVER_ADMIN, { url: 'https://example.com/s2-go', alias: 'go', domain: 's2.kurz.test' });
  return k;
}

test('the same alias on two domains leads each Host to its own target', async (t) => {
  const k = await withDomains(t);
  for (let i = 0; i < 3; i++) {
    // Three rounds: the first lookups, then the cache (a link kept from its first lookup, an unknown address from its second).
    t.is((await hit(k, 'kurz.test', '/go')).location, 'https://example.com/default-go');
    t.is((await hit(k, 's2.kurz.test', '/go')).location, 'https://example.com/s2-go');
    t.is((await hit(k, 's3.kurz.test', '/go')).status, 404, 'a code on other domains is unknown on s3');
  }
});

test('a code on one domain is unknown on another, whatever the cache holds', async (t) => {
  const k = await withDomains(t);
  const { link } = await k.kurz.services.creation.createLink(SERVER_ADMIN, { url: 'https://example.com/only-s3', domain: 's3.kurz.test' });
  for (let i = 0; i < 3; i++) t.is((await hit(k, 's3.kurz.test', `/${link.code}`)).location, 'https://example.com/only-s3');
  t.is((await hit(k, 'kurz.test', `/${link.code}`)).status, 404);
  t.is((await hit(k, 'kurz.test', `/${link.code}`, BROWSER_ACCEPT)).status, 404);
  const lost = await hit(k, 's2.kurz.test', `/${link.code}`);
  t.is(lost.status, 302, 's2 sends unknown codes to its not-found redirect');
  t.is(lost.location, 'https://example.com/lost-on-s2');
  t.is(lost.cache, 'no-store', 'a link made later takes the code: never cached');
});

test('the Host is read as a host: any case, a port, a trailing dot', async (t) => {
  const k = await withDomains(t);
  for (const host of ['S2.Kurz.Test', 's2.kurz.test:8443', 's2.kurz.test.', 'S2.KURZ.TEST.:80'])
    t.is((await hit(k, host, '/go')).location, 'https://example.com/s2-go', host);
});

test('an unknown Host is served as the default domain', async (t) => {
  const k = await withDomains(t);
  t.is((await hit(k, 'some.other.name', '/go')).location, 'https://example.com/default-go');
  t.is((await hit(k, '127.0.0.1', '/go')).location, 'https://example.com/default-go');
});

test('with unknownHosts refuse, an unknown Host gets 421 and kurz’s own domains are served', async (t) => {
  const k = await withDomains(t, { unknownHosts: 'refuse' });
  const refused = await hit(k, 'some.other.name', '/go');
  t.is(refused.status, 421);
  t.is(refused.location, undefined);
  t.is((await hit(k, 'some.other.name', '/go', BROWSER_ACCEPT)).status, 421);
  t.is((await hit(k, 'kurz.test', '/go')).location, 'https://example.com/default-go');
  t.is((await hit(k, 's2.kurz.test', '/go')).location, 'https://example.com/s2-go');
});

test('with one domain and unknownHosts refuse, only the publicUrl’s host is served', async (t) => {
  const k = await startKurz(t, { unknownHosts: 'refuse' });
  await k.kurz.services.creation.createLink(SERVER_ADMIN, { url: 'https://example.com/one', alias: 'one' });
  t.is((await hit(k, 'kurz.test', '/one')).location, 'https://example.com/one');
  t.is((await hit(k, 'elsewhere.test', '/one')).status, 421);
});

test('a visit is counted for the link of the Host it was sent to', async (t) => {
  const k = await withDomains(t);
  await hit(k, 's2.kurz.test', '/go');
  await hit(k, 's2.kurz.test', '/go');
  await hit(k, 'kurz.test', '/go');
  await k.flushVisits();
  const { links, registry } = k.kurz.services;
  t.is((await links.existingLink(SERVER_ADMIN, 'go', registry.idOf('s2.kurz.test'))).visitCount, 2);
  t.is((await links.existingLink(SERVER_ADMIN, 'go')).visitCount, 1);
});

test('an edit by another process reaches the cache for its own address only', async (t) => {
  const k = await withDomains(t);
  for (let i = 0; i < 2; i++) {
    await hit(k, 'kurz.test', '/go');
    await hit(k, 's2.kurz.test', '/go');
  }
  const cli = await runCli(['edit', 'go', '--domain', 's2.kurz.test', '--url', 'https://example.com/s2-edited'], {
    ...k.database.env,
    KURZ_PUBLIC_URL: 'https://kurz.test',
  });
  t.is(cli.code, 0, cli.stderr);
  await waitFor(async () => (await hit(k, 's2.kurz.test', '/go')).location === 'https://example.com/s2-edited');
  t.is((await hit(k, 'kurz.test', '/go')).location, 'https://example.com/default-go');
});

test('a link moved to another domain answers there, and no longer where it was', async (t) => {
  const k = await withDomains(t);
  const { link } = await k.kurz.services.creation.createLink(SERVER_ADMIN, { url: 'https://example.com/mover', domain: 's2.kurz.test' });
  for (let i = 0; i < 2; i++) {
    await hit(k, 's2.kurz.test', `/${link.code}`);
    await hit(k, 's3.kurz.test', `/${link.code}`); // remembered as unknown there
  }
  const cli = await runCli(['edit', link.code, '--domain', 's2.kurz.test', '--move-to', 's3.kurz.test'], {
    ...k.database.env,
    KURZ_PUBLIC_URL: 'https://kurz.test',
  });
  t.is(cli.code, 0, cli.stderr);
  await waitFor(async () => (await hit(k, 's3.kurz.test', `/${link.code}`)).location === 'https://example.com/mover');
  t.is((await hit(k, 's2.kurz.test', `/${link.code}`)).location, 'https://example.com/lost-on-s2');
});

test('a domain added by another process is served without a restart', async (t) => {
  const k = await startKurz(t, { unknownHosts: 'refuse' });
  t.is((await hit(k, 'late.kurz.test', '/x')).status, 421);
  const added = await runCli(['domains', 'add', 'late.kurz.test'], { ...k.database.env, KURZ_PUBLIC_URL: 'https://kurz.test' });
  t.is(added.code, 0, added.stderr);
  const created = await runCli(['create', 'https://example.com/late', '--alias', 'x', '--domain', 'late.kurz.test'], {
    ...k.database.env,
    KURZ_PUBLIC_URL: 'https://kurz.test',
  });
  t.is(created.code, 0, created.stderr);
  await waitFor(async () => (await hit(k, 'late.kurz.test', '/x')).location === 'https://example.com/late');
});

test('the instance’s figures count each domain’s links and visits, and each top link’s short URL has its domain', async (t) => {
  const k = await withDomains(t);
  await hit(k, 's2.kurz.test', '/go');
  await hit(k, 's2.kurz.test', '/go');
  await hit(k, 'kurz.test', '/go');
  await k.flushVisits();
  const stats = (await (await k.get('/api/v1/stats?days=7')).json()) as {
    domains: Array<{ domain: string; links: number; humans: number }>;
    topLinks: Array<{ code: string; shortUrl: string; humans: number }>;
  };
  t.deepEqual(stats.domains, [
    { domain: 'kurz.test', links: 1, humans: 1 },
    { domain: 's2.kurz.test', links: 1, humans: 2 },
    { domain: 's3.kurz.test', links: 0, humans: 0 },
  ]);
  t.deepEqual(
    stats.topLinks.map(({ code, shortUrl, humans }) => ({ code, shortUrl, humans })),
    [
      { code: 'go', shortUrl: 'https://s2.kurz.test/go', humans: 2 },
      { code: 'go', shortUrl: 'https://kurz.test/go', humans: 1 },
    ],
  );
});
