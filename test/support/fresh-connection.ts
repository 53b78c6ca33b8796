import { request as httpRequest } from 'node:http';
import { BROWSER_UA } from '../helpers.ts';

export interface Answer {
  status: number;
  location: string;
  body: string;
}

/**
 * One request on a connection of its own (fetch would reuse one): the kernel spreads new connections over
 * the workers (SO_REUSEPORT), so a series of calls reaches all of them. `body` is sent as JSON, `key` as
 * the API key.
 */
export function freshRequest(url: string, options: { method?: string; body?: unknown; key?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = httpRequest(
      url,
      {
        method: options.method ?? 'GET',
        agent: false,
        headers: {
          'user-agent': BROWSER_UA,
          ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location ?? '', body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Creates a link through the API of the kurz at `base`; resolves with its code. Throws unless 201. */
export async function createThrough(base: string, key: string, url: string): Promise<string> {
  const res = await freshRequest(`${base}/api/v1/links`, { method: 'POST', body: { url }, key });
  if (res.status !== 201) throw new Error(`${res.status} ${res.body}`);
  return (JSON.parse(res.body) as { code: string }).code;
}
