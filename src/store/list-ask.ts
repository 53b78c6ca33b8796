import { defaultOrder, type LinkQuery, type ListOrder, type ListSort } from '../links/link.ts';

/** What the list is asked for, as both stores read it: a LinkQuery with its defaults filled in. */
export interface ListAsk {
  /** A LIKE pattern (`\` escapes `\`, `%` and `_`) of the search, null for none. */
  search: string | null;
  tags: readonly string[] | null;
  /** How many of `tags` a link needs: 1 for any, all of them for all. */
  tagsNeeded: number;
  excludeTags: readonly string[] | null;
  /** How many of `excludeTags` leave a link out: 1 for any, all of them for all. */
  excludeNeeded: number;
  includeDeleted: boolean;
  blocked: boolean;
  review: string | null;
  domain: number | null;
  owner: number | null;
  createdFrom: number | null;
  createdBefore: number | null;
  state: string | null;
  now: number;
  sort: ListSort;
  order: ListOrder;
  /** The cursor's link and (visits order) its visit count; null for the first page. */
  after: { id: number; visits: number } | null;
  limit: number;
  offset: number;
}

export function listAsk(query: LinkQuery): ListAsk {
  const tags = query.tags === undefined || query.tags.length === 0 ? null : query.tags;
  const excludeTags = query.excludeTags === undefined || query.excludeTags.length === 0 ? null : query.excludeTags;
  const sort = query.sort ?? 'created';
  return {
    search: query.search ? `%${query.search.replace(/[\\%_]/g, (c) => '\\' + c)}%` : null,
    tags,
    tagsNeeded: tags !== null && query.tagMode === 'all' ? tags.length : 1,
    excludeTags,
    excludeNeeded: excludeTags !== null && query.excludeTagMode === 'all' ? excludeTags.length : 1,
    includeDeleted: query.includeDeleted ?? false,
    blocked: query.blocked ?? false,
    review: query.review ?? null,
    domain: query.domain ?? null,
    owner: query.owner ?? null,
    createdFrom: query.createdFrom ?? null,
    createdBefore: query.createdBefore ?? null,
    state: query.state ?? null,
    now: query.now ?? Date.now(),
    sort,
    order: query.order ?? defaultOrder(sort),
    after: query.after === undefined ? null : { id: query.after.id, visits: query.after.visits ?? 0 },
    limit: query.limit,
    offset: query.offset ?? 0,
  };
}
