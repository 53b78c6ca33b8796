import type { Database } from 'better-sqlite3';
import type { Durability } from '../../config.ts';
import type { VisitBatch } from '../../visits/rollup.ts';
import type { DimensionCount, LinkTally, StoredVisit, VisitTally, DomainTally } from '../../visits/visit.ts';
import type { VisitReceipt } from '../../visits/visit-handover.ts';
import { DAY, dayOf, DIMENSIONS, hourOf, type Dimension } from '../../visits/visit.ts';
import type { LinkTotal, ScopedVisit, TagTotal, VisitStore } from '../ports.ts';
import { connectionSync } from './database.ts';
import { outsideTransaction } from './outside-transaction.ts';
import * as q from './queries.ts';
import { rollupWrites } from './rollup-writes.ts';
import type { WriteHealth } from './write-health.ts';

/** Raw visits read per query when they are exported. */
const PAGE = 1000;

type VisitRow = Omit<StoredVisit, 'at'> & { at: number };

export interface SqliteVisitStore extends Omit<VisitStore, 'offload'> {
  /** Resolves once every visit write handed over so far is committed. */
  idle(): Promise<void>;
}

export interface SqliteVisitStoreOptions {
  /** The one the connection was opened with. Default full. */
  durability?: Durability;
  /** The background writer's name for itself: each write keeps its receipt under it (visit_handovers). */
  handover?: string;
}

/**
 * Visits on one SQLite connection. Dimensions are stored as their index in DIMENSIONS (a shipped index
 * never changes meaning; new dimensions are appended). Writes report to `health`.
 */
