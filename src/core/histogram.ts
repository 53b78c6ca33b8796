/** A histogram's figures as Prometheus shows them: cumulative counts by upper bound, in seconds. */
export interface HistogramSnapshot {
  /** Upper bounds in seconds, ascending; the last bucket (+Inf) is `count`. */
  bounds: readonly number[];
  /** Observations at or below each bound. */
  cumulative: number[];
  count: number;
  /** Sum of the observations, in seconds. */
  sum: number;
}

/**
 * Durations counted by bucket in one preallocated typed array, so that an observation allocates nothing:
 * the redirect observes every answer. Read at scrape time (`snapshot`).
 */
export class Histogram {
  readonly #bounds: readonly number[];
  /** The bounds in milliseconds, what `observe` compares with. */
  readonly #limits: Float64Array;
  /** One count per bound, then the overflow bucket, then the sum in ms. */
  readonly #counts: Float64Array;

  /** `bounds`: upper bounds in seconds, ascending. */
  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
    this.#limits = Float64Array.from(bounds, (seconds) => seconds * 1000);
    this.#counts = new Float64Array(bounds.length + 2);
  }

  /** One duration, in milliseconds. */
  observe(ms: number): void {
    const limits = this.#limits;
    let i = 0;
    while (i < limits.length && ms > limits[i]!) i++;
    this.#counts[i]! += 1;
    this.#counts[limits.length + 1]! += ms;
  }

  snapshot(): HistogramSnapshot {
    const n = this.#bounds.length;
    const cumulative: number[] = [];
    let running = 0;
    for (let i = 0; i < n; i++) cumulative.push((running += this.#counts[i]!));
    return { bounds: this.#bounds, cumulative, count: running + this.#counts[n]!, sum: this.#counts[n + 1]! / 1000 };
  }
}
