import { isAdmin, type Actor } from '../auth/actor.ts';
import { AppError } from '../core/errors.ts';
import type { Link } from '../links/link.ts';
import type { ScopedVisit, TagTotal, VisitScope, VisitStore } from '../store/ports.ts';
import {
  DAY,
  dayOf,
  BREAKDOWNS,
  HOUR,
  hourOf,
  type Dimension,
  type DimensionCount,
  type DomainTally,
  type LinkTally,
  type StoredVisit,
} from './visit.ts';

export type Granularity = 'hour' | 'day';

/** A named count in a top list. */
export interface Entry {
  name: string;
  count: number;
}

/** One link's figures for a period: what `GET /api/v1/links/CODE/stats` answers. */
export interface LinkStats {
  from: Date;
  to: Date;
  granularity: Granularity;
  /** `detailDropped`: of the total, visits only counted (in no breakdown) because too many waited for the database. */
  visits: { total: number; humans: number; bots: number; uniqueVisitors: number; detailDropped: number };
  lastVisitAt: Date | null;
  series: Array<{ t: Date; humans: number; bots: number }>;
  referrers: Entry[];
  browsers: Entry[];
  os: Entry[];
  devices: Entry[];
  countries: Entry[];
  /** Every country with a visit, by count (`countries` folds past TOP into "other"): what the map colours. */
  everyCountry: Entry[];
  languages: Entry[];
  /** Bot hits by bot name (counted apart from every human figure). */
  bots: Entry[];
  /** An A/B split's variants (by URL, the link's own split's and its rules'), most visited first; [] for none. */
  variants: VariantFigures[];
  /** Human visits by the redirect rule that decided them (its conditions in words, or "no rule matched"); [] for a link without rules. */
  rules: Entry[];
}

/** One variant of an A/B split in a period: every visit to it (bots too), the unique visitors, the humans. */
export interface VariantFigures {
  url: string;
  visits: number;
  uniqueVisitors: number;
  humans: number;
}

/** The instance's figures for the last `days` days: the dashboard's. */
export interface InstanceStats {
  from: Date;
  to: Date;
  /** The step of `days`: a day, or an hour for a period of whole hours (the dashboard's last 24 hours). */
  granularity: Granularity;
  links: number;
  humansAllTime: number;
  /** `detailDropped` as LinkStats' visits'. */
  period: { linksCreated: number; humans: number; bots: number; uniqueVisitors: number; detailDropped: number };
  /** The period's series, one entry per `granularity`, oldest first. */
  days: Array<{ t: Date; linksCreated: number; humans: number; bots: number; uniqueVisitors: number }>;
  topLinks: LinkTally[];
  /** Per domain: its live links and the period's human visits (a domain without either is left out). */
  domains: DomainTally[];
}

/** Entries in a top list before the rest is folded into "other". */
export const TOP = 10;
/** The longest period a series may cover, per granularity (bounds the answer's size). */
export const MAX_SPAN: Record<Granularity, number> = { hour: 31 * DAY, day: 3700 * DAY };
/** The periods the pages and the API use when none is given. */
export const DEFAULT_SPAN: Record<Granularity, number> = { hour: 48 * HOUR, day: 90 * DAY };
/** Days the dashboard covers unless told otherwise, and at most. */
export const DASHBOARD_DAYS = 14;
export const MAX_DASHBOARD_DAYS = 366;

export interface StatsPeriod {
  from?: Date | undefined;
  to?: Date | undefined;
  granularity: Granularity;
}

/**
 * What the instance's figures cover: the last N days, today included, or whole UTC days in [from, to), or,
 * with `granularity: 'hour'`, whole hours in [from, to) (the dashboard's last 24 hours).
 */
export type DaySpan = number | { from: Date; to: Date; granularity?: Granularity };

export interface VisitStats {
  /** `link`'s figures for the period, aligned to whole hours or days (UTC). Throws `invalid` for a bad period. */
  forLink(link: Link, period: StatsPeriod): Promise<LinkStats>;
  /**
   * The instance's figures for the last `span` days, today included, or for whole UTC days from `span.from` to
   * `span.to` (exclusive, both the start of a day); with `owner`, that user's links' alone (from the same
   * rollups, kept per owner), without the per-domain figures.
   */
  forInstance(span: DaySpan, owner?: number): Promise<InstanceStats>;
  /** The figures `actor` may see: a member's own links'; an admin's, the instance's or the `owner`'s they name. */
  figuresFor(actor: Actor, span: DaySpan, owner?: number): Promise<InstanceStats>;
  /** The raw visits kept, in [from, to), oldest first. */
  visits(from: Date, to: Date): AsyncIterable<StoredVisit>;
  /** Each link's all-time human and bot visits, by link id (a link without visits has none). */
  totalsOf(links: readonly Link[]): Promise<Map<number, VisitTotal>>;
  /** All-time human and bot visits of the links `actor` may see: a member's own, every link's for an admin. */
  allTimeFor(actor: Actor): Promise<VisitTotal>;
  /** Each tag on the live links `actor` may see, with how many links have it and their all-time visits, by tag. */
  tagsFor(actor: Actor): Promise<TagTotal[]>;
  /** A page of the raw visits kept of the live links `scope` names that `actor` may see (a member: their own), newest first. */
  visitPageFor(
    actor: Actor,
    scope: Omit<VisitScope, 'owner'>,
    limit: number,
    offset: number,
  ): Promise<{ visits: ScopedVisit[]; total: number }>;
}

