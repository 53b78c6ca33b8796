import * as z from 'zod';
import { AppError } from '../core/errors.ts';
import type { QuerySchema } from '../core/request-schema.ts';
import {
  defaultOrder,
  LIST_ORDERS,
  LIST_SORTS,
  LIST_STATES,
  TAG_MODES,
  type Link,
  type LinkQuery,
  type ListOrder,
  type ListSort,
  type ListState,
  type Review,
  type TagMode,
} from './link.ts';
import { codePoint, controlCharacter } from './text-rules.ts';

export const PAGE_SIZE = { default: 20, max: 100 } as const;
export const SORTS = LIST_SORTS;
const REVIEWS = ['pending', 'rejected'] as const satisfies readonly Review[];
/** Tags one list filters by at most: as many as a link may carry. */
const MAX_TAGS = 20;
const DAY = /^(\d{4})-(\d\d)-(\d\d)$/;
const DAY_MS = 86_400_000;

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

/** A day (YYYY-MM-DD, UTC) as its first millisecond; `field` names it in the error. Throws AppError('invalid'). */
function dayStart(params: Record<string, unknown>, field: string): number | undefined {
  const value = single(params, field);
  if (value === undefined) return undefined;
  const m = DAY.exec(value);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || new Date(ms).toISOString().slice(0, 10) !== value)
    throw new AppError('invalid', `${field} must be a day as YYYY-MM-DD (UTC), got ${JSON.stringify(value.slice(0, 40))}`, field);
  return ms;
}

/** One of `allowed`, or undefined when absent. Throws AppError('invalid') naming `field`. */
function oneOf<T extends string>(params: Record<string, unknown>, field: string, allowed: readonly T[]): T | undefined {
  const value = single(params, field);
  if (value !== undefined && !(allowed as readonly string[]).includes(value))
    throw new AppError('invalid', `${field} must be one of ${allowed.join(', ')}`, field);
  return value as T | undefined;
}

/** The `tag` parameter, given once or repeated (a form's multiple select), each trimmed, unique, empty ones skipped. */
function tagsOf(params: Record<string, unknown>): string[] | undefined {
  const given = params['tag'];
  const list = given === undefined ? [] : Array.isArray(given) ? given : [given];
  const tags = new Set<string>();
  for (const value of list) {
    const tag = text({ tag: value }, 'tag');
    if (tag) tags.add(tag);
  }
  if (tags.size > MAX_TAGS) throw new AppError('invalid', `tag must be given at most ${MAX_TAGS} times`, 'tag');
  return tags.size === 0 ? undefined : [...tags];
}

/**
 * The list's parameters (`q`, `tag` (repeatable) with `tagMode`, `domain`, `owner`, `state`, `from`, `to`,
 * `blocked`, `review`, `sort`, `order`, `limit`, `cursor`), as a query string gives them; `domainHost` and
 * `ownerName` as given (the caller knows the domains and users). Throws AppError('invalid').
 */
export function parseListQuery(
  params: Record<string, unknown>,
): Omit<LinkQuery, 'domain' | 'owner'> & { limit: number; domainHost?: string | undefined; ownerName?: string | undefined } {
  const search = text(params, 'q');
  if (search !== undefined && search.length > 200) throw new AppError('invalid', 'q must be at most 200 characters', 'q');
  const tags = tagsOf(params);
  const tagMode = oneOf<TagMode>(params, 'tagMode', TAG_MODES);
  const domainHost = text(params, 'domain');
  const ownerName = text(params, 'owner');
  const sort = oneOf<ListSort>(params, 'sort', SORTS) ?? 'created';
  const order = oneOf<ListOrder>(params, 'order', LIST_ORDERS) ?? defaultOrder(sort);
  const state = oneOf<ListState>(params, 'state', LIST_STATES);
  const createdFrom = dayStart(params, 'from');
  const to = dayStart(params, 'to');
  const createdBefore = to === undefined ? undefined : to + DAY_MS;
  if (createdFrom !== undefined && createdBefore !== undefined && createdFrom >= createdBefore)
    throw new AppError('invalid', 'from must be on or before to', 'from');
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
    tags,
    tagMode: tags === undefined ? undefined : (tagMode ?? 'any'),
    domainHost: domainHost || undefined,
    ownerName: ownerName || undefined,
    blocked: blocked === 'true' || undefined,
    review: review as Review | undefined,
    state,
    includeDeleted: state === 'deleted' || undefined,
    createdFrom,
    createdBefore,
    sort,
    order,
    limit,
    after: cursor === undefined ? undefined : decodeCursor(cursor, sort, order),
  };
}

