import * as z from 'zod';
import { AppError } from '../core/errors.ts';
import type { QuerySchema } from '../core/request-schema.ts';
import type { Link, LinkQuery, Review } from './link.ts';
import { codePoint, controlCharacter } from './text-rules.ts';

export const PAGE_SIZE = { default: 20, max: 100 } as const;
export const SORTS = ['created', 'visits'] as const;
const REVIEWS = ['pending', 'rejected'] as const satisfies readonly Review[];

/** A query parameter given at most once; undefined when absent or empty. Throws AppError('invalid') when repeated. */
export function single(params: Record<string, unknown>, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new AppError('invalid', `${name} must be given once`, name);
  return value;
}

/** A text parameter, trimmed; control characters (which no stored text holds) are refused. Throws AppError('invalid'). */
function text(params: Record<string, unknown>, name: string): string | undefined {
  const value = single(params, name)?.trim();
  const control = value === undefined ? undefined : controlCharacter(value);
  if (control !== undefined)
    throw new AppError('invalid', `${name} must not contain control characters (found ${codePoint(control)})`, name);
  return value;
}

/** A link's domain as a query names it: its host (the default domain's is the publicUrl's). */
export const DOMAIN_PARAM = z
  .string()
  .describe("The link's domain, a host (GET /api/v1/domains lists them); absent: the default domain (the publicUrl's host)")
  .optional();

/**
 * The list's parameters (`q`, `tag`, `domain`, `owner`, `blocked`, `review`, `sort`, `limit`, `cursor`), as a query string
 * gives them; `domainHost` and `ownerName` as given (the caller knows the domains and users). Throws AppError('invalid').
 */
export function parseListQuery(
  params: Record<string, unknown>,
): Omit<LinkQuery, 'domain' | 'owner'> & { limit: number; domainHost?: string | undefined; ownerName?: string | undefined } {
  const search = text(params, 'q');
  if (search !== undefined && search.length > 200) throw new AppError('invalid', 'q must be at most 200 characters', 'q');
  const tag = text(params, 'tag');
  const domainHost = text(params, 'domain');
  const ownerName = text(params, 'owner');
  const sort = single(params, 'sort') ?? 'created';
  if (!(SORTS as readonly string[]).includes(sort)) throw new AppError('invalid', `sort must be one of ${SORTS.join(', ')}`, 'sort');
  const limitText = single(params, 'limit');
  const limit = limitText === undefined ? PAGE_SIZE.default : Number(limitText);
  if (!/^\d+$/.test(limitText ?? '1') || limit < 1 || limit > PAGE_SIZE.max)
    throw new AppError('invalid', `limit must be a whole number from 1 to ${PAGE_SIZE.max}`, 'limit');
  const cursor = single(params, 'cursor');
  const review = single(params, 'review');
  if (review !== undefined && !(REVIEWS as readonly string[]).includes(review))
    throw new AppError('invalid', `review must be ${REVIEWS.join(' or ')} (only the links in that state of review), or left out`, 'review');
  const blocked = single(params, 'blocked');
  if (blocked !== undefined && blocked !== 'true')
    throw new AppError('invalid', 'blocked must be true (only the links the blocklist disabled), or left out', 'blocked');
  return {
    search: search || undefined,
    tag: tag || undefined,
    domainHost: domainHost || undefined,
    ownerName: ownerName || undefined,
    blocked: blocked === 'true' || undefined,
    review: review as Review | undefined,
    sort: sort as (typeof SORTS)[number],
    limit,
    after: cursor === undefined ? undefined : decodeCursor(cursor, sort),
  };
}

/** The list's query, for the API and the list page. */
export const LIST_QUERY: QuerySchema<ReturnType<typeof parseListQuery>> = {
  params: z.object({
    q: z.string().max(200).describe('A substring of the code or the URL').optional(),
    tag: z.string().describe('Only links with this tag').optional(),
    domain: z.string().describe('Only links on this domain (a host); absent: every domain').optional(),
    owner: z.string().describe("Only this user's links (admins; a member sees only their own anyway)").optional(),
    blocked: z.enum(['true']).describe('Only the links the blocklist disabled').optional(),
    review: z.enum(REVIEWS).describe("Only the links waiting for an admin's review (pending), or those rejected").optional(),
    sort: z.enum(SORTS).default('created').describe('Order'),
    limit: z.int().min(1).max(PAGE_SIZE.max).default(PAGE_SIZE.default).describe('Links per page'),
    cursor: z.string().describe("The previous page's nextCursor (same sort)").optional(),
  }),
  parse: parseListQuery,
};

/** Where a page ends, for the next page's `cursor`: opaque to clients. */
export function encodeCursor(last: Link, sort: 'created' | 'visits'): string {
  return Buffer.from(sort === 'visits' ? `${last.visitCount}.${last.id}` : `${last.id}`).toString('base64url');
}

function decodeCursor(cursor: string, sort: string): LinkQuery['after'] {
  // The decoder skips characters that are not base64url: "MTIz%00" would read as "MTIz".
  const text = /^[\w-]{1,44}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('latin1') : '';
  const m = sort === 'visits' ? /^(\d{1,15})\.(\d{1,15})$/.exec(text) : /^()(\d{1,15})$/.exec(text);
  if (!m) throw new AppError('invalid', 'cursor is not one this list gave out (the sort must stay the same while paging)', 'cursor');
  return sort === 'visits' ? { id: Number(m[2]), visits: Number(m[1]) } : { id: Number(m[2]) };
}
