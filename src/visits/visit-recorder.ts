import { isUnavailable } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { VisitStore } from '../store/ports.ts';
import { primaryLanguage, referrerHost, type ClientKind } from './classify.ts';
import type { CountryOf } from './geo.ts';
import { rollUp, type UndetailedVisits } from './rollup.ts';
import { DAY, dayOf, type Visit } from './visit.ts';
import { NO_EVENTS, stringsOf, VisitLog, type VisitEvents } from './visit-events.ts';
import { VisitBacklog } from './visit-backlog.ts';
import { passOrder } from './visit-handover.ts';
import { visitorHash, type VisitorSalts } from './visitor-salts.ts';

/**
 * Visits written per transaction, one per turn of the event loop: about 10 ms of work, so the server's
 * own writes never wait long for the lock.
 */
const CHUNK = 500;

/** How long a failed write waits before it is tried again (a busy database is not hammered). */
const RETRY_MS = 1000;

/** Raw visits deleted per statement when pruning, so no single transaction grows large. */
const PRUNE_BATCH = 5000;

/**
 * Visits kept in memory while writes fail (a full disk, a lock held by another program), as compact events
 * (README, Operations). Beyond it newer visits are only counted, per link, hour and bot, their detail
 * dropped (visit-backlog.ts), rather than memory grow without bound for as long as the fault lasts.
 */
const MAX_WAITING_WHILE_FAILING = 1_000_000;

export interface VisitRecorderOptions {
  store: VisitStore;
  /** Classifies a user agent (cached). */
  classify: (userAgent: string) => ClientKind;
  countryOf: CountryOf;
  /** Days raw visits are kept; 0 keeps none (the rollups are kept whatever this is). */
  retentionDays: number;
  now: () => number;
  /** The visitor hash's daily salts, shared through the store with every process. */
  salts: VisitorSalts;
  log: Logger;
  chunk?: number;
  /** MAX_WAITING_WHILE_FAILING unless given (tests). */
  maxWaitingWhileFailing?: number;
}

export interface VisitRecorder {
  /** Queues a flush of events to be classified and written; never throws. */
  add(events: VisitEvents): void;
  /** Events added and not yet written (an event that stands for visits only counted is one). */
  readonly pending: number;
  /** Visits only counted since the start, their detail dropped, because too many waited while writes failed. */
  readonly detailDropped: number;
  /** Resolves once everything added so far is written, or has failed and waits for its retry. */
  idle(): Promise<void>;
  /** Deletes raw visits older than the retention period and visitor hashes whose salt is gone; returns the visits deleted. */
  prune(): Promise<number>;
  /** The raw visits older than the retention period: what `prune` would delete now. */
  expired(): Promise<number>;
}

/**
 * Turns visit events into what the database may hold, off the request path: the user agent becomes a
 * browser, an OS, a device or a bot name; the client address a country and, with the user agent, the link
 * and the day's salt (visitor-salts.ts, the one the redirect draws a split's variant with), a visitor hash. Neither the address nor the user agent goes further than this.
 * Writes the classified visits and their rollups a chunk per transaction; a chunk that fails is kept and
 * tried again every second, with everything added meanwhile: up to MAX_WAITING_WHILE_FAILING visits with
 * their detail, and beyond it their counts.
 */