/** All-time visits: people, and bots counted apart. */
export interface VisitTotal {
  humans: number;
  bots: number;
}

/** Reads the rollups into the figures the API, the pages and the CLI show. */
/**
 * The figures. `severalDomains` says whether there is more than the default domain: only then are the
 * per-domain figures read (they count each domain's links, a read that grows with them).
 */
export function visitStats(deps: { visits: VisitStore; now: () => number; severalDomains: () => boolean }): VisitStats {
  const { visits, now, severalDomains } = deps;
  /** The rollups of whole days in [from, to): the visits, creations, top links and domains. */
  async function dayFigures(from: number, to: number, owner: number | undefined, byDomain: boolean) {
    const [f, t] = [new Date(from), new Date(to)];
    const [tallies, created, topLinks, domains] = await Promise.all([
      visits.dayTotals(f, t, owner),
      visits.linksCreatedPerDay(f, t, owner),
      visits.topLinks(f, t, TOP, owner),
      byDomain ? visits.domainTotals(f, t) : [],
    ]);
    return { tallies, created, topLinks, domains };
  }
  /** The same of whole hours, from the hourly rollup. */
  async function hourFigures(from: number, to: number, owner: number | undefined, byDomain: boolean) {
    const figures = await visits.hourFigures(new Date(from), new Date(to), TOP, owner, byDomain);
    return { tallies: figures.totals, created: figures.created, topLinks: figures.topLinks, domains: figures.domains };
  }
  const stats: VisitStats = {
    async forLink(link, period) {
      const { from, to } = alignedPeriod(period, now());
      const [hours, dimensions] = await Promise.all([
        visits.linkHours(link.id, new Date(from), new Date(to)),
        visits.linkDimensions(link.id, new Date(from), new Date(to)),
      ]);
      const step = period.granularity === 'hour' ? HOUR : DAY;
      const start = period.granularity === 'hour' ? hourOf : dayOf;
      const buckets = new Map<number, { humans: number; bots: number }>();
      for (let t = from; t < to; t += step) buckets.set(t, { humans: 0, bots: 0 });
      let humans = 0;
      let bots = 0;
      let uniqueVisitors = 0;
      let detailDropped = 0;
      for (const h of hours) {
        const bucket = buckets.get(start(h.t));
        if (bucket) {
          bucket.humans += h.humans;
          bucket.bots += h.bots;
        }
        humans += h.humans;
        bots += h.bots;
        uniqueVisitors += h.uniques;
        detailDropped += h.undetailed;
      }
      const lists = topLists(dimensions);
      const everyCountry = dimensions
        .filter((c) => c.dimension === 'countries' && c.value !== '')
        .map((c) => ({ name: c.value, count: c.count }))
        .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
      const variants = variantFigures(dimensions);
      return {
        from: new Date(from),
        to: new Date(to),
        granularity: period.granularity,
        visits: { total: humans + bots, humans, bots, uniqueVisitors, detailDropped },
        lastVisitAt: link.lastVisitAt,
        series: [...buckets].map(([t, b]) => ({ t: new Date(t), humans: b.humans, bots: b.bots })),
        ...lists,
        everyCountry,
        variants,
      };
    },

    async forInstance(span, owner) {
      const hourly = typeof span !== 'number' && span.granularity === 'hour';
      const [of, step] = hourly ? [hourOf, HOUR] : [dayOf, DAY];
      const to = typeof span === 'number' ? dayOf(now()) + DAY : of(span.to.getTime() - 1) + step;
      const from = typeof span === 'number' ? to - span * DAY : of(span.from.getTime());
      const byDomain = owner === undefined && severalDomains();
      const [{ tallies, created, topLinks, domains }, totals] = await Promise.all([
        hourly ? hourFigures(from, to, owner, byDomain) : dayFigures(from, to, owner, byDomain),
        visits.totals(owner),
      ]);
      const byDay = new Map<number, InstanceStats['days'][number]>();
      for (let t = from; t < to; t += step) byDay.set(t, { t: new Date(t), linksCreated: 0, humans: 0, bots: 0, uniqueVisitors: 0 });
      for (const d of tallies) {
        const day = byDay.get(d.t);
        if (day) Object.assign(day, { humans: d.humans, bots: d.bots, uniqueVisitors: d.uniques });
      }
      for (const c of created) {
        const day = byDay.get(c.t);
        if (day) day.linksCreated = c.count;
      }
      const period = { linksCreated: 0, humans: 0, bots: 0, uniqueVisitors: 0, detailDropped: 0 };
      for (const d of tallies) period.detailDropped += d.undetailed;
      for (const d of byDay.values()) {
        period.linksCreated += d.linksCreated;
        period.humans += d.humans;
        period.bots += d.bots;
        period.uniqueVisitors += d.uniqueVisitors;
      }
      return {
        from: new Date(from),
        to: new Date(to),
        granularity: hourly ? 'hour' : 'day',
        links: totals.links,
        humansAllTime: totals.humans,
        period,
        days: [...byDay.values()],
        topLinks,
        domains,
      };
    },

    figuresFor(actor, span, owner) {
      return stats.forInstance(span, isAdmin(actor) ? owner : actor.userId);
    },

    visits: (from, to) => visits.allVisits(from, to),

    async totalsOf(links) {
      const rows = await visits.linkTotals(links.map((link) => link.id));
      return new Map(rows.map((row) => [row.linkId, { humans: row.humans, bots: row.bots }]));
    },

    visitPageFor: (actor, scope, limit, offset) =>
      visits.visitPage({ ...scope, owner: isAdmin(actor) ? undefined : actor.userId }, limit, offset),

    tagsFor: (actor) => visits.tagTotals(isAdmin(actor) ? undefined : actor.userId),

    async allTimeFor(actor) {
      const { humans, bots } = await visits.totals(isAdmin(actor) ? undefined : actor.userId);
      return { humans, bots };
    },
  };
  return stats;
}

