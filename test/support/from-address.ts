import { request, type IncomingHttpHeaders } from 'node:http';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One request to `base` from the local address `from` (any of 127.0.0.0/8 on Linux's loopback): what a
 * second machine would be, as far as the socket's address goes. A fresh connection each time.
 */
export function requestFrom(
  from: string,
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, path, method: options.method ?? 'GET', headers: options.headers ?? {}, localAddress: from, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
