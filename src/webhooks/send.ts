import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { refusedRange } from './addresses.ts';

/** What an attempt got: the answer's status and the start of its body, or why there was none. */
export type Answer = { status: number; excerpt: string } | { error: string };

/** How much of an answer's body is kept, for the delivery log: enough to read an error, no more. */
const EXCERPT = 200;

export interface SendOptions {
  /** The longest an attempt may take, connecting included. */
  timeout: number;
  /** Whether the receiver may be on a loopback, private, link-local, CGNAT or metadata address. */
  allowPrivate: boolean;
}

/**
 * POSTs `body` to `url` once: no redirect followed, at most `timeout`, and unless `allowPrivate` only to a
 * public address. The host is resolved as the connection is made and every address it resolves to is checked
 * there, so that a name cannot point elsewhere between a check and the connection (DNS rebinding). Never
 * rejects: a failure is an `error`.
 */
export function postJson(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<Answer> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(host) !== 0) {
    const range = refusedRange(host);
    if (range !== undefined) return Promise.resolve({ error: `refused: ${host} is a ${range} address (webhookAllowPrivate is off)` });
  }
  return new Promise<Answer>((resolve) => {
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      lookup: options.allowPrivate ? undefined : publicOnly,
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${options.timeout} ms`)), options.timeout);
    const settle = (answer: Answer) => {
      clearTimeout(timer);
      resolve(answer);
    };
    req.on('error', (err) => settle({ error: err.message }));
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      let excerpt = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        excerpt += chunk;
        // The rest of a long answer is of no use: the connection is not kept (no agent).
        if (excerpt.length >= EXCERPT) res.destroy();
      });
      const done = () => settle({ status, excerpt: printable(excerpt.slice(0, EXCERPT)) });
      res.on('end', done);
      res.on('close', done);
    });
    req.end(body);
  });
}

/** dns.lookup, failing when the name resolves to any address a webhook may not reach. */
function publicOnly(
  hostname: string,
  options: LookupOptions,
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const refused = addresses.find((a) => refusedRange(a.address) !== undefined);
    if (refused) {
      const error: NodeJS.ErrnoException = new Error(
        `refused: ${hostname} resolves to ${refused.address}, a ${refusedRange(refused.address)} address (webhookAllowPrivate is off)`,
      );
      error.code = 'EWEBHOOKPRIVATE';
      return callback(error, '');
    }
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    return first ? callback(null, first.address, first.family) : callback(new Error(`${hostname} has no address`), '');
  });
}

/** Text fit for the delivery log: control characters as spaces. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}