export function createSqliteVisitStore(db: Database, health: WriteHealth, options: SqliteVisitStoreOptions = {}): SqliteVisitStore {
  const { handover } = options;
  const rollups = rollupWrites(db);
  const insertVisitor = db.prepare<[number, number, Buffer]>(q.INSERT_VISITOR);
  const deleteVisits = db.prepare<[number, number]>(q.DELETE_VISITS_BEFORE);
  const deleteVisitors = db.prepare<[number]>(q.DELETE_VISITORS_BEFORE);
  const deleteSalts = db.prepare<[number]>(q.DELETE_VISITOR_SALTS_BEFORE);
  const visitorSalt = db.prepare<[number], Buffer>(q.VISITOR_SALT).pluck();
  const addVisitorSalt = db.prepare<[number, Buffer]>(q.ADD_VISITOR_SALT);
  const countVisitsBefore = db.prepare<[number], number>(q.COUNT_VISITS_BEFORE).pluck();
  const linkHours = db.prepare<[number, number, number], VisitTally>(q.LINK_HOURS);
  const linkDimensions = db.prepare<[number, number, number], { dimension: number; value: string; count: number }>(q.LINK_DIMENSIONS);
  const linkDimensionDays = db.prepare<[number, number, number], { dimension: number; value: string; count: number }>(
    q.LINK_DIMENSION_DAYS,
  );
  const dayTotals = db.prepare<[number, number], VisitTally>(q.DAY_TOTALS);
  const ownerDayTotals = db.prepare<[number, number, number], VisitTally>(q.OWNER_DAY_TOTALS);
  const topLinks = db.prepare<[{ from: number; to: number; limit: number; days: number }], LinkTally>(q.TOP_LINKS);
  const ownerTopLinks = db.prepare<[{ from: number; to: number; limit: number; days: number; owner: number }], LinkTally>(
    q.OWNER_TOP_LINKS,
  );
  const totals = db.prepare<[], { links: number; humans: number; bots: number }>(q.INSTANCE_TOTALS);
  const ownerTotals = db.prepare<[{ owner: number }], { links: number; humans: number; bots: number }>(q.OWNER_TOTALS);
  const linkTotals = db.prepare<[string], LinkTotal>(q.LINK_TOTALS);
  const tagTotals = db.prepare<[{ owner: number | null }], TagTotal>(q.TAG_TOTALS);
  type ScopeParams = Record<'linkId' | 'tag' | 'domain' | 'owner', number | string | null> & {
    from: number;
    to: number;
    humansOnly: number;
  };
  const scopedVisits = db.prepare<[ScopeParams & { limit: number; offset: number }], Omit<ScopedVisit, 'at'> & { at: number }>(
    q.SCOPED_VISITS_PAGE,
  );
  const scopedCount = db.prepare<[ScopeParams], number>(q.SCOPED_VISITS_COUNT).pluck();
  const domainTotals = db.prepare<[{ from: number; to: number }], DomainTally>(q.DOMAIN_TOTALS);
  type HourParams = { from: number; to: number; owner: number | null };
  const hourTotals = db.prepare<[{ from: number; to: number }], VisitTally>(q.HOUR_TOTALS);
  const ownerHourTotals = db.prepare<[HourParams], VisitTally>(q.OWNER_HOUR_TOTALS);
  const hourTopLinks = db.prepare<[{ from: number; to: number; limit: number }], LinkTally>(q.HOUR_TOP_LINKS);
  const ownerHourTopLinks = db.prepare<[HourParams & { limit: number }], LinkTally>(q.OWNER_HOUR_TOP_LINKS);
  const createdPerHour = db.prepare<[HourParams], { t: number; count: number }>(q.LINKS_CREATED_PER_HOUR);
  const hourDomainTotals = db.prepare<[{ from: number; to: number }], DomainTally>(q.HOUR_DOMAIN_TOTALS);
  const createdPerDay = db.prepare<[number, number], { t: number; count: number }>(q.LINKS_CREATED_PER_DAY);
  const ownerCreatedPerDay = db.prepare<[number, number, number], { t: number; count: number }>(q.OWNER_LINKS_CREATED_PER_DAY);
  const visitsPage = db.prepare<[{ at: number; id: number; from: number; to: number; limit: number }], VisitRow>(q.VISITS_PAGE);
  const syncLess = db.prepare(q.SYNC_WITHOUT_WAITING);
  const syncDefault = db.prepare(connectionSync(options.durability ?? 'full'));
  const setHandover = db.prepare(q.SET_HANDOVER);
  const wantsClicks = db.prepare<[], number>(q.WANTS_CLICKS).pluck();
  const lastVisitId = db.prepare<[], number>(q.LAST_VISIT_ID).pluck();
  const recordClicks = db.prepare<[number]>(q.RECORD_CLICKS);

  const writeBatch = db.transaction((batch: VisitBatch, receipt: VisitReceipt | undefined) => {
    // A visitor new for its link and day is one unique visitor, in the hour and on the day it was seen, and
    // one of the A/B split's variant it went to.
    const uniques = new Map<string, number>();
    const dimensions = [...batch.dimensions];
    const dimensionDays = [...batch.dimensionDays];
    for (const v of batch.visitors) {
      if (insertVisitor.run(v.day, v.linkId, v.hash).changes === 0) continue;
      for (const key of [`h ${v.linkId} ${v.hour}`, `d ${v.linkId} ${v.day}`]) uniques.set(key, (uniques.get(key) ?? 0) + 1);
      if (v.variant === null) continue;
      dimensions.push({ linkId: v.linkId, hour: v.hour, dimension: 'variant_visitors', value: v.variant, count: 1 });
      dimensionDays.push({ linkId: v.linkId, hour: v.day, dimension: 'variant_visitors', value: v.variant, count: 1 });
    }
    rollups.addSums({ hours: batch.hours, days: batch.days, dimensions, dimensionDays }, uniques);
    rollups.addLinkVisits(batch.links);
    // The raw rows get ids past the last one (this transaction holds the write lock): a hook's link.clicked
    // events are recorded for them in the same transaction, in one statement (webhooks/deliver.ts sends them).
    const clicksAfter = batch.visits.length > 0 && wantsClicks.get() === 1 ? (lastVisitId.get() ?? 0) : undefined;
    rollups.insertVisits(batch.visits);
    if (clicksAfter !== undefined) recordClicks.run(clicksAfter);
    if (handover !== undefined && receipt !== undefined) setHandover.run({ writer: handover, ...receipt });
  });

  const writes = new Set<Promise<void>>();
  /** Visits do not wait for the disk: a power cut may cost the last flushes, and nothing queues behind an fsync. */
  function track(work: () => void): Promise<void> {
    const written = outsideTransaction(db, health, () => {
      syncLess.run();
      try {
        work();
      } finally {
        syncDefault.run();
      }
    });
    writes.add(written);
    void written.finally(() => writes.delete(written)).catch(() => undefined);
    return written;
  }

  return {
    addVisits: (batch, receipt) => track(() => writeBatch.immediate(batch, receipt)),

    async pruneVisits(before, visitorDaysBefore, limit) {
      let deleted = 0;
      await track(() => {
        deleted = deleteVisits.run(before.getTime(), limit).changes;
        deleteVisitors.run(visitorDaysBefore.getTime());
        deleteSalts.run(visitorDaysBefore.getTime());
      });
      return deleted;
    },

    countVisitsBefore: async (before) => countVisitsBefore.get(before.getTime()) ?? 0,

    visitorSalt: async (day) => visitorSalt.get(day),

    addVisitorSalt: (day, salt) =>
      outsideTransaction(db, health, () => {
        addVisitorSalt.run(day, salt);
      }),

    linkHours: async (linkId, from, to) => linkHours.all(linkId, from.getTime(), to.getTime()),

    async linkDimensions(linkId, from, to) {
      // Whole days read the daily rollup: 24 times fewer rows.
      const byDay = from.getTime() === dayOf(from.getTime()) && to.getTime() === dayOf(to.getTime());
      return (byDay ? linkDimensionDays : linkDimensions)
        .all(linkId, hourOf(from.getTime()), to.getTime())
        .map((row): DimensionCount => ({ dimension: DIMENSIONS[row.dimension] as Dimension, value: row.value, count: row.count }));
    },

    dayTotals: async (from, to, owner) =>
      owner === undefined ? dayTotals.all(from.getTime(), to.getTime()) : ownerDayTotals.all(from.getTime(), to.getTime(), owner),

    async topLinks(from, to, limit, owner) {
      const period = { from: from.getTime(), to: to.getTime(), limit, days: Math.ceil((to.getTime() - from.getTime()) / DAY) };
      return owner === undefined ? topLinks.all(period) : ownerTopLinks.all({ ...period, owner });
    },

    domainTotals: async (from, to) => domainTotals.all({ from: from.getTime(), to: to.getTime() }),

    totals: async (owner) => (owner === undefined ? totals.get() : ownerTotals.get({ owner })) ?? { links: 0, humans: 0, bots: 0 },

    linkTotals: async (linkIds) => (linkIds.length === 0 ? [] : linkTotals.all(JSON.stringify(linkIds))),

    tagTotals: async (owner) => tagTotals.all({ owner: owner ?? null }),

    async visitPage(scope, limit, offset) {
      const params: ScopeParams = {
        linkId: scope.linkId ?? null,
        tag: scope.tag ?? null,
        domain: scope.domain ?? null,
        owner: scope.owner ?? null,
        from: scope.from,
        to: scope.to,
        humansOnly: scope.humansOnly ? 1 : 0,
      };
      const rows = scopedVisits.all({ ...params, limit, offset });
      return { visits: rows.map((row) => ({ ...row, at: new Date(row.at) })), total: scopedCount.get(params) ?? 0 };
    },

    async hourFigures(from, to, limit, owner, byDomain) {
      const period = { from: from.getTime(), to: to.getTime() };
      const scoped = { ...period, owner: owner ?? null };
      return {
        totals: owner === undefined ? hourTotals.all(period) : ownerHourTotals.all(scoped),
        created: createdPerHour.all(scoped),
        topLinks: owner === undefined ? hourTopLinks.all({ ...period, limit }) : ownerHourTopLinks.all({ ...scoped, limit }),
        domains: byDomain ? hourDomainTotals.all(period) : [],
      };
    },

    linksCreatedPerDay: async (from, to, owner) =>
      owner === undefined ? createdPerDay.all(from.getTime(), to.getTime()) : ownerCreatedPerDay.all(from.getTime(), to.getTime(), owner),

    async *allVisits(from, to) {
      // Visits are written in link order within a flush: the export reads them by time.
      for (let after = { at: Number.MIN_SAFE_INTEGER, id: 0 }; ;) {
        const rows = visitsPage.all({ ...after, from: from.getTime(), to: to.getTime(), limit: PAGE });
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
