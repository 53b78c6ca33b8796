import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';

// The hostile-input corpus (test/fixtures/hostile/*.json) and what its replays share.

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'hostile');

/** Where a link-field case is sent: the API (create, batch, edit), the forms (create, edit), the CLI (create, edit), `kurz import`. */
export type Surface = 'api' | 'batch' | 'patch' | 'form' | 'edit-form' | 'cli' | 'cli-edit' | 'import';

/** One value for one field of a link (link-fields.json). */
export interface FieldCase {
  name: string;
  category: string;
  field: string;
  value: unknown;
  surfaces: Surface[];
  /** refused: a 4xx (exit 1 or 2) whose message holds `message`, nothing stored; stored: kept as `stored`. */
  expect: 'refused' | 'stored';
  message?: string;
  /** What the API shows back: the value, or its normalised form (a URL); `true` for a password: the link is protected. */
  stored?: unknown;
}

/** The cases of one corpus file, test/fixtures/hostile/NAME.json. */
export function corpus<T>(name: string): T[] {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as T[];
}

/** The link-field cases sent through `surface`. */
export function fieldCases(surface: Surface): FieldCase[] {
  return corpus<FieldCase>('link-fields').filter((c) => c.surfaces.includes(surface));
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` as kurz's templates write it into a page (Eta escapes these five). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** What a person reads on a page: tags dropped, the five entities decoded (others stay as written). */
export function pageText(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(lt|gt|quot|#39);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'" })[e] ?? '')
    .replace(/&amp;/g, '&');
}

/** What no answer may show: a stack frame, a source file, Node's internals. */
export const LEAK = /\bat \S+ \(|\bat [^\n]*:\d+:\d+|node:internal|\/src\/|\.ts:\d+/;

/** At most `n` of the calls given to it run at once; the rest wait their turn (CLI processes on a small machine). */
export function limiter(n: number): <T>(run: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (run) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await run();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** A short, printable form of a value for a test's title. */
export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 50 ? `${text.slice(0, 50)}…` : text;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request with its path exactly as given: fetch (WHATWG URL) would resolve `%2e%2e` and `/./` before
 * sending, and a server must be tested with what a hostile client really sends.
 */
export function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Uint8Array,
): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  if (body !== undefined && headers['content-length'] === undefined)
    headers = { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