export function createVisitRecorder(options: VisitRecorderOptions): VisitRecorder {
  const { store, classify, countryOf, now, log } = options;
  const { salts } = options;
  const chunkSize = options.chunk ?? CHUNK;
  const maxWaiting = options.maxWaitingWhileFailing ?? MAX_WAITING_WHILE_FAILING;
  /** Flushes of events waiting for the next pass: a backlog stays in this compact form until it is written. */
  let waiting: VisitEvents[] = [];
  /**
   * The events being written, where they start in the stream of every event added, the order they are
   * written in (by link), and how many are written.
   */
  let pass: VisitEvents = NO_EVENTS;
  let passFrom = 0;
  let order = new Uint32Array(0);
  let passWritten = 0;
  let writing: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  /** Since a write failed and until one succeeds: its failure is logged once, and so is its end. */
  let failing = false;
  /** Past maxWaiting while writes fail: visits only counted; they go with the next pass. */
  const overflow = new VisitBacklog(0, (userAgent) => classify(userAgent).bot !== null);
  /** overflow.dropped when writes began to fail. */
  let droppedBefore = 0;

  /** Events order[from…to) as what the database may hold: visits, and visits only counted. */
  function classified(events: VisitEvents, from: number, to: number): { visits: Visit[]; undetailed: UndetailedVisits[] } {
    // Each distinct string of the chunk is looked at once.
    const kinds = new Map<string, ClientKind>();
    const referrers = new Map<string, string | null>();
    const languages = new Map<string, string | null>();
    const countries = new Map<string, string | null>();
    const visits: Visit[] = [];
    const undetailed: UndetailedVisits[] = [];
    for (let k = from; k < to; k++) {
      const i = order[k]!;
      const { client, userAgent, referrer, language, variant, rule } = stringsOf(events, i);
      const linkId = events.linkIds[i]!;
      const time = events.times[i]!;
      let kind = kinds.get(userAgent);
      if (!kind) kinds.set(userAgent, (kind = classify(userAgent)));
      const count = events.undetailed?.[i] ?? 0;
      if (count > 0) {
        undetailed.push({ linkId, at: time, bot: kind.bot !== null, visits: count });
        continue;
      }
      if (kind.bot !== null) {
        visits.push({
          linkId,
          at: time,
          bot: kind.bot,
          referrer: null,
          browser: null,
          os: null,
          device: null,
          country: null,
          language: null,
          visitor: null,
          variant: variant === '' ? null : variant,
          rule: rule === '' ? null : rule,
        });
        continue;
      }
      if (!referrers.has(referrer)) referrers.set(referrer, referrerHost(referrer));
      if (!languages.has(language)) languages.set(language, primaryLanguage(language));
      if (!countries.has(client)) countries.set(client, countryOf(client));
      visits.push({
        linkId,
        at: time,
        bot: null,
        referrer: referrers.get(referrer)!,
        browser: kind.browser,
        os: kind.os,
        device: kind.device,
        country: countries.get(client)!,
        language: languages.get(language)!,
        visitor: visitorHash(salts.saltOf(dayOf(time))!, client, userAgent, linkId),
        variant: variant === '' ? null : variant,
        rule: rule === '' ? null : rule,
      });
    }
    return { visits, undetailed };
  }

  /** Starts a pass over everything waiting. */
  function nextPass(): void {
    const counts = overflow.shift();
    if (counts !== undefined) waiting.push(counts);
    passFrom += pass.length;
    if (waiting.length === 1) pass = waiting[0]!;
    else {
      const merged = new VisitLog();
      for (const events of waiting) merged.append(events);
      pass = merged.take();
    }
    waiting = [];
    order = passOrder(pass.linkIds);
    passWritten = 0;
  }

  /**
   * Writes what waits a pass at a time. A pass takes every waiting event in link order (time order within
   * a link), so each chunk covers a range of links: the rollups are keyed by link first, and a pass
   * rewrites each of their pages about once instead of once per chunk, and a link's visits in a pass add
   * up to fewer rows. Every chunk is still one transaction holding its visits' raw rows and all their
   * rollups, and its receipt (how far it takes the stream). Events are classified a chunk at a time, so a
   * backlog is held as compact events.
   */
  async function writeAll(): Promise<void> {
    for (;;) {
      if (passWritten === pass.length) {
        if (waiting.length === 0 && overflow.length === 0) return;
        nextPass();
      }
      const end = Math.min(passWritten + chunkSize, pass.length);
      try {
        // The days' salts first (read, or made, in the store): classifying needs them at hand.
        for (let k = passWritten; k < end; k++) {
          const day = dayOf(pass.times[order[k]!]!);
          if (salts.saltOf(day) === undefined) await salts.load(day);
        }
        const receipt = { from: passFrom, to: passFrom + pass.length, written: end };
        const { visits, undetailed } = classified(pass, passWritten, end);
        await store.addVisits(rollUp(visits, options.retentionDays > 0, undetailed), receipt);
      } catch (err) {
        // A database that cannot be written was logged by its store, with the cause.
        const reason = isUnavailable(err) ? (err as Error).message : err;
        if (!failing) {
          log.error('could not write visits; will retry every second, keeping them in memory', { visits: pending(), err: reason });
          droppedBefore = overflow.dropped;
        }
        failing = true;
        retry ??= setTimeout(() => {
          retry = undefined;
          write();
        }, RETRY_MS).unref();
        return;
      }
      passWritten = end;
      if (failing) {
        log.info('visits are written again', { waiting: pending(), detailDropped: overflow.dropped - droppedBefore });
        failing = false;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  const pending = (): number => waiting.reduce((sum, events) => sum + events.length, pass.length - passWritten + overflow.length);

  const retentionCutoff = (): Date => new Date(now() - options.retentionDays * DAY);

  function write(): void {
    writing ??= writeAll().finally(() => {
      writing = undefined;
    });
  }

  return {
    add(events) {
      if (events.length === 0) return;
      if (failing && pending() + events.length > maxWaiting) {
        if (overflow.dropped === droppedBefore)
          log.error('too many visits wait for the database; only counting new ones, without their detail, until it takes writes again', {
            visits: pending(),
          });
        overflow.add(events, 0);
        return;
      }
      waiting.push(events);
      if (retry === undefined) write();
    },

    get pending() {
      return pending();
    },

    get detailDropped() {
      return overflow.dropped;
    },

    async idle() {
      while (writing) await writing;
    },

    expired: () => store.countVisitsBefore(retentionCutoff()),

    async prune() {
      const at = now();
      const before = retentionCutoff();
      // Yesterday's hashes stay: its salt is kept for visits flushed just after midnight.
      const visitorDaysBefore = new Date(dayOf(at) - DAY);
      let deleted = 0;
      for (;;) {
        const batch = await store.pruneVisits(before, visitorDaysBefore, PRUNE_BATCH);
        deleted += batch;
        if (batch < PRUNE_BATCH) return deleted;
      }
    },
  };
}
