import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { createKeyIn, freshDatabase, startServe, tempDir, waitFor } from '../helpers.ts';

/**
 * A large blocklist on a large instance: `kurz serve` over 100,000 links, whose list file is replaced (by a
 * rename) with 500,000 lines that name the hosts of 1% of the links, then with a list that no longer does.
 * Checks every link the list names is blocked and then unblocked, and that redirects keep being answered
 * meanwhile; prints the reload's and the scan's times, the server's memory and the redirects' latency.
 */

const LINKS = 100_000;
/** Links share hosts, ten to a host; the list names the first LISTED_HOSTS of them. */
const HOSTS = LINKS / 10;
const LISTED_HOSTS = 100;
const LIST_LINES = 500_000;

const hostOf = (i: number): string => `site${i % HOSTS}.example`;

/** A hosts file of LIST_LINES lines: unrelated names, and (with `naming`) the first LISTED_HOSTS hosts of the links. */
function hostsFile(naming: boolean): string {
  const lines = ['# a large hosts list'];
  for (let i = 0; lines.length <= LIST_LINES - LISTED_HOSTS; i++) lines.push(`0.0.0.0 ad${i}.tracker${i % 997}.example`);
  for (let i = 0; i < LISTED_HOSTS; i++) lines.push(naming ? `0.0.0.0 ${hostOf(i)}` : `0.0.0.0 other${i}.example`);
  return lines.join('\n') + '\n';
}

/** The server's resident memory, from the kernel. */
function rssMiB(pid: number): number {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kib / 1024);
}

/** Redirects one after another on one connection until stopped: how many, and the slowest. */
function keepRedirecting(url: string) {
  let stop = false;
  const latencies: number[] = [];
  const done = (async () => {
    while (!stop) {
      const started = performance.now();
      const res = await fetch(url, { redirect: 'manual' });
      await res.arrayBuffer();
      if (res.status !== 302) throw new Error(`redirect answered ${res.status}`);
      latencies.push(performance.now() - started);
    }
  })();
  return {
    async stop() {
      stop = true;
      await done;
      latencies.sort((a, b) => a - b);
      const at = (q: number) => (latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0).toFixed(1);
      return { count: latencies.length, p50: at(0.5), p99: at(0.99), max: at(1) };
    },
  };
}

test('a 500,000-line list over 100,000 links: every listed link blocked, then unblocked, while redirects go on', async (t) => {
  const database = await freshDatabase(t);
  await createKeyIn(database);
  const seedStarted = performance.now();
  await database.insert(
    'links',
    Array.from({ length: LINKS }, (_, i) => ({ code: `c${i}`, url: `https://${hostOf(i)}/page/${i}`, created_at: 0, updated_at: 0 })),
  );
  t.log(`seeded ${LINKS.toLocaleString('en-US')} links in ${Math.round(performance.now() - seedStarted)} ms`);
  const file = join(tempDir(t), 'hosts.txt');
  writeFileSync(file, '# empty for now\n');
  const server = await startServe(t, { ...database.env, KURZ_BLOCKLIST: file });
  const pid = server.child.pid ?? 0;
  const log = () => server.output().stderr;
  await waitFor(() => /blocklist screened the links links=100000 blocked=0/.test(log()), 60_000);
  const rssBefore = rssMiB(pid);
  const blockedCount = async () =>
    (await database.sql<{ n: number }>('SELECT count(*) AS n FROM links WHERE blocked_rule IS NOT NULL'))[0]?.n;

  const replace = async (text: string, done: RegExp) => {
    writeFileSync(`${file}.part`, text);
    const traffic = keepRedirecting(`${server.url}/c${LINKS - 1}`);
    const started = performance.now();
    renameSync(`${file}.part`, file);
    await waitFor(() => done.test(log()), 120_000);
    const ms = Math.round(performance.now() - started);
    return { ms, traffic: await traffic.stop() };
  };

  const blocking = await replace(hostsFile(true), /blocklist screened the links links=100000 blocked=1000 unblocked=0 ms=(\d+)/);
  const rssLoaded = rssMiB(pid);
  t.is(await blockedCount(), LISTED_HOSTS * 10);
  t.is((await fetch(`${server.url}/c0`, { redirect: 'manual' })).status, 410, 'a link on a listed host');
  t.is((await fetch(`${server.url}/c${HOSTS + 5}`, { redirect: 'manual' })).status, 410, 'another link on a listed host');
  t.is((await fetch(`${server.url}/c${LISTED_HOSTS}`, { redirect: 'manual' })).status, 302, 'a link on a host not listed');
  const loaded = /blocklist loaded file=\S+ hosts=(\d+) domains=0 urls=0 invalid=0 ms=(\d+)/g;
  const loads = [...log().matchAll(loaded)];
  t.is(Number(loads.at(-1)?.[1]), LIST_LINES);

  const unblocking = await replace(hostsFile(false), /blocklist screened the links links=100000 blocked=0 unblocked=1000 ms=(\d+)/);
  t.is(await blockedCount(), 0);
  t.is((await fetch(`${server.url}/c0`, { redirect: 'manual' })).status, 302);
  t.is(await server.stop(), 0);

  const scans = [...log().matchAll(/blocklist screened the links links=100000 blocked=\d+ unblocked=\d+ ms=(\d+)/g)].map((m) => m[1]);
  t.log(`server RSS: ${rssBefore} MiB with an empty list, ${rssLoaded} MiB with ${LIST_LINES.toLocaleString('en-US')} entries loaded`);
  t.log(
    `reload (read, parse) of ${LIST_LINES.toLocaleString('en-US')} lines: ${loads.at(-1)?.[2]} ms; scans of ${LINKS.toLocaleString('en-US')} links: ${scans.join(', ')} ms`,
  );
  t.log(`rename to every link blocked: ${blocking.ms} ms; to every link back: ${unblocking.ms} ms`);
  t.log(
    `redirects meanwhile (one connection, one at a time): ${JSON.stringify(blocking.traffic)}, then ${JSON.stringify(unblocking.traffic)} (ms)`,
  );
});
