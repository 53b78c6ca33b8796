import * as z from 'zod';
import { AppError } from './errors.ts';

// A request's shape as a zod schema, which both checks what arrives and, through openapi-document.ts,
// documents it. The values' rules stay with their owners (links/url-rules.ts, link-options.ts, …): a
// field is `ruled` by the owner's check, and the schema only says which fields exist and how they look.

/** The JSON Schema of `schema` as a request gives it, without the `$schema` and `$id` of a document of its own. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _schema, $id: _id, ...json } = z.toJSONSchema(schema, { io: 'input' });
  return json;
}

/** `{type: 'string', …}` becomes `{type: ['string', 'null'], …}`: a field that null clears. */
export function orNull(json: Record<string, unknown>): Record<string, unknown> {
  const { type, ...rest } = json;
  return { type: [type, 'null'], ...rest };
}

/**
 * An optional field checked by its owner's rule `check` when present (which throws AppError naming the field,
 * and returns the value as the caller takes it), documented as `shape` (a zod schema, or JSON Schema when it
 * has no zod form). The zod schema shows the value's form; only `check` decides. `.nonoptional()` requires it.
 */
export function ruled<T>(shape: z.ZodType | Record<string, unknown>, check: (value: unknown) => T) {
  return z
    .unknown()
    .transform((value) => check(value))
    .meta(shape instanceof z.ZodType ? jsonSchemaOf(shape) : shape)
    .optional();
}

/**
 * A JSON body checked against `schema` (a strict object): an object, no field it does not name, then each
 * field. Returns what the schema makes of it. Throws AppError('invalid') naming the field at fault, with
 * the schema's message or its owner's.
 */
export function parseBody<S extends z.ZodObject>(schema: S, body: unknown): z.output<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('invalid', 'request body must be a JSON object');
  const known = Object.keys(schema.shape);
  for (const key of Object.keys(body)) {
    if (!known.includes(key)) throw new AppError('invalid', `unknown field "${key}" (known: ${known.join(', ')})`, key);
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const field = issue?.path[0];
  throw new AppError('invalid', issue?.message ?? 'request body is invalid', typeof field === 'string' ? field : undefined);
}

/**
 * A query string: `params` documents it (a zod object, one property per parameter, optional unless the
 * parameter must be given) and the owner's `parse` reads it, throwing AppError('invalid') naming the parameter.
 */
export interface QuerySchema<T> {
  params: z.ZodObject;
  parse: (query: Record<string, unknown>) => T;
}
