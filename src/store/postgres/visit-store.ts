import type { DimensionSum, VisitBatch, VisitSum } from '../../visits/rollup.ts';
import type { DimensionCount, DomainTally, LinkTally, StoredVisit, VisitTally } from '../../visits/visit.ts';
import { DAY, dayOf, DIMENSIONS, hourOf, type Dimension } from '../../visits/visit.ts';
import type { LinkTotal, ScopedVisit, TagTotal, VisitStore } from '../ports.ts';
import type { Database, Querier } from './database.ts';
import * as q from './queries.ts';

/** Raw visits read per query when they are exported. */
const PAGE = 1000;

type VisitRow = Omit<StoredVisit, 'at'> & { at: number };

export interface PostgresVisitStore extends VisitStore {
  /** Resolves once every visit write handed over so far is committed (or failed). */
  idle(): Promise<void>;
}

/** The instance's statement and its parameters, or one owner's (their id the last parameter). */
function scoped(instance: string, ofOwner: string, params: unknown[], owner: number | undefined): [string, unknown[]] {
  return owner === undefined ? [instance, params] : [ofOwner, [...params, owner]];
}

/**
 * Visits on a PostgreSQL pool. Rollups only ever add, so nodes flushing at once never overwrite each other.
 * Dimensions are stored as their index in DIMENSIONS (a shipped index never changes meaning; new dimensions
 * are appended). `handover` is a background writer's name for itself: each write keeps its receipt under it
 * (visit_handovers), in the write's transaction, and a write its receipt shows committed is not made again.
 */
