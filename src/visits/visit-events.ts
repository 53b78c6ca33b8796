/**
 * Visits as the request path records them, one event per followed redirect, in columns: the link, the
 * time, four strings the request already holds (client address, user agent, referrer, accepted
 * languages), the A/B split's variant the decision chose (its URL, '' for none) and the redirect rule that
 * decided (its name, '' for a link without rules). Recording one copies references and allocates nothing;
 * nothing is parsed until the visit is off the request path.
 */
export interface VisitEvents {
  readonly length: number;
  readonly linkIds: Float64Array;
  /** Milliseconds since the epoch. */
  readonly times: Float64Array;
  /** The distinct strings of the batch; the columns below index into it. */
  readonly strings: readonly string[];
  /** Six indexes into `strings` per event, in the order of FIELDS. */
  readonly fields: Uint32Array;
  /**
   * Per event, absent when all are 0: 0 for one visit with its detail; n ≥ 1 for n visits of the link whose
   * detail was dropped because too many waited (visit-backlog.ts). Of those only the link, the latest time
   * and whether they were bots (the user agent is one of theirs; every other string is '') are kept.
   */
  readonly undetailed?: Uint32Array;
}

/** The per-visit strings, in their order in `VisitEvents.fields`. */
export const FIELDS = ['client', 'userAgent', 'referrer', 'language', 'variant', 'rule'] as const;
const WIDTH = FIELDS.length;

/** The strings of one visit; an absent header, or no variant, is ''. */
export interface VisitStrings {
  client: string;
  userAgent: string;
  referrer: string;
  language: string;
  /** The URL of the A/B split's variant the visit went to. */
  variant: string;
  /** The name of the redirect rule that decided (rules/match.ts, NO_RULE when none matched). */
  rule: string;
}

const INITIAL_CAPACITY = 1024;

/** An append-only log of visit events that grows as needed and is emptied by `take`. */
export class VisitLog {
  #linkIds = new Float64Array(INITIAL_CAPACITY);
  #times = new Float64Array(INITIAL_CAPACITY);
  #strings: string[] = new Array<string>(INITIAL_CAPACITY * WIDTH).fill('');
  /** Made by the first event without detail. */
  #undetailed: Uint32Array | undefined;
  #length = 0;

  get length(): number {
    return this.#length;
  }

  record(linkId: number, at: number, client: string, userAgent: string, referrer: string, language: string, variant = '', rule = ''): void {
    if (this.#length === this.#linkIds.length) this.#grow();
    const i = this.#length++;
    this.#linkIds[i] = linkId;
    this.#times[i] = at;
    const s = i * WIDTH;
    this.#strings[s] = client;
    this.#strings[s + 1] = userAgent;
    this.#strings[s + 2] = referrer;
    this.#strings[s + 3] = language;
    this.#strings[s + 4] = variant;
    this.#strings[s + 5] = rule;
  }

  /** Records `visits` (≥ 1) visits of a link without their detail, the latest at `at`, by `userAgent` (one of theirs). */
  recordUndetailed(linkId: number, at: number, userAgent: string, visits: number): void {
    this.record(linkId, at, '', userAgent, '', '');
    this.#undetailed ??= new Uint32Array(this.#linkIds.length);
    this.#undetailed[this.#length - 1] = visits;
  }

  append(events: VisitEvents): void {
    for (let i = 0; i < events.length; i++) this.copy(events, i);
  }

  /** Records event `i` of `events` again, every field as it was. */
  copy(events: VisitEvents, i: number): void {
    const { client, userAgent, referrer, language, variant, rule } = stringsOf(events, i);
    const undetailed = events.undetailed?.[i] ?? 0;
    if (undetailed > 0) this.recordUndetailed(events.linkIds[i]!, events.times[i]!, userAgent, undetailed);
    else this.record(events.linkIds[i]!, events.times[i]!, client, userAgent, referrer, language, variant, rule);
  }

  /**
   * The events recorded so far, copied out with each distinct string once (a burst of visits from one
   * browser sends its user agent once); the log is empty afterwards.
   */
  take(): VisitEvents {
    const length = this.#length;
    const strings: string[] = [];
    const index = new Map<string, number>();
    const fields = new Uint32Array(length * WIDTH);
    for (let s = 0; s < length * WIDTH; s++) {
      const value = this.#strings[s]!;
      let at = index.get(value);
      if (at === undefined) {
        at = strings.push(value) - 1;
        index.set(value, at);
      }
      fields[s] = at;
      this.#strings[s] = '';
    }
    const events: VisitEvents = { length, linkIds: this.#linkIds.slice(0, length), times: this.#times.slice(0, length), strings, fields };
    const undetailed = this.#undetailed;
    this.#undetailed = undefined;
    this.#length = 0;
    return undetailed === undefined ? events : { ...events, undetailed: undetailed.slice(0, length) };
  }

  #grow(): void {
    const linkIds = new Float64Array(this.#linkIds.length * 2);
    const times = new Float64Array(this.#times.length * 2);
    linkIds.set(this.#linkIds);
    times.set(this.#times);
    this.#linkIds = linkIds;
    this.#times = times;
    this.#strings.length = linkIds.length * WIDTH;
    this.#strings.fill('', this.#length * WIDTH);
    if (this.#undetailed !== undefined) {
      const undetailed = new Uint32Array(linkIds.length);
      undetailed.set(this.#undetailed);
      this.#undetailed = undetailed;
    }
  }
}

/** The strings of event `i`. */
export function stringsOf(events: VisitEvents, i: number): VisitStrings {
  const f = i * WIDTH;
  const { strings, fields } = events;
  return {
    client: strings[fields[f]!]!,
    userAgent: strings[fields[f + 1]!]!,
    referrer: strings[fields[f + 2]!]!,
    language: strings[fields[f + 3]!]!,
    variant: strings[fields[f + 4]!]!,
    rule: strings[fields[f + 5]!]!,
  };
}

/** The visits `events` stand for: one per event with its detail, n per event that stands for n without. */
export function visitsIn(events: VisitEvents): number {
  const { undetailed } = events;
  if (undetailed === undefined) return events.length;
  let visits = 0;
  for (let i = 0; i < events.length; i++) visits += undetailed[i]! || 1;
  return visits;
}

/** An empty batch. */
export const NO_EVENTS: VisitEvents = {
  length: 0,
  linkIds: new Float64Array(0),
  times: new Float64Array(0),
  strings: [],
  fields: new Uint32Array(0),
};
