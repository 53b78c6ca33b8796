import { Agent, request } from 'node:http';
import { BROWSER_UA } from '../helpers.ts';

/** One request of the load and what became of it. Times are `performance.now()` in the test's process. */
export interface Outcome {
  kind: 'create' | 'redirect';
  /** The code followed (redirect), or the code the 201 named (create). */
  code: string;
  /** The target created (create). */
  url: string;
  sentAt: number;
  /** When the answer had arrived in full, or the error. */
  endedAt: number;
  /** The answer's status; 0 when the request failed without one. */
  status: number;
  /** The failure's code (ECONNREFUSED, ECONNRESET…) when there was no answer. */
  error: string;
  /** The answer's Connection header. */
  connection: string;
  /** Sent on a connection that had carried an earlier request (else on a new one). */
  reused: boolean;
}

export interface LoadOptions {
  /** Connections that each create one link after another, with an API key. */
  creators: number;
  /** Connections that each follow one of `codes` after another, as a browser. */
  redirectors: number;
  codes: readonly string[];
  key: string;
}

export interface Load {
  outcomes: Outcome[];
  /** Answers so far. */
  answered(): number;
  /** Ends every connection's loop after its current request. */
  stop(): void;
  /** Resolves once every loop has ended: stopped, or its request failed (the server is gone). */
  done: Promise<void>;
}

/**
 * A steady stream of requests on keep-alive connections: each connection sends its next request as soon
 * as the answer to the last one has arrived, so requests are always in flight. A connection's loop ends
 * at its first request that fails (the server stopped listening); one that the server closed after an
 * answer is replaced by a new connection, as any HTTP client does.
 */
export function keepAliveLoad(base: string, options: LoadOptions): Load {
  const outcomes: Outcome[] = [];
  let answered = 0;
  let stopped = false;
  let created = 0;
  const loop = async (kind: Outcome['kind'], n: number): Promise<void> => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; !stopped; i++) {
        const code = kind === 'redirect' ? (options.codes[(n * 7919 + i) % options.codes.length] ?? '') : '';
        const url = kind === 'create' ? `https://example.com/load/${process.pid}/${created++}` : '';
        const outcome = await send(base, agent, kind, code, url, options.key);
        outcomes.push(outcome);
        if (outcome.status === 0) return;
        answered++;
      }
    } finally {
      agent.destroy();
    }
  };
  const loops = [
    ...Array.from({ length: options.creators }, (_, n) => loop('create', n)),
    ...Array.from({ length: options.redirectors }, (_, n) => loop('redirect', n)),
  ];
  return {
    outcomes,
    answered: () => answered,
    stop: () => void (stopped = true),
    done: Promise.all(loops).then(() => undefined),
  };
}

function send(base: string, agent: Agent, kind: Outcome['kind'], code: string, url: string, key: string): Promise<Outcome> {
  const sentAt = performance.now();
  const body = kind === 'create' ? JSON.stringify({ url }) : undefined;
  const headers: Record<string, string> = { 'user-agent': BROWSER_UA };
  if (body !== undefined) Object.assign(headers, { authorization: `Bearer ${key}`, 'content-type': 'application/json' });
  return new Promise((resolve) => {
    const req = request(
      kind === 'create' ? `${base}/api/v1/links` : `${base}/${code}`,
      { method: kind === 'create' ? 'POST' : 'GET', agent, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const made = kind === 'create' && status === 201 ? (JSON.parse(text) as { code: string }).code : code;
          const connection = res.headers.connection ?? '';
          resolve({ kind, code: made, url, sentAt, endedAt: performance.now(), status, error: '', connection, reused: req.reusedSocket });
        });
        res.on('error', (err: NodeJS.ErrnoException) => fail(err));
      },
    );
    const fail = (err: NodeJS.ErrnoException): void =>
      resolve({
        kind,
        code,
        url,
        sentAt,
        endedAt: performance.now(),
        status: 0,
        error: err.code ?? err.message,
        connection: '',
        reused: req.reusedSocket,
      });
    req.on('error', fail);
    req.end(body);
  });
}
