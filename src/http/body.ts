import { bodyParser } from '@koa/bodyparser';
import type { Context } from 'koa';
import { AppError } from '../errors.ts';

const LIMIT_KIB = 64;

/** Parses JSON and form bodies up to 64 KiB, turning every parser failure into a precise 4xx. */
export const parseBody = bodyParser({
  enableTypes: ['json', 'form'],
  jsonLimit: `${LIMIT_KIB}kb`,
  formLimit: `${LIMIT_KIB}kb`,
  jsonStrict: true,
  onError(err: Error & { status?: number; type?: string }, ctx: Context) {
    if (err.status === 413) throw new AppError('too_large', `request body is larger than ${LIMIT_KIB} KiB`);
    if (err.status === 415) throw new AppError('invalid', `request body: ${err.message}`);
    throw new AppError(
      'invalid',
      ctx.is('json') ? `request body is not valid JSON: ${err.message}` : `request body could not be read: ${err.message}`,
    );
  },
});

/** The parsed JSON object of an API request; refuses other media types, non-objects and unknown fields. */
export function jsonObject(ctx: Context, fields: ReadonlySet<string>): Record<string, unknown> {
  if (!ctx.is('json')) {
    ctx.throw(415, 'send the request body as JSON with Content-Type: application/json');
  }
  const body = ctx.request.body as unknown;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('invalid', 'request body must be a JSON object');
  for (const key of Object.keys(body)) {
    if (!fields.has(key)) throw new AppError('invalid', `unknown field "${key}" (known: ${[...fields].join(', ')})`, key);
  }
  return body as Record<string, unknown>;
}
