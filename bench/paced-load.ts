// An open-loop load driver: each kind of request goes out at a fixed rate, on schedule, whether or not the
// earlier ones have been answered (a slow server gets more requests in flight, not fewer requests), and a
// request's latency counts from when it was due, so a stall shows in the figures instead of being skipped.
import { Agent, request } from 'node:http';

export interface PlannedRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadKind {
  /** "redirect", "create", "stats": a column of the report. */
  name: string;
  perSecond: number;
  /** Statuses that are right answers; anything else, or a failed connection, is an error. */
  expected: readonly number[];
  /** The n-th request of this kind (n from 0). */
  request(n: number): PlannedRequest;
  /** Keep the body of right answers and hand it to `answered` (creations: the new code). */
  readBody?: boolean;
  answered?(n: number, status: number, body: string): void;
  /** Connections kept open for this kind. */
  connections: number;
}

/** One kind's figures over one window. */
export interface KindWindow {
  /** Requests due in the window. */
  sent: number;
  /** Of those, answered with an expected status, by status. */
  statuses: Record<string, number>;
  /** Of those, anything else: "status 500", "ECONNRESET", "timeout", with how many. */
  errors: Record<string, number>;
  /** Milliseconds from due to the end of the answer; NaN without answers. */
  p50: number;
  p99: number;
  max: number;
  /** The most a request of the window left after it was due: the driver's own lag, not the server's. */
  maxSendLag: number;
  /** Requests sent again because the kept-alive connection they went out on had just been closed as idle. */
  resent: number;
}

export interface LoadWindow {
  /** Seconds from the start of the load. */
  from: number;
  to: number;
  kinds: Record<string, KindWindow>;
}

export interface LoadOptions {
  /** http://127.0.0.1:PORT */
  url: string;
  kinds: readonly LoadKind[];
  seconds: number;
  windowSeconds: number;
  /** Called at the end of each window, once its requests are answered (server memory, CPU). */
  windowEnded?(window: LoadWindow): void;
}

// A request unanswered this long counts as an error ("timeout").
const REQUEST_TIMEOUT_MS = 30_000;
// How often the schedule is checked: at 2,000 requests/s, about four go out together.
const TICK_MS = 2;

interface Pending {
  sent: number;
  statuses: Record<string, number>;
  errors: Record<string, number>;
  latencies: number[];
  maxSendLag: number;
  resent: number;
  /** Requests of the window still unanswered. */
  open: number;
}

/**
 * Sends `kinds` at their rates for `seconds`, reporting every `windowSeconds` (by when requests were due);
 * resolves once every request has been answered or has failed.
 */
export async function runPacedLoad(options: LoadOptions): Promise<LoadWindow[]> {
  const windowCount = Math.ceil(options.seconds / options.windowSeconds);
  const pending: Record<string, Pending>[] = Array.from({ length: windowCount }, () =>
    Object.fromEntries(
      options.kinds.map((k) => [k.name, { sent: 0, statuses: {}, errors: {}, latencies: [], maxSendLag: 0, resent: 0, open: 0 }]),
    ),
  );
  const windows: LoadWindow[] = [];
  const agents = new Map(options.kinds.map((k) => [k.name, new Agent({ keepAlive: true, maxSockets: k.connections })]));
  const target = new URL(options.url);
  const started = performance.now();
  const windowMs = options.windowSeconds * 1000;
  const totals = options.kinds.map((k) => Math.floor(k.perSecond * options.seconds));
  const sent = options.kinds.map(() => 0);
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  let closed = 0;

  // Windows end in order: a window is reported when its time is over and its last request is answered.
  const closeWindows = (): void => {
    const now = performance.now() - started;
    while (closed < windowCount) {
      const to = Math.min((closed + 1) * windowMs, options.seconds * 1000);
      const open = Object.values(pending[closed]!).some((p) => p.open > 0);
      if (now < to || open) break;
      const window: LoadWindow = { from: (closed * windowMs) / 1000, to: to / 1000, kinds: {} };
      for (const [name, p] of Object.entries(pending[closed]!)) window.kinds[name] = summarise(p);
      pending[closed] = {};
      windows.push(window);
      options.windowEnded?.(window);
      closed++;
    }
    if (closed === windowCount) finished();
  };

  const send = (kind: LoadKind, n: number, due: number): void => {
    const slot = pending[Math.min(Math.floor((due - started) / windowMs), windowCount - 1)]![kind.name]!;
    const planned = kind.request(n);
    slot.sent++;
    slot.open++;
    slot.maxSendLag = Math.max(slot.maxSendLag, performance.now() - due);
    let settled = false;
    const settle = (status: number, error: string | undefined, body: string): void => {
      if (settled) return;
      settled = true;
      slot.open--;
      if (error !== undefined) slot.errors[error] = (slot.errors[error] ?? 0) + 1;
      else {
        slot.statuses[status] = (slot.statuses[status] ?? 0) + 1;
        slot.latencies.push(performance.now() - due);
        kind.answered?.(n, status, body);
      }
    };
    const attempt = (first: boolean): void => {
      let answered = false;
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          method: planned.method,
          path: planned.path,
          headers: planned.body === undefined ? planned.headers : { ...planned.headers, 'content-length': Buffer.byteLength(planned.body) },
          agent: agents.get(kind.name),
          timeout: REQUEST_TIMEOUT_MS,
        },
        (res) => {
          answered = true;
          const status = res.statusCode ?? 0;
          const right = kind.expected.includes(status);
          const chunks: Buffer[] = [];
          if (right && kind.readBody) res.on('data', (chunk: Buffer) => chunks.push(chunk));
          else res.resume();
          res.on('end', () => settle(status, right ? undefined : `status ${status}`, Buffer.concat(chunks).toString()));
          res.on('error', (err: NodeJS.ErrnoException) => settle(0, err.code ?? err.message, ''));
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
      req.on('error', (err: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed as idle just as it was reused: the request never reached
        // it, and clients send it again (as Node's documentation advises, and browsers do). Once.
        if (first && !answered && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
          slot.resent++;
          attempt(false);
          return;
        }
        settle(0, err.code ?? err.message, '');
      });
      req.end(planned.body);
    };
    attempt(true);
  };

  const tick = setInterval(() => {
    const now = performance.now();
    options.kinds.forEach((kind, i) => {
      // Request n is due at n / perSecond: n = 0 at once.
      const due = Math.min(totals[i]!, Math.floor(((now - started) * kind.perSecond) / 1000) + 1);
      while (sent[i]! < due) {
        const n = sent[i]!++;
        send(kind, n, started + (n * 1000) / kind.perSecond);
      }
    });
    closeWindows();
  }, TICK_MS);
  await done;
  clearInterval(tick);
  for (const agent of agents.values()) agent.destroy();
  return windows;
}

function summarise(p: Pending): KindWindow {
  const sorted = Float64Array.from(p.latencies).sort();
  return {
    sent: p.sent,
    statuses: p.statuses,
    errors: p.errors,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted.length > 0 ? sorted[sorted.length - 1]! : Number.NaN,
    maxSendLag: p.maxSendLag,
    resent: p.resent,
  };
}

/** The value below which `q` of the sorted values fall (nearest rank); NaN for none. */
export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}
