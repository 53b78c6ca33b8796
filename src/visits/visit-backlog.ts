import { hourOf } from './visit.ts';
import { FIELDS, VisitLog, type VisitEvents } from './visit-events.ts';

const USER_AGENT = FIELDS.indexOf('userAgent');

/** Visits of one link in one hour, by people or by bots, whose detail was dropped. */
interface Count {
  /** The latest of them. */
  at: number;
  /** One of theirs: it tells the writer whether they were bots. */
  userAgent: string;
  visits: number;
}

/**
 * Flushes of visit events waiting for a writer that is behind, bounded: up to `limit` events wait with their
 * detail (counting those sent and not yet written); past it, a flush's visits are only counted, per link,
 * hour and whether bots made them. A count is never dropped, only the detail (referrer, country, device,
 * visitor…), and `dropped` says how many visits lost it. The counts go before the next flush: a handful of
 * events, however many visits they stand for.
 */
export class VisitBacklog {
  readonly #limit: number;
  readonly #isBot: (userAgent: string) => boolean;
  #flushes: VisitEvents[] = [];
  /** Events of #flushes. */
  #events = 0;
  /** By hour, then by link id × 2 (+ 1 for bots). */
  #counts = new Map<number, Map<number, Count>>();
  #countEvents = 0;
  #dropped = 0;

  constructor(limit: number, isBot: (userAgent: string) => boolean) {
    this.#limit = limit;
    this.#isBot = isBot;
  }

  /** Events waiting: each flush's, and one per count. */
  get length(): number {
    return this.#events + this.#countEvents;
  }

  /** Visits whose detail was dropped since the start. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Adds a flush at the end; only its counts when it would take the events waiting with detail, `elsewhere` too, past the limit. */
  add(events: VisitEvents, elsewhere: number): void {
    if (events.length === 0) return;
    if (this.#events + elsewhere + events.length <= this.#limit) {
      this.#flushes.push(events);
      this.#events += events.length;
    } else this.#count(events);
  }

  /** Puts a flush first, with its detail: events a writer was sent and did not write. */
  unshift(events: VisitEvents): void {
    if (events.length === 0) return;
    this.#flushes.unshift(events);
    this.#events += events.length;
  }

  /**
   * Takes what goes next: the counts (at most `most` of them; the rest stay first), or else the oldest flush;
   * undefined when nothing waits. Counts left here meet the visits counted after them: a link visited again
   * in the same hour adds to its count, not another event.
   */
  shift(most = Number.POSITIVE_INFINITY): VisitEvents | undefined {
    if (this.#countEvents > 0) {
      const log = new VisitLog();
      let taken = 0;
      for (const [hour, counts] of this.#counts) {
        for (const [key, count] of counts) {
          if (taken === most) break;
          log.recordUndetailed(Math.floor(key / 2), count.at, count.userAgent, count.visits);
          counts.delete(key);
          taken++;
        }
        if (counts.size > 0) break;
        this.#counts.delete(hour);
      }
      this.#countEvents -= taken;
      return log.take();
    }
    const events = this.#flushes.shift();
    if (events !== undefined) this.#events -= events.length;
    return events;
  }

  /** Keeps only the counts of everything waiting (at shutdown, when the detail would take too long to write). */
  countAll(): void {
    for (const events of this.#flushes) this.#count(events);
    this.#flushes = [];
    this.#events = 0;
  }

  #count(events: VisitEvents): void {
    const { linkIds, times, undetailed, strings, fields } = events;
    // Each distinct user agent of the flush is checked once.
    const bots: Array<boolean | undefined> = new Array<boolean | undefined>(strings.length);
    for (let i = 0; i < events.length; i++) {
      const ua = fields[i * FIELDS.length + USER_AGENT]!;
      const userAgent = strings[ua]!;
      const bot = (bots[ua] ??= this.#isBot(userAgent));
      const visits = undetailed?.[i] || 1;
      // A visit that had its detail loses it here; a count stays what it was.
      if (!undetailed?.[i]) this.#dropped++;
      const at = times[i]!;
      const hour = hourOf(at);
      let counts = this.#counts.get(hour);
      if (counts === undefined) this.#counts.set(hour, (counts = new Map()));
      const key = linkIds[i]! * 2 + (bot ? 1 : 0);
      const count = counts.get(key);
      if (count === undefined) {
        counts.set(key, { at, userAgent, visits });
        this.#countEvents++;
      } else {
        count.visits += visits;
        if (at > count.at) count.at = at;
      }
    }
  }
}
