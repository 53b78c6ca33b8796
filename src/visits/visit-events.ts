import { addCount, inLinkOrder, type VisitCount } from './visit.ts';

/**
 * Visits as the request path records them, one event per followed redirect, in columns: recording one
 * allocates nothing, and a flush hands the columns over whole (to the background writer, over IPC).
 * A per-visit detail added later (referrer, user agent) becomes one more column.
 */
export interface VisitEvents {
  readonly length: number;
  readonly linkIds: Float64Array;
  /** Milliseconds since the epoch. */
  readonly times: Float64Array;
}

const INITIAL_CAPACITY = 1024;

/** An append-only log of visit events that grows as needed and is emptied by `take`. */
export class VisitLog {
  #linkIds = new Float64Array(INITIAL_CAPACITY);
  #times = new Float64Array(INITIAL_CAPACITY);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  record(linkId: number, at: number): void {
    if (this.#length === this.#linkIds.length) this.#grow();
    this.#linkIds[this.#length] = linkId;
    this.#times[this.#length++] = at;
  }

  append(events: VisitEvents): void {
    for (let i = 0; i < events.length; i++) this.record(events.linkIds[i]!, events.times[i]!);
  }

  /** The events recorded so far, copied out; the log is empty afterwards. */
  take(): VisitEvents {
    const events = { length: this.#length, linkIds: this.#linkIds.slice(0, this.#length), times: this.#times.slice(0, this.#length) };
    this.#length = 0;
    return events;
  }

  #grow(): void {
    const linkIds = new Float64Array(this.#linkIds.length * 2);
    const times = new Float64Array(this.#times.length * 2);
    linkIds.set(this.#linkIds);
    times.set(this.#times);
    this.#linkIds = linkIds;
    this.#times = times;
  }
}

/** Events merged into one count per link, with its latest time, in link order. */
export function countVisits(events: VisitEvents): VisitCount[] {
  const counts = new Map<number, VisitCount>();
  for (let i = 0; i < events.length; i++) addCount(counts, events.linkIds[i]!, 1, events.times[i]!);
  return inLinkOrder(counts);
}