export function createPostgresVisitStore(db: Database, options: { handover?: string } = {}): PostgresVisitStore {
  const { handover } = options;
  const writes = new Set<Promise<unknown>>();
  function track<T>(written: Promise<T>): Promise<T> {
    writes.add(written);
    void written.finally(() => writes.delete(written)).catch(() => undefined);
    return written;
  }

  async function writeBatch(tx: Querier, batch: VisitBatch): Promise<void> {
    // A visitor new for its link and day is one unique visitor, in the hour and on the day it was seen.
    const uniques = new Map<string, number>();
    // Copies: a batch is tried again after a deadlock, and must then add what it added the first time.
    const dimensions = batch.dimensions.slice();
    const dimensionDays = batch.dimensionDays.slice();
    if (batch.visitors.length > 0) {
      const sightings = new Map(batch.visitors.map((v) => [`${v.linkId} ${v.day} ${v.hash.toString('hex')}`, v]));
      const { rows } = await tx.query<{ day: number; linkId: number; hash: Buffer }>(
        q.INSERT_VISITORS,
        columns(batch.visitors, (v) => [v.day, v.linkId, v.hash]),
      );
      for (const v of rows) {
        const seen = sightings.get(`${v.linkId} ${v.day} ${v.hash.toString('hex')}`);
        const hour = seen?.hour;
        for (const key of [`h ${v.linkId} ${hour}`, `d ${v.linkId} ${v.day}`]) uniques.set(key, (uniques.get(key) ?? 0) + 1);
        // A unique visitor of the A/B split's variant it went to: one more row of each breakdown to add.
        if (seen !== undefined && seen.variant !== null && hour !== undefined) {
          const visitor = { linkId: v.linkId, dimension: 'variant_visitors' as const, value: seen.variant, count: 1 };
          dimensions.push({ ...visitor, hour });
          dimensionDays.push({ ...visitor, hour: v.day });
        }
      }
    }
    await addSums(tx, { hours: batch.hours, days: batch.days, dimensions, dimensionDays }, uniques);
    await upsert(tx, q.ADD_LINK_VISITS, batch.links, (c) => [c.id, c.count, c.lastVisitAt]);
    await upsert(tx, q.INSERT_VISITS, batch.visits, (v) => [
      v.linkId,
      v.at,
      v.bot,
      v.referrer,
      v.browser,
      v.os,
      v.device,
      v.country,
      v.language,
    ]);
  }

  return {
    offload: () => false,

    addVisits: (batch, receipt) =>
      track(
        db.transaction(async (tx) => {
          if (handover !== undefined && receipt !== undefined) {
            const { rowCount } = await tx.query(q.SET_HANDOVER, [handover, receipt.from, receipt.to, receipt.written]);
            if (rowCount === 0) return;
          }
          await writeBatch(tx, batch);
        }),
      ),

    async pruneVisits(before, visitorDaysBefore, limit) {
      return track(
        (async () => {
          const deleted = (await db.query(q.DELETE_VISITS_BEFORE, [before.getTime(), limit])).rowCount ?? 0;
          await db.query(q.DELETE_VISITORS_BEFORE, [visitorDaysBefore.getTime()]);
          await db.query(q.DELETE_VISITOR_SALTS_BEFORE, [visitorDaysBefore.getTime()]);
          return deleted;
        })(),
      );
    },

    visitorSalt: async (day) => (await db.query<{ salt: Buffer }>(q.VISITOR_SALT, [day])).rows[0]?.salt,

    async addVisitorSalt(day, salt) {
      await db.query(q.ADD_VISITOR_SALT, [day, salt]);
    },

    countVisitsBefore: async (before) => (await db.query<{ count: number }>(q.COUNT_VISITS_BEFORE, [before.getTime()])).rows[0]?.count ?? 0,

    linkHours: async (linkId, from, to) => (await db.query<VisitTally>(q.LINK_HOURS, [linkId, from.getTime(), to.getTime()])).rows,

    async linkDimensions(linkId, from, to) {
      // Whole days read the daily rollup: 24 times fewer rows.
      const byDay = from.getTime() === dayOf(from.getTime()) && to.getTime() === dayOf(to.getTime());
      const { rows } = await db.query<{ dimension: number; value: string; count: number }>(
        byDay ? q.LINK_DIMENSION_DAYS : q.LINK_DIMENSIONS,
        [linkId, hourOf(from.getTime()), to.getTime()],
      );
      return rows.map((row): DimensionCount => ({ dimension: DIMENSIONS[row.dimension] as Dimension, value: row.value, count: row.count }));
    },

    dayTotals: async (from, to, owner) =>
      (await db.query<VisitTally>(...scoped(q.DAY_TOTALS, q.OWNER_DAY_TOTALS, [from.getTime(), to.getTime()], owner))).rows,

    async topLinks(from, to, limit, owner) {
      const days = Math.ceil((to.getTime() - from.getTime()) / DAY);
      return (await db.query<LinkTally>(...scoped(q.TOP_LINKS, q.OWNER_TOP_LINKS, [from.getTime(), to.getTime(), limit, days], owner)))
        .rows;
    },

    domainTotals: async (from, to) => (await db.query<DomainTally>(q.DOMAIN_TOTALS, [from.getTime(), to.getTime()])).rows,

    totals: async (owner) =>
      (await db.query<{ links: number; humans: number; bots: number }>(...scoped(q.INSTANCE_TOTALS, q.OWNER_TOTALS, [], owner)))
        .rows[0] ?? { links: 0, humans: 0, bots: 0 },

    linkTotals: async (linkIds) => (linkIds.length === 0 ? [] : (await db.query<LinkTotal>(q.LINK_TOTALS, [linkIds])).rows),

    tagTotals: async (owner) => (await db.query<TagTotal>(q.TAG_TOTALS, [owner ?? null])).rows,

    async visitPage(scope, limit, offset) {
      const values = [scope.linkId, scope.tag, scope.domain, scope.owner].map((v) => v ?? null);
      const params = [...values, scope.from, scope.to, scope.humansOnly];
      const [rows, count] = await Promise.all([
        db.query<Omit<ScopedVisit, 'at'> & { at: number }>(q.SCOPED_VISITS_PAGE, [...params, limit, offset]),
        db.query<{ count: number }>(q.SCOPED_VISITS_COUNT, params),
      ]);
      return { visits: rows.rows.map((row) => ({ ...row, at: new Date(row.at) })), total: count.rows[0]?.count ?? 0 };
    },

    async hourFigures(from, to, limit, owner, byDomain) {
      const period = [from.getTime(), to.getTime()];
      const [totals, created, topLinks, domains] = await Promise.all([
        db.query<VisitTally>(...scoped(q.HOUR_TOTALS, q.OWNER_HOUR_TOTALS, period, owner)),
        db.query<{ t: number; count: number }>(q.LINKS_CREATED_PER_HOUR, [...period, owner ?? null]),
        db.query<LinkTally>(...scoped(q.HOUR_TOP_LINKS, q.OWNER_HOUR_TOP_LINKS, [...period, limit], owner)),
        byDomain ? db.query<DomainTally>(q.HOUR_DOMAIN_TOTALS, period) : { rows: [] },
      ]);
      return { totals: totals.rows, created: created.rows, topLinks: topLinks.rows, domains: domains.rows };
    },

    linksCreatedPerDay: async (from, to, owner) =>
      (
        await db.query<{ t: number; count: number }>(
          ...scoped(q.LINKS_CREATED_PER_DAY, q.OWNER_LINKS_CREATED_PER_DAY, [from.getTime(), to.getTime()], owner),
        )
      ).rows,

    async *allVisits(from, to) {
      // Visits are written in link order within a flush: the export reads them by time.
      for (let after = { at: Number.MIN_SAFE_INTEGER, id: 0 }; ;) {
        const { rows } = await db.query<VisitRow>(q.VISITS_PAGE, [after.at, after.id, from.getTime(), to.getTime(), PAGE]);
        for (const row of rows) yield { ...row, at: new Date(row.at) };
        if (rows.length < PAGE) return;
        const last = rows.at(-1)!;
        after = { at: last.at, id: last.id };
      }
    },

    async idle() {
      await Promise.allSettled([...writes]);
    },
  };
}

