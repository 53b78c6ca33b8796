import { addCount, dayOf, DIMENSIONS, hourOf, inLinkOrder, valueIn, type Dimension, type Visit, type VisitCount } from './visit.ts';

/** Visits of one link in one hour (or day): what a rollup row adds. */
export interface VisitSum {
  linkId: number;
  /** Start of the hour or the day, ms since the epoch (UTC). */
  t: number;
  humans: number;
  bots: number;
  /** Of them, visits only counted, their detail dropped (visit-backlog.ts): in no breakdown. */
  undetailedHumans: number;
  undetailedBots: number;
}

/** A day's visits of one link as the store writes them: with its owner and its visitors new that day. */
export interface OwnedDay extends VisitSum {
  ownerId: number;
  uniques: number;
}

/** The days of a flush summed per owner and day: each user's figures, whose sum is the instance's. */
export function sumByOwner(days: readonly OwnedDay[]): Array<Omit<OwnedDay, 'linkId'>> {
  const sums = new Map<string, Omit<OwnedDay, 'linkId'>>();
  for (const d of days) {
    const key = `${d.ownerId} ${d.t}`;
    const sum = sums.get(key);
    if (sum) {
      sum.humans += d.humans;
      sum.bots += d.bots;
      sum.uniques += d.uniques;
      sum.undetailedHumans += d.undetailedHumans;
      sum.undetailedBots += d.undetailedBots;
    } else {
      const { t, ownerId, humans, bots, uniques, undetailedHumans, undetailedBots } = d;
      sums.set(key, { t, ownerId, humans, bots, uniques, undetailedHumans, undetailedBots });
    }
  }
  return [...sums.values()];
}

/** Visits of one link in one hour with one value of a dimension (humans; bots in `bots`). */
export interface DimensionSum {
  linkId: number;
  hour: number;
  dimension: Dimension;
  value: string;
  count: number;
}

/**
 * A visitor first seen in this batch for a link and day; the store counts it unique if it is new there, and
 * then one unique visitor of `variant` too (the A/B split's variant it went to first that day; null for none).
 */
export interface VisitorSighting {
  linkId: number;
  day: number;
  hour: number;
  hash: Buffer;
  variant: string | null;
}

/** What one flush writes in one transaction: the raw rows and the sums every rollup table adds. */
export interface VisitBatch {
  /** Raw rows, kept for the retention period; empty when none are kept. */
  visits: Visit[];
  hours: VisitSum[];
  days: VisitSum[];
  dimensions: DimensionSum[];
  /** The same breakdowns per day (`hour` is the day's start). */
  dimensionDays: DimensionSum[];
  visitors: VisitorSighting[];
  /** Human visits per link, for its all-time count and last visit. */
  links: VisitCount[];
}

/** Visits of one link whose detail was dropped (visit-backlog.ts): what is known of them. */
export interface UndetailedVisits {
  linkId: number;
  /** The latest of them, ms since the epoch; all in its hour. */
  at: number;
  bot: boolean;
  visits: number;
}

/**
 * Sums `visits`, and the visits only counted (`undetailed`: in the hours, days and link counts, as well as
 * in those rows' own counts of them, nothing else), into the rows of each rollup; `keepRaw` false leaves the
 * raw rows out.
 */
export function rollUp(visits: readonly Visit[], keepRaw: boolean, undetailed: readonly UndetailedVisits[] = []): VisitBatch {
  const hours = new Map<string, VisitSum>();
  const days = new Map<string, VisitSum>();
  const dimensions = new Map<string, DimensionSum>();
  const dimensionDays = new Map<string, DimensionSum>();
  const visitors = new Map<string, VisitorSighting>();
  const links = new Map<number, VisitCount>();
  for (const visit of visits) {
    const hour = hourOf(visit.at);
    const day = dayOf(visit.at);
    add(hours, visit.linkId, hour, visit.bot !== null);
    add(days, visit.linkId, day, visit.bot !== null);
    for (const dimension of DIMENSIONS) {
      const value = valueIn(visit, dimension);
      if (value === undefined) continue;
      count(dimensions, visit.linkId, hour, dimension, value, 1);
    }
    if (visit.bot !== null) continue;
    addCount(links, visit.linkId, 1, visit.at);
    if (visit.visitor) {
      const key = `${visit.linkId} ${day} ${visit.visitor.toString('hex')}`;
      const seen = visitors.get(key);
      if (!seen) visitors.set(key, { linkId: visit.linkId, day, hour, hash: visit.visitor, variant: visit.variant });
      else if (hour < seen.hour) {
        seen.hour = hour;
        seen.variant = visit.variant;
      }
    }
  }
  for (const u of undetailed) {
    add(hours, u.linkId, hourOf(u.at), u.bot, u.visits, true);
    add(days, u.linkId, dayOf(u.at), u.bot, u.visits, true);
    if (!u.bot) addCount(links, u.linkId, u.visits, u.at);
  }
  // A day's breakdowns are its hours' summed (fewer sums than visits to key).
  for (const sum of dimensions.values()) count(dimensionDays, sum.linkId, dayOf(sum.hour), sum.dimension, sum.value, sum.count);
  return {
    visits: keepRaw ? [...visits] : [],
    hours: [...hours.values()],
    days: [...days.values()],
    dimensions: [...dimensions.values()],
    dimensionDays: [...dimensionDays.values()],
    visitors: [...visitors.values()],
    links: inLinkOrder(links),
  };
}

function count(sums: Map<string, DimensionSum>, linkId: number, hour: number, dimension: Dimension, value: string, n: number): void {
  const key = `${linkId} ${hour} ${dimension} ${value}`;
  const sum = sums.get(key);
  if (sum) sum.count += n;
  else sums.set(key, { linkId, hour, dimension, value, count: n });
}

function add(sums: Map<string, VisitSum>, linkId: number, t: number, bot: boolean, n = 1, undetailed = false): void {
  const key = `${linkId} ${t}`;
  let sum = sums.get(key);
  if (!sum) sums.set(key, (sum = { linkId, t, humans: 0, bots: 0, undetailedHumans: 0, undetailedBots: 0 }));
  if (bot) sum.bots += n;
  else sum.humans += n;
  if (!undetailed) return;
  if (bot) sum.undetailedBots += n;
  else sum.undetailedHumans += n;
}