/** The period's bounds in ms, widened to whole hours or days; defaults end with the current one. */
export function alignedPeriod(period: StatsPeriod, at: number): { from: number; to: number } {
  const { granularity } = period;
  const start = granularity === 'hour' ? hourOf : dayOf;
  const step = granularity === 'hour' ? HOUR : DAY;
  const to = period.to ? start(period.to.getTime() - 1) + step : start(at) + step;
  const from = period.from ? start(period.from.getTime()) : to - DEFAULT_SPAN[granularity];
  if (from >= to) throw new AppError('invalid', '"from" must be before "to"', 'from');
  if (to - from > MAX_SPAN[granularity]) {
    const most = granularity === 'hour' ? '31 days by the hour' : '3,700 days by the day';
    throw new AppError('invalid', `the period is too long: at most ${most}`, 'from');
  }
  return { from, to };
}

/** The top lists of a link's stats: every breakdown, and its redirect rules. */
const LISTED = [...BREAKDOWNS, 'rules'] as const;
type Listed = (typeof LISTED)[number];

/** Each listed dimension's values by count, then name; past TOP the rest is one "other" entry. */
function topLists(counts: readonly DimensionCount[]): Record<Listed, Entry[]> {
  const lists = Object.fromEntries(LISTED.map((d) => [d, [] as Entry[]])) as Record<Listed, Entry[]>;
  for (const c of counts) lists[c.dimension as Listed]?.push({ name: nameOf(c.dimension, c.value), count: c.count });
  for (const dimension of LISTED) {
    const list = lists[dimension].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
    if (list.length > TOP) {
      const rest = list.splice(TOP - 1);
      list.push({ name: 'other', count: rest.reduce((sum, e) => sum + e.count, 0) });
    }
  }
  return lists;
}

/** The variants' figures from their three dimensions, most visited first, then by URL. */
function variantFigures(counts: readonly DimensionCount[]): VariantFigures[] {
  const byUrl = new Map<string, VariantFigures>();
  const field = { variant_visits: 'visits', variant_visitors: 'uniqueVisitors', variant_humans: 'humans' } as const;
  for (const c of counts) {
    if (c.dimension !== 'variant_visits' && c.dimension !== 'variant_visitors' && c.dimension !== 'variant_humans') continue;
    let figures = byUrl.get(c.value);
    if (figures === undefined) byUrl.set(c.value, (figures = { url: c.value, visits: 0, uniqueVisitors: 0, humans: 0 }));
    figures[field[c.dimension]] += c.count;
  }
  return [...byUrl.values()].sort((a, b) => b.visits - a.visits || a.url.localeCompare(b.url));
}

function nameOf(dimension: Dimension, value: string): string {
  if (value !== '') return value;
  return dimension === 'referrers' ? 'direct' : 'unknown';
}
