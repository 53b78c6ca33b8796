import type { Database, Statement } from 'better-sqlite3';
import { FIRST_ADMIN } from '../../auth/actor.ts';
import { sumByOwner, type DimensionSum, type OwnedDay, type VisitSum } from '../../visits/rollup.ts';
import { DIMENSIONS, type Visit, type VisitCount } from '../../visits/visit.ts';
import * as q from './queries.ts';

/** Most rows one statement writes: sizes of 64, 32 … 1 are prepared, so any number of rows takes a handful of statements. */
const MOST_ROWS = 64;

/** What a flush of visits or an import adds to the rollups: hours, days, and each breakdown's hours and days. */
export interface RollupSums {
  hours: readonly VisitSum[];
  days: readonly VisitSum[];
  dimensions: readonly DimensionSum[];
  dimensionDays: readonly DimensionSum[];
}

/** Unique visitors of a link in an hour (`h <link> <hour>`) or on a day (`d <link> <day>`), where any are new. */
export type Uniques = ReadonlyMap<string, number>;

export interface RollupWrites {
  /** Adds the sums to the rollups: each day to its link's owner and to the owner's totals. */
  addSums(sums: RollupSums, uniques?: Uniques): void;
  /** Adds visits to links' all-time counts and last visits. */
  addLinkVisits(counts: readonly VisitCount[]): void;
  /** Inserts raw visits. */
  insertVisits(visits: readonly Visit[]): void;
}

const NONE: Uniques = new Map();

/**
 * The writes that add visits to a SQLite file, for the background writer's flushes (visit-store.ts) and for
 * visits imported with their links (link-store.ts). Rows go many to a statement: SQLite runs each row's upsert
 * as before, but the binding, stepping and resetting of a statement is paid once for all of them.
 */
export function rollupWrites(db: Database): RollupWrites {
  const addHours = manyRows<VisitSum & { uniques: number }>(db, q.addVisitHours, (h, v) =>
    v.push(h.linkId, h.t, h.humans, h.bots, h.uniques, h.undetailedHumans, h.undetailedBots),
  );
  const addDays = manyRows<OwnedDay>(db, q.addVisitDays, (d, v) =>
    v.push(d.t, d.linkId, d.ownerId, d.humans, d.bots, d.uniques, d.undetailedHumans, d.undetailedBots),
  );
  const addTotals = manyRows<Omit<OwnedDay, 'linkId'>>(db, q.addVisitTotals, (d, v) =>
    v.push(d.t, d.ownerId, d.humans, d.bots, d.uniques, d.undetailedHumans, d.undetailedBots),
  );
  const dimension = (d: DimensionSum, v: unknown[]): number => v.push(d.linkId, d.hour, DIMENSIONS.indexOf(d.dimension), d.value, d.count);
  const addDimensions = manyRows(db, q.addVisitDimensions, dimension);
  const addDimensionDays = manyRows(db, q.addVisitDimensionDays, dimension);
  const addLinkVisits = manyRows<VisitCount>(db, q.addVisits, (c, v) => v.push(c.id, c.count, c.lastVisitAt));
  const insertVisits = manyRows<Visit>(db, q.insertVisits, (r, v) =>
    v.push(r.linkId, r.at, r.bot, r.referrer, r.browser, r.os, r.device, r.country, r.language),
  );
  const ownersOf = statementsBySize((n) => db.prepare<unknown[], { id: number; ownerId: number }>(q.ownersOfLinks(n)));

  // One row always (two scalar subqueries), null in both on an instance without links.
  const ownerRange = db.prepare<[], { least: number | null; most: number | null }>(q.OWNER_RANGE);

  /** Each link's owner; a link is never removed, only marked deleted, so one not there counts as the first admin's. */
  function owners(linkIds: readonly number[]): Map<number, number> {
    const found = new Map<number, number>();
    // One user's instance (the first admin's alone): no link to look up, each one a random page of links.
    const { least, most } = ownerRange.get()!;
    if ((least ?? FIRST_ADMIN) === FIRST_ADMIN && (most ?? FIRST_ADMIN) === FIRST_ADMIN) return found;
    inGroups(linkIds, (from, to) => {
      for (const row of ownersOf(to - from).all(linkIds.slice(from, to))) found.set(row.id, row.ownerId);
    });
    return found;
  }

  return {
    addSums({ hours, days, dimensions, dimensionDays }, uniques = NONE) {
      addHours(hours.map((h) => ({ ...h, uniques: uniques.get(`h ${h.linkId} ${h.t}`) ?? 0 })));
      const ownerOf = owners([...new Set(days.map((d) => d.linkId))]);
      const owned = days.map((d) => ({
        ...d,
        ownerId: ownerOf.get(d.linkId) ?? FIRST_ADMIN,
        uniques: uniques.get(`d ${d.linkId} ${d.t}`) ?? 0,
      }));
      addDays(owned);
      addTotals(sumByOwner(owned));
      addDimensions(dimensions);
      addDimensionDays(dimensionDays);
    },
    addLinkVisits,
    insertVisits,
  };
}

/** Runs `sql` over rows, as few statements as the sizes prepared allow; `columns` appends a row's values. */
function manyRows<T>(
  db: Database,
  sql: (rows: number) => string,
  columns: (row: T, values: unknown[]) => void,
): (rows: readonly T[]) => void {
  const statement = statementsBySize((n) => db.prepare(sql(n)));
  return (rows) =>
    inGroups(rows, (from, to) => {
      const values: unknown[] = [];
      for (let i = from; i < to; i++) columns(rows[i]!, values);
      statement(to - from).run(values);
    });
}

/** The statement for n rows, n a power of two up to MOST_ROWS, prepared when first asked for. */
function statementsBySize<S extends Statement<unknown[], unknown>>(prepare: (rows: number) => S): (rows: number) => S {
  const bySize = new Map<number, S>();
  return (rows) => {
    let statement = bySize.get(rows);
    if (statement === undefined) bySize.set(rows, (statement = prepare(rows)));
    return statement;
  };
}

/** Splits [0, length) into groups of MOST_ROWS, then of the powers of two below it. */
function inGroups(rows: { length: number }, each: (from: number, to: number) => void): void {
  let from = 0;
  for (let size = MOST_ROWS; size >= 1; size /= 2) {
    for (; from + size <= rows.length; from += size) each(from, from + size);
  }
}
