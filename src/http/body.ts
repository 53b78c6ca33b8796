import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import typeis from 'type-is';
import { AppError } from '../core/errors.ts';
import { parseJson } from '../core/strict-json.ts';
import { httpError } from './problems.ts';

/** The largest body of a request: one link, an edit, a form. */
export const BODY_LIMIT = 64 * 1024;
/** The largest body of a batch (`/api/v1/links/batch`, the bulk form): 1000 links of about 2 KB each. */
export const BULK_BODY_LIMIT = 2 * 1024 * 1024;

/** The largest file an import page takes (`/import/file`): a dump of some 20,000 links. */
export const UPLOAD_LIMIT = 8 * 1024 * 1024;

export type BodyType = 'json' | 'form' | 'multipart';

/** A file of a multipart form: the name it had on the sender's disk, and its bytes. */
export interface Upload {
  fileName: string;
  bytes: Buffer;
}

/** type-is's names for them. */
const TYPEIS_NAMES: Record<BodyType, string> = { json: 'json', form: 'urlencoded', multipart: 'multipart' };

const MEDIA_TYPES: Record<BodyType, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  multipart: 'multipart/form-data',
};

/** JSON texts that are an object or an array (RFC 8259 whitespace first). */
const OBJECT_OR_ARRAY = /^[ \t\n\r]*[[{]/;

/** 65536 -> "64 KiB", 2097152 -> "2 MiB". */
export function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
}

/**
 * The one body reader: a JSON or form body of at most `limit` bytes (BODY_LIMIT unless a batch route says
 * BULK_BODY_LIMIT), UTF-8, of one of the `accepted` types. Every failure is a precise 4xx: 400 for an
 * empty, malformed or not UTF-8 body, or one that gives a key or field twice; 413 over the limit (a
 * Content-Length over it is refused before anything is read); 415 for another media type or a compressed
 * body. A multipart form (multipart/form-data) is read as a form of text fields, a file part refused. A form's fields named in `repeated` (the checkboxes of a list) may come several times: a list of their values.
 */
export async function readBody(
  req: IncomingMessage,
  accepted: readonly BodyType[],
  limit = BODY_LIMIT,
  repeated: readonly string[] = [],
): Promise<unknown> {
  if (!typeis.hasBody(req) || req.headers['content-length'] === '0') throw new AppError('invalid', 'the request body is empty');
  const type = accepted.find((t) => typeis(req, [TYPEIS_NAMES[t]]) !== false);
  if (!type) {
    const wanted = accepted.map((t) => MEDIA_TYPES[t]).join(' or ');
    throw httpError(415, `send the request body as ${accepted.includes('json') ? 'JSON' : 'a form'} with Content-Type: ${wanted}`);
  }
  const encoding = req.headers['content-encoding'] ?? 'identity';
  if (encoding !== 'identity') {
    throw httpError(415, `send the request body uncompressed (Content-Encoding: ${encoding} is not accepted)`);
  }
  try {
    if (type === 'multipart') return await readMultipart(req, limit);
    return type === 'json' ? await readJson(req, limit) : await readFormBody(req, limit, repeated);
  } catch (err) {
    if (err instanceof AppError) throw err;
    const e = err as Error & { status?: number };
    if (e.status === 413) throw new AppError('too_large', `request body is larger than ${sizeText(limit)}`);
    throw new AppError(
      'invalid',
      type === 'json' ? `request body is not valid JSON: ${e.message}` : `request body could not be read: ${e.message}`,
    );
  }
}

/** The bytes of a body (at most `limit`), checked as UTF-8 before they are decoded: a decoder would turn bad bytes into U+FFFD silently. */
async function readText(req: IncomingMessage, limit: number): Promise<string> {
  const length = req.headers['content-length'];
  const bytes = await getRawBody(req, { limit, ...(length === undefined ? {} : { length: Number(length) }) });
  if (!isUtf8(bytes)) throw new AppError('invalid', 'request body is not valid UTF-8');
  return bytes.toString('utf8');
}

/**
 * A form body (application/x-www-form-urlencoded) as its fields. Strict where parsers are lenient, so that
 * what is stored is what was sent: a field given twice is refused (not one of them kept), and so is
 * percent-encoding that is not UTF-8 (not kept as the literal "%FF", nor turned into U+FFFD). Names are
 * taken as they are: `a[b]` is a field of that name. A name in `repeated` is a list of every value it was given.
 */
async function readFormBody(req: IncomingMessage, limit: number, repeated: readonly string[]): Promise<Record<string, string | string[]>> {
  const fields = new Map<string, string>();
  const lists = new Map<string, string[]>(repeated.map((name) => [name, []]));
  for (const pair of (await readText(req, limit)).split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const name = decodeFormPart(at === -1 ? pair : pair.slice(0, at));
    const value = at === -1 ? '' : decodeFormPart(pair.slice(at + 1));
    const list = lists.get(name);
    if (list) list.push(value);
    else if (fields.has(name)) throw new AppError('invalid', `request body gives the form field "${name}" more than once`, name);
    else fields.set(name, value);
  }
  return { ...Object.fromEntries(fields), ...Object.fromEntries(lists) };
}

/**
 * A multipart form (a file upload) as its fields: text, or an Upload for a file. A field given twice is
 * refused, as in a form body; a text field that is not UTF-8 is refused (a file's bytes are the file's).
 */
async function readMultipart(req: IncomingMessage, limit: number): Promise<Record<string, string | Upload>> {
  const length = req.headers['content-length'];
  const bytes = await getRawBody(req, { limit, ...(length === undefined ? {} : { length: Number(length) }) });
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
  } catch {
    throw new AppError('invalid', 'request body is not a valid multipart form');
  }
  const fields: Record<string, string | Upload> = {};
  for (const [name, value] of form) {
    if (Object.hasOwn(fields, name)) throw new AppError('invalid', `request body gives the form field "${name}" more than once`, name);
    if (typeof value === 'string') {
      // FormData decodes text fields as UTF-8, replacing bytes that are not: what would be read is not what was sent.
      if (value.includes('\ufffd')) throw new AppError('invalid', `the form field "${name}" is not valid UTF-8`, name);
      fields[name] = value;
    } else fields[name] = { fileName: value.name, bytes: Buffer.from(await value.arrayBuffer()) };
  }
  return fields;
}

function decodeFormPart(part: string): string {
  try {
    return decodeURIComponent(part.replaceAll('+', ' '));
  } catch {
    const shown = part.length > 40 ? `${part.slice(0, 40)}…` : part;
    throw new AppError('invalid', `request body is not a valid form: "${shown}" is not percent-encoded UTF-8`);
  }
}

/** A JSON object or array, parsed refusing `__proto__` and duplicate keys. */
async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const text = await readText(req, limit);
  if (text === '') return {};
  if (!OBJECT_OR_ARRAY.test(text)) throw new SyntaxError('invalid JSON, only supports object and array');
  return parseJson(text);
}