/** Runs `sql` over `rows`, one array per column, unless there are none. */
async function upsert<T>(tx: Querier, sql: string, rows: readonly T[], row: (r: T) => unknown[]): Promise<void> {
  if (rows.length > 0) await tx.query(sql, columns(rows, row));
}

/**
 * Adds a flush's or an import's sums to the rollups (hours, days, the owners' days, each breakdown's hours and
 * days), with `uniques` the unique visitors of a link's hour (`h <link> <hour>`) or day (`d <link> <day>`).
 */
export async function addSums(
  tx: Querier,
  sums: Pick<VisitBatch, 'hours' | 'days' | 'dimensions' | 'dimensionDays'>,
  uniques: ReadonlyMap<string, number> = new Map(),
): Promise<void> {
  const sum = (s: VisitSum, key: string) => [s.humans, s.bots, uniques.get(key) ?? 0, s.undetailedHumans, s.undetailedBots];
  await upsert(tx, q.ADD_VISIT_HOURS, sums.hours, (h) => [h.linkId, h.t, ...sum(h, `h ${h.linkId} ${h.t}`)]);
  const day = (d: VisitSum) => [d.t, d.linkId, ...sum(d, `d ${d.linkId} ${d.t}`)];
  await upsert(tx, q.ADD_VISIT_DAYS, sums.days, day);
  await upsert(tx, q.ADD_VISIT_TOTALS, sums.days, day);
  const dimension = (d: DimensionSum) => [d.linkId, d.hour, DIMENSIONS.indexOf(d.dimension), d.value, d.count];
  await upsert(tx, q.ADD_VISIT_DIMENSIONS, sums.dimensions, dimension);
  await upsert(tx, q.ADD_VISIT_DIMENSION_DAYS, sums.dimensionDays, dimension);
}

/** Rows as one array per column: a whole rollup goes in one statement (unnest), whatever its size. */
export function columns<T>(rows: readonly T[], row: (r: T) => unknown[]): unknown[][] {
  const out: unknown[][] = [];
  for (const r of rows) {
    row(r).forEach((value, i) => (out[i] ??= []).push(value));
  }
  return out;
}
