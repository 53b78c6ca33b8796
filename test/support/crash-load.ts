// The load of the crash tests (test/reliability/crash.test.ts), in a process of its own so that it outlives the
// servers they kill. It sends requests at a steady rate to the kurz whose address it last read on stdin
// ("url http://…"; "stop" ends the run), and reports every answer it got, one JSON line each on stdout, as
// it gets it: the test reads them as they come.
//
//   KURZ_LOAD=links   creations and edits through the API (KURZ_KEY): {"t":"created",code,url} for a 2xx,
//                     {"t":"edit",code,url} before an edit is sent, {"t":"edited",code,url} for its 2xx.
//                     After a request fails (the server was killed) it waits for the next address.
//   KURZ_LOAD=visits  GET /CODE over KURZ_CODES (comma-separated); counts the 302s.
// Both end with {"t":"summary",…} after "stop", once the requests in flight are answered or failed.
import { createInterface } from 'node:readline';
import { seededRandom } from './seeded-random.ts';

/** A browser's user agent: its visits count as human ones. */
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const mode = process.env['KURZ_LOAD'];
const key = process.env['KURZ_KEY'] ?? '';
const rate = Number(process.env['KURZ_RATE'] ?? '200');
const codes = (process.env['KURZ_CODES'] ?? '').split(',').filter(Boolean);
const random = seededRandom(Number(process.env['KURZ_SEED'] ?? '1'));

/** Requests in flight at most: when the server is slower than the rate, requests are skipped, not queued. */
const MAX_IN_FLIGHT = 64;

/** Requests leave in bursts this often, as many as the rate allows since the last. */
const TICK_MS = 10;

function report(line: object): void {
  process.stdout.write(JSON.stringify(line) + '\n');
}

let base = '';
let inFlight = 0;
let serial = 0;
const counts = { sent: 0, acknowledged: 0, failed: 0, refused: 0, skipped: 0 };
/** Links whose creation was acknowledged, and those with an edit in flight (one at a time per link). */
const created: string[] = [];
const editing = new Set<string>();
const redirects = new Map<string, number>();

async function request(method: string, path: string, body?: object): Promise<Response> {
  return fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      'user-agent': BROWSER_UA,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  });
}

async function create(): Promise<void> {
  const url = `https://example.com/c/${process.pid}/${++serial}`;
  const res = await request('POST', '/api/v1/links', { url });
  const answer = (await res.json()) as { code?: string; url?: string };
  if (res.status !== 201 && res.status !== 200) {
    counts.refused++;
    return;
  }
  counts.acknowledged++;
  created.push(answer.code!);
  report({ t: 'created', code: answer.code, url: answer.url, asked: url });
}

async function edit(code: string): Promise<void> {
  const url = `https://example.com/e/${code}/${++serial}`;
  editing.add(code);
  report({ t: 'edit', code, url });
  try {
    const res = await request('PATCH', `/api/v1/links/${code}`, { url });
    await res.arrayBuffer();
    if (res.status !== 200) {
      counts.refused++;
      return;
    }
    counts.acknowledged++;
    report({ t: 'edited', code, url });
  } finally {
    editing.delete(code);
  }
}

async function visit(): Promise<void> {
  const code = codes[Math.floor(random() * codes.length)]!;
  const res = await request('GET', `/${code}`);
  await res.arrayBuffer();
  if (res.status !== 302) {
    counts.refused++;
    return;
  }
  counts.acknowledged++;
  redirects.set(code, (redirects.get(code) ?? 0) + 1);
}

function next(): Promise<void> {
  if (mode === 'visits') return visit();
  const idle = created.length > 0 ? created[Math.floor(random() * created.length)]! : undefined;
  return idle !== undefined && !editing.has(idle) && random() < 0.4 ? edit(idle) : create();
}

let stopping = false;
let drained: (() => void) | undefined;

function send(): void {
  if (inFlight >= MAX_IN_FLIGHT) {
    counts.skipped++;
    return;
  }
  inFlight++;
  counts.sent++;
  const to = base;
  next()
    .catch(() => {
      counts.failed++;
      // The server is gone: wait to be told the next one rather than count refused connections.
      if (mode === 'links' && base === to) base = '';
    })
    .finally(() => {
      inFlight--;
      if (stopping && inFlight === 0) drained?.();
    });
}

let due = 0;
const timer = setInterval(() => {
  if (base === '' || stopping) return;
  for (due += (rate * TICK_MS) / 1000; due >= 1 && base !== ''; due--) send();
}, TICK_MS);

const commands = createInterface({ input: process.stdin });
// The test that started it is gone.
commands.on('close', () => stopping || process.exit(1));
commands.on('line', (line) => {
  const [command, argument] = line.split(' ');
  if (command === 'url') base = argument ?? '';
  if (command !== 'stop') return;
  stopping = true;
  clearInterval(timer);
  void (async () => {
    if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
    report({ t: 'summary', ...counts, redirects: Object.fromEntries(redirects) });
    process.exit(0);
  })();
});
