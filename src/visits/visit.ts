/** Visits of one link, merged: what the store adds to the link's all-time count. */
export interface VisitCount {
  id: number;
  count: number;
  /** Milliseconds since the epoch. */
  lastVisitAt: number;
}

/**
 * One followed redirect, classified: what the database may hold of it. No client address and no user
 * agent: `visitor` is a hash that cannot be turned back into either, and only for humans.
 */
export interface Visit extends VisitDetails {
  linkId: number;
  /** Milliseconds since the epoch. */
  at: number;
  /** Hash of (client, user agent, link, the day's salt); null for bots. */
  visitor: Buffer | null;
  /** The URL of the A/B split's variant the visit went to (bots too); null when the link had no split. */
  variant: string | null;
  /** The name of the redirect rule that decided (rules/match.ts: NO_RULE when none matched); null when the link had no rules. */
  rule: string | null;
}

/** What a visit says of its visitor once classified; every field null when unknown. */
export interface VisitDetails {
  /** The bot's name, for bots, crawlers, preview fetchers and probes; null for a person. */
  bot: string | null;
  referrer: string | null;
  browser: string | null;
  os: string | null;
  device: string | null;
  country: string | null;
  language: string | null;
}

/** The breakdowns kept per link and hour, in the order the stats list them. */
export const DIMENSIONS = [
  'referrers',
  'browsers',
  'os',
  'devices',
  'countries',
  'languages',
  'bots',
  // An A/B split's variants, by URL (so renumbering them mixes nothing): every visit, the humans, and the
  // unique visitors (counted by the store, with the visitor hashes: VariantSighting). Not a breakdown of
  // their own in the stats: `variants` lists the three together.
  'variant_visits',
  'variant_humans',
  'variant_visitors',
  // The redirect rule that decided a person's visit, by its name (its conditions in words, so reordering the
  // rules mixes nothing): only for links with rules, so not one of the breakdowns every visit is counted in.
  'rules',
  // 11 was 'undetailed', the visits only counted (detail dropped): they are columns of the hours and days
  // now (SQLite's migration 26). Leave 11 unused: a node of an older kurz on the same PostgreSQL database
  // would still write such rows there, and a new dimension would count them as its own.
] as const;
/** The dimensions the stats list as breakdowns (value → human visits); the variant ones make `variants`. */
export const BREAKDOWNS = ['referrers', 'browsers', 'os', 'devices', 'countries', 'languages', 'bots'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** The value a visit has in a dimension ('' when unknown); undefined when the dimension is not the visit's (bots only count in `bots`). */
export function valueIn(visit: Visit, dimension: Dimension): string | undefined {
  if (dimension === 'bots') return visit.bot ?? undefined;
  if (dimension === 'variant_visits') return visit.variant ?? undefined;
  // Counted by the store, for visitors new on their day.
  if (dimension === 'variant_visitors') return undefined;
  if (visit.bot !== null) return undefined;
  switch (dimension) {
    case 'referrers':
      return visit.referrer ?? '';
    case 'browsers':
      return visit.browser ?? '';
    case 'os':
      return visit.os ?? '';
    case 'devices':
      return visit.device ?? '';
    case 'countries':
      return visit.country ?? '';
    case 'languages':
      return visit.language ?? '';
    case 'variant_humans':
      return visit.variant ?? undefined;
    case 'rules':
      return visit.rule ?? undefined;
  }
}

/** Visits in one hour or day (of one link, or of all). */
export interface VisitTally {
  /** Start of the hour or day, ms since the epoch (UTC). */
  t: number;
  humans: number;
  bots: number;
  /** Visitors counted once per link and day, in the hour they were first seen. */
  uniques: number;
  /** Of the visits, people's and bots' only counted, their detail dropped (visit-backlog.ts). */
  undetailed: number;
}

export interface DimensionCount {
  dimension: Dimension;
  /** '' when unknown (or, for referrers, when there was none). */
  value: string;
  count: number;
}

export interface LinkTally {
  /** The link's domain id. */
  domain: number;
  code: string;
  url: string;
  title: string | null;
  humans: number;
  bots: number;
  uniques: number;
}

/** A domain's figures: its live links, and its links' human visits in a period. */
export interface DomainTally {
  domain: number;
  links: number;
  humans: number;
}

/** A raw visit as the export writes it. */
export interface StoredVisit extends VisitDetails {
  id: number;
  at: Date;
  code: string;
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** The start of the UTC hour of `at`. */
export function hourOf(at: number): number {
  return at - (((at % HOUR) + HOUR) % HOUR);
}

/** The start of the UTC day of `at`. */
export function dayOf(at: number): number {
  return at - (((at % DAY) + DAY) % DAY);
}

/** Adds `count` visits at `at` to link `id`'s entry in `counts`. */
export function addCount(counts: Map<number, VisitCount>, id: number, count: number, at: number): void {
  const c = counts.get(id);
  if (c) {
    c.count += count;
    c.lastVisitAt = Math.max(c.lastVisitAt, at);
  } else {
    counts.set(id, { id, count, lastVisitAt: at });
  }
}

/** Counts in link order: neighbouring ids share a page, so one transaction rewrites fewer pages. */
export function inLinkOrder(counts: Map<number, VisitCount>): VisitCount[] {
  return [...counts.values()].sort((a, b) => a.id - b.id);
}
