import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { DEFAULT_DOMAIN, normaliseHost } from '../../domains/domain.ts';
import type { DomainRegistry } from '../../domains/registry.ts';
import type { Link } from '../../links/link.ts';
import { controlCharacter } from '../../links/text-rules.ts';
import { timeOf } from '../../links/times.ts';
import { actorOf } from '../session.ts';
import { invalidData, shortUrlNotFound } from './problems.ts';

// What Shlink's query strings and bodies say, read in Shlink's words: each refusal is Shlink's invalid-data
// naming the parameter.

/** `itemsPerPage` when none is given: Shlink's for short URLs and visits (its tags default to every one, -1). */
const DEFAULT_PAGE_SIZE = 10;

/** The largest page asked for with a number; `-1` asks for every item. */
const MAX_PAGE_SIZE = 100_000;

/** The most items a page may skip: what the databases take as an offset. */
const MAX_OFFSET = 2 ** 31 - 1;

/** Most entries a list parameter takes (`tags[]`): as many tags as a link may carry. */
const MAX_LIST = 20;

/** Longest text parameter (`searchTerm`). */
const MAX_TEXT = 200;

/** A text no stored value holds (a control character), or too long to be one: refused. */
function checkText(name: string, value: string): string {
  if (value.length > MAX_TEXT) throw invalidData([name], `${name} must be at most ${MAX_TEXT} characters`);
  if (controlCharacter(value) !== undefined) throw invalidData([name], `${name} must not contain control characters`);
  return value;
}

/** A query parameter given once; undefined when absent or empty. */
export function param(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw invalidData([name], `${name} must be given once`);
  return checkText(name, value);
}

/** A list parameter (`tags[]=a&tags[]=b`, or `tags=a`), without empty entries; at most MAX_LIST. */
export function listParam(ctx: Context, name: string): string[] {
  const given = ctx.query[`${name}[]`] ?? ctx.query[name];
  const list = (given === undefined ? [] : Array.isArray(given) ? given : [given])
    .map((value) => checkText(name, value).trim())
    .filter((value) => value !== '');
  if (list.length > MAX_LIST) throw invalidData([name], `${name} may be given at most ${MAX_LIST} times`);
  return list;
}

/** `true` or `false` (Shlink reads a query flag so), absent as false. */
export function flagParam(ctx: Context, name: string): boolean {
  const value = param(ctx, name);
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw invalidData([name], `${name} must be true or false`);
}

/** A numbered page: its number from 1, its size (every item: `all`), and the offset it starts at. */
export interface PageAsk {
  page: number;
  size: number;
  all: boolean;
  offset: number;
}

/** `page` (from 1) and `itemsPerPage` (-1: every item; absent: `defaultSize`), as Shlink reads them. */
export function pageParams(ctx: Context, defaultSize = DEFAULT_PAGE_SIZE): PageAsk {
  const pageText = param(ctx, 'page') ?? '1';
  const sizeText = param(ctx, 'itemsPerPage') ?? String(defaultSize);
  const page = Number(pageText);
  const size = Number(sizeText);
  if (!/^\d{1,9}$/.test(pageText) || page < 1) throw invalidData(['page'], 'page must be a whole number from 1');
  if (!/^-?\d{1,9}$/.test(sizeText) || (size < 1 && size !== -1) || size > MAX_PAGE_SIZE)
    throw invalidData(['itemsPerPage'], `itemsPerPage must be a whole number from 1 to ${MAX_PAGE_SIZE}, or -1 for every item`);
  const all = size === -1;
  const offset = all ? 0 : (page - 1) * size;
  if (offset > MAX_OFFSET) throw invalidData(['page'], `page is too far: at most ${MAX_OFFSET} items are skipped`);
  return { page, size, all, offset };
}

/** Shlink's pagination object for a page of `count` items out of `total`. */
export function pagination(ask: PageAsk, count: number, total: number) {
  const perPage = ask.all ? Math.max(total, 1) : ask.size;
  return {
    currentPage: ask.all ? 1 : ask.page,
    pagesCount: Math.max(1, Math.ceil(total / perPage)),
    itemsPerPage: perPage,
    itemsInCurrentPage: count,
    totalItems: total,
  };
}

/** Items sliced to the page asked for, with Shlink's pagination: for lists kurz reads whole (tags, domains). */
export function paged<T>(ask: PageAsk, items: readonly T[]): { data: T[]; pagination: ReturnType<typeof pagination> } {
  const data = ask.all ? [...items] : items.slice(ask.offset, ask.offset + ask.size);
  return { data, pagination: pagination(ask, data.length, items.length) };
}

/** An ISO 8601 date or time parameter (without an offset: UTC) in milliseconds; undefined when absent. */
export function timeParam(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const time = typeof value === 'string' ? timeOf(value.trim()) : undefined;
  if (!time) throw invalidData([name], `${name} must be an ISO 8601 date or time, like 2026-12-31T23:59:59+00:00`);
  return time.ms;
}

/** `startDate` and `endDate` (both included, as Shlink reads them) as [from, before) in milliseconds. */
export function dateRange(ctx: Context): { from: number | undefined; before: number | undefined } {
  const from = timeParam(param(ctx, 'startDate'), 'startDate');
  const end = timeParam(param(ctx, 'endDate'), 'endDate');
  return { from, before: end === undefined ? undefined : end + 1 };
}

/**
 * The domain a `domain` names: absent (or the default domain's host) is the default domain; `DEFAULT` too
 * where Shlink takes it (`withKeyword`). `id` is undefined for a host kurz does not serve; `host` is null for
 * the default domain, as Shlink's answers name it.
 */
export function domainParam(
  value: string | undefined,
  registry: DomainRegistry,
  withKeyword = false,
): { id: number | undefined; host: string | null } {
  if (value === undefined || (withKeyword && value === 'DEFAULT')) return { id: DEFAULT_DOMAIN, host: null };
  let host: string;
  try {
    host = normaliseHost(value, 'domain');
  } catch {
    return { id: undefined, host: value };
  }
  const id = registry.idOfHost(host);
  return { id, host: id === DEFAULT_DOMAIN ? null : host };
}

/**
 * The live link the path's short code and `?domain=` name, as the caller may see it; else Shlink's 404. A
 * deleted kurz link keeps its code (410 to visitors); to Shlink's clients it is gone, as Shlink's would be.
 */
export async function liveShortUrl(ctx: Context, web: WebServices): Promise<Link> {
  const code = ctx.params['shortCode'] ?? '';
  const { id, host } = domainParam(param(ctx, 'domain'), web.registry);
  const link = id === undefined ? undefined : await web.links.linkByCode(actorOf(ctx), code, id);
  if (!link || link.deletedAt) throw shortUrlNotFound(code, host);
  return link;
}