/** The list's query, for the API and the list page. */
export const LIST_QUERY: QuerySchema<ReturnType<typeof parseListQuery>> = {
  params: z.object({
    q: z.string().max(200).describe('A substring of the code or the URL').optional(),
    tag: z
      .union([z.string(), z.array(z.string()).max(MAX_TAGS)])
      .describe('Only links with this tag; repeated (tag=a&tag=b): with any of them, or all with tagMode=all')
      .optional(),
    tagMode: z.enum(TAG_MODES).describe('With several tags: links with any of them (the default), or with all').optional(),
    domain: z.string().describe('Only links on this domain (a host); absent: every domain').optional(),
    owner: z.string().describe("Only this user's links (admins; a member sees only their own anyway)").optional(),
    blocked: z.enum(['true']).describe('Only the links the blocklist disabled').optional(),
    review: z.enum(REVIEWS).describe("Only the links waiting for an admin's review (pending), or those rejected").optional(),
    state: z
      .enum(LIST_STATES)
      .describe('Only the links in this state now (deleted: only deleted ones, which the list leaves out otherwise)')
      .optional(),
    from: z.string().meta({ format: 'date' }).describe('Only links created on or after this day (UTC)').optional(),
    to: z.string().meta({ format: 'date' }).describe('Only links created on or before this day (UTC)').optional(),
    sort: z.enum(SORTS).default('created').describe('Order: by creation, visits, code, target (url) or title'),
    order: z
      .enum(LIST_ORDERS)
      .describe("Ascending or descending; absent: the sort's own (newest and most visited first, text from A)")
      .optional(),
    limit: z.int().min(1).max(PAGE_SIZE.max).default(PAGE_SIZE.default).describe('Links per page'),
    cursor: z.string().describe("The previous page's nextCursor (same sort and order)").optional(),
  }),
  parse: parseListQuery,
};

/**
 * Where a page ends, for the next page's `cursor`: opaque to clients. The newest-first and most-visited-first
 * lists keep their first form (the id; the visits and the id); any other sort and order name themselves, so
 * that a cursor is never read in another order.
 */
export function encodeCursor(last: Link, sort: ListSort, order: ListOrder = defaultOrder(sort)): string {
  const text =
    sort === 'created' && order === 'desc'
      ? `${last.id}`
      : sort === 'visits' && order === 'desc'
        ? `${last.visitCount}.${last.id}`
        : `${sort}.${order}.${sort === 'visits' ? `${last.visitCount}.` : ''}${last.id}`;
  return Buffer.from(text).toString('base64url');
}

function decodeCursor(cursor: string, sort: ListSort, order: ListOrder): LinkQuery['after'] {
  // The decoder skips characters that are not base64url: "MTIz%00" would read as "MTIz".
  const text = /^[\w-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('latin1') : '';
  const plain = order === defaultOrder(sort) && (sort === 'created' || sort === 'visits');
  const prefix = plain ? '' : `${sort}.${order}.`;
  const m = text.startsWith(prefix)
    ? (sort === 'visits' ? /^(\d{1,15})\.(\d{1,15})$/ : /^()(\d{1,15})$/).exec(text.slice(prefix.length))
    : null;
  if (!m)
    throw new AppError('invalid', 'cursor is not one this list gave out (the sort and order must stay the same while paging)', 'cursor');
  return sort === 'visits' ? { id: Number(m[2]), visits: Number(m[1]) } : { id: Number(m[2]) };
}
