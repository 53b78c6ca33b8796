// The ceiling for any Node server on this machine: bare node:http, the seeded codes in a Map, the same
// redirect headers as kurz. Usage: node bench/baseline-server.ts CODES_FILE [HOST=CODES_FILE …]
// With HOST=CODES_FILE pairs, a code is looked up among its Host's codes (the Host lower-cased, without its
// port), and among the first file's (the default domain's) for any other Host, as kurz does with domains.
// Listens on a free port of 127.0.0.1 and prints "baseline is running: open http://127.0.0.1:PORT/", as kurz does.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { targetUrl } from './target-url.ts';

const [codesFile, ...hostFiles] = process.argv.slice(2);
if (!codesFile) throw new Error('usage: node bench/baseline-server.ts CODES_FILE [HOST=CODES_FILE …]');

/** The codes of a file and their targets. */
function targetsOf(file: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const code of readFileSync(file, 'utf8').split('\n')) {
    if (code !== '') map.set(code, targetUrl(map.size));
  }
  return map;
}

const targets = targetsOf(codesFile);
const byHost = new Map<string, Map<string, string>>();
for (const pair of hostFiles) {
  const at = pair.indexOf('=');
  if (at < 1) throw new Error(`expected HOST=CODES_FILE, got ${pair}`);
  byHost.set(pair.slice(0, at), targetsOf(pair.slice(at + 1)));
}

/** The codes a request's Host names: its own, or the default domain's. */
function targetsFor(req: IncomingMessage): Map<string, string> {
  if (byHost.size === 0) return targets;
  const host = req.headers.host ?? '';
  const colon = host.lastIndexOf(':');
  return byHost.get((colon === -1 ? host : host.slice(0, colon)).toLowerCase()) ?? targets;
}
let created = 0;

function sendJson(res: ServerResponse, status: number, type: string, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function notFound(res: ServerResponse, path: string): void {
  const detail = `no link with code "${path.slice(1)}"`;
  sendJson(res, 404, 'application/problem+json', { type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found', detail });
}

// The create ceiling: read and parse the JSON body, keep the URL, answer 201. No validation, no disk.
function createLink(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let url: unknown;
    try {
      url = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { url?: unknown }).url;
    } catch {
      url = undefined;
    }
    if (typeof url !== 'string') {
      sendJson(res, 400, 'application/problem+json', { status: 400, code: 'invalid', detail: 'url is required' });
      return;
    }
    const code = `b${(created++).toString(36)}`;
    targets.set(code, url);
    const body = { code, shortUrl: `http://127.0.0.1/${code}`, url };
    sendJson(res, 201, 'application/json; charset=utf-8', body, { Location: `/api/v1/links/${code}` });
  });
}

const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
  const path = req.url ?? '/';
  if (req.method === 'POST' && path === '/api/v1/links') return createLink(req, res);
  const url = req.method === 'GET' || req.method === 'HEAD' ? targetsFor(req).get(path.slice(1)) : undefined;
  if (url === undefined) return notFound(res, path);
  res.writeHead(302, { Location: url, 'Cache-Control': 'private, max-age=90', 'Content-Length': '0' });
  res.end();
});

server.listen(0, '127.0.0.1');
await once(server, 'listening');
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(
  `baseline is running: open http://127.0.0.1:${port}/ (${targets.size} codes${byHost.size > 0 ? `, ${byHost.size} more hosts` : ''})\n`,
);

process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
