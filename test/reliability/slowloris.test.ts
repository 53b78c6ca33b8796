import { connect, type Socket } from 'node:net';
import test from 'ava';
import { createKeyIn, freshDatabase, startServe, waitFor } from '../helpers.ts';

/** Connections that send a request's headers a byte at a time and never finish them. */
const SLOW_HEADERS = 400;
/** Connections that send whole headers, then a body a byte at a time. */
const SLOW_BODIES = 100;
/** Connections that send nothing at all. */
const SILENT = 50;
/** How often each slow connection sends its next byte. */
const TRICKLE_MS = 250;
const HEADERS_TIMEOUT = '4s';
const REQUEST_TIMEOUT = '8s';

interface Attacker {
  socket: Socket;
  opened: number;
  closed?: number;
  received: string;
  /** The next byte to send, or nothing (a silent connection). */
  trickle?: string;
}

/** The p-th percentile of `values`. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

test('a slowloris of hundreds of connections cannot hold kurz: redirects keep answering, and the slow ones are cut off with 408', async (t) => {
  const database = await freshDatabase(t);
  const key = await createKeyIn(database);
  const server = await startServe(t, {
    ...database.env,
    KURZ_HEADERS_TIMEOUT: HEADERS_TIMEOUT,
    KURZ_REQUEST_TIMEOUT: REQUEST_TIMEOUT,
  });
  const created = await fetch(`${server.url}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/still-here' }),
  });
  t.is(created.status, 201);
  const { code } = (await created.json()) as { code: string };
  const { port } = new URL(server.url);

  /** Sequential redirects until `until` holds; the latency of each, and any answer that was not the redirect. */
  async function redirects(until: () => boolean, atLeast = 0): Promise<{ latencies: number[]; wrong: string[] }> {
    const latencies: number[] = [];
    const wrong: string[] = [];
    while (!until() || latencies.length < atLeast) {
      const started = performance.now();
      const res = await fetch(`${server.url}/${code}`, { redirect: 'manual' });
      await res.arrayBuffer();
      latencies.push(performance.now() - started);
      if (res.status !== 302 || res.headers.get('location') !== 'https://example.com/still-here') wrong.push(`${res.status}`);
    }
    return { latencies, wrong };
  }

  await redirects(() => true, 200); // warm-up: connections, JIT
  const before = await redirects(() => true, 500);
  t.deepEqual(before.wrong, []);

  const attackers: Attacker[] = [];
  const open = (first: string, trickle?: string) => {
    const socket = connect(Number(port), '127.0.0.1');
    const attacker: Attacker = { socket, opened: performance.now(), received: '', ...(trickle ? { trickle } : {}) };
    // Written at once (queued until connected), so that no byte of the trickle can come before it.
    socket.write(first);
    socket.on('data', (chunk: Buffer) => (attacker.received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => (attacker.closed = performance.now()));
    attackers.push(attacker);
  };
  for (let i = 0; i < SLOW_HEADERS; i++) open(`GET /${code} HTTP/1.1\r\nHost: kurz.test\r\nX-Slow: `, 'a');
  for (let i = 0; i < SLOW_BODIES; i++)
    open(
      `POST /links/${code}/unlock HTTP/1.1\r\nHost: kurz.test\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
        'Content-Length: 60000\r\n\r\npassword=',
      'p',
    );
  for (let i = 0; i < SILENT; i++) open('');
  // The attack itself: every slow connection sends its next byte on each tick, for as long as it is open.
  const tick = setInterval(() => {
    for (const a of attackers) if (a.trickle && a.closed === undefined && a.socket.writable) a.socket.write(a.trickle);
  }, TRICKLE_MS);
  t.teardown(() => {
    clearInterval(tick);
    for (const a of attackers) a.socket.destroy();
  });
  await waitFor(() => attackers.every((a) => a.socket.readyState === 'open' || a.closed !== undefined), 30_000);
  const attackStarted = performance.now();

  // Redirects while the attack holds its connections, until the server has closed every one of them.
  const during = await redirects(() => attackers.every((a) => a.closed !== undefined));
  const attackLasted = performance.now() - attackStarted;
  clearInterval(tick);

  t.deepEqual(during.wrong, [], 'every redirect during the attack was answered right');
  t.true(during.latencies.length > 0);
  const answered = (a: Attacker) => /^HTTP\/1\.1 (\d{3})/.exec(a.received)?.[1] ?? 'closed';
  const by = (group: Attacker[]) => Object.entries(Object.groupBy(group, answered)).map(([status, list]) => `${status}: ${list?.length}`);
  const heldFor = (group: Attacker[]) => group.map((a) => (a.closed ?? Number.NaN) - a.opened);
  const slowHeaders = attackers.slice(0, SLOW_HEADERS);
  const slowBodies = attackers.slice(SLOW_HEADERS, SLOW_HEADERS + SLOW_BODIES);
  const silent = attackers.slice(SLOW_HEADERS + SLOW_BODIES);
  t.log(`attack: ${SLOW_HEADERS} slow headers, ${SLOW_BODIES} slow bodies, ${SILENT} silent connections, a byte each per ${TRICKLE_MS} ms`);
  t.log(`timeouts: headersTimeout ${HEADERS_TIMEOUT}, requestTimeout ${REQUEST_TIMEOUT}; the attack lasted ${ms(attackLasted)}`);
  for (const [name, group] of [
    ['slow headers', slowHeaders],
    ['slow bodies', slowBodies],
    ['silent', silent],
  ] as const) {
    const held = heldFor(group);
    t.log(`${name}: ${by(group).join(', ')}; held ${ms(Math.min(...held))} to ${ms(Math.max(...held))}`);
  }
  for (const [name, run] of [
    ['before the attack', before],
    ['during the attack', during],
  ] as const) {
    const l = run.latencies;
    t.log(`redirects ${name}: ${l.length} answered, p50 ${ms(percentile(l, 50))}, p99 ${ms(percentile(l, 99))}, max ${ms(Math.max(...l))}`);
  }
  // A byte of the trickle that crosses the 408 makes the server's close a reset, which may drop the 408.
  t.deepEqual(
    attackers.filter((a) => answered(a) !== '408' && answered(a) !== 'closed').map(answered),
    [],
    'every slow connection was answered 408 or closed by the server, nothing else',
  );
  t.is(await server.stop(), 0);
});
