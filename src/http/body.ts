import type { IncomingMessage } from 'node:http';
import { bodyParser } from '@koa/bodyparser';
import coBody from 'co-body';
import type { Context } from 'koa';
import { AppError } from '../errors.ts';

const LIMIT_KIB = 64;
const LIMIT = `${LIMIT_KIB}kb`;

/** Every parser failure as a precise 4xx: 413 for a body over the limit, 400 for the rest. */
function bodyError(err: Error & { status?: number }, json: boolean): AppError {
  if (err.status === 413) return new AppError('too_large', `request body is larger than ${LIMIT_KIB} KiB`);
  if (err.status === 415) return new AppError('invalid', `request body: ${err.message}`);
  return new AppError(
    'invalid',
    json ? `request body is not valid JSON: ${err.message}` : `request body could not be read: ${err.message}`,
  );
}

/** Parses JSON and form bodies up to 64 KiB, turning every parser failure into a precise 4xx. */
export const parseBody = bodyParser({
  enableTypes: ['json', 'form'],
  jsonLimit: LIMIT,
  formLimit: LIMIT,
  jsonStrict: true,
  onError(err: Error & { status?: number }, ctx: Context) {
    throw bodyError(err, Boolean(ctx.is('json')));
  },
});

/**
 * The body of a JSON request read straight from Node's request, as `parseBody` reads it for Koa (co-body,
 * strict, 64 KiB, UTF-8), with the same errors. For the fast path, which takes only `application/json`.
 */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  try {
    return await coBody.json(req, { limit: LIMIT, strict: true, encoding: 'utf-8' });
  } catch (err) {
    throw bodyError(err as Error, true);
  }
}

/** The parsed body of an API request (see `parseBody`); refuses any media type but JSON with a 415. */
export function jsonBody(ctx: Context): unknown {
  if (!ctx.is('json')) {
    ctx.throw(415, 'send the request body as JSON with Content-Type: application/json');
  }
  return ctx.request.body;
}

/** Refuses a parsed body that is not a JSON object or has a field not in `fields`. */
export function checkJsonObject(body: unknown, fields: ReadonlySet<string>): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('invalid', 'request body must be a JSON object');
  for (const key of Object.keys(body)) {
    if (!fields.has(key)) throw new AppError('invalid', `unknown field "${key}" (known: ${[...fields].join(', ')})`, key);
  }
  return body as Record<string, unknown>;
}
