/** Statuses are below 600, so a route's counts are one array indexed by status: counting allocates nothing. */
const STATUSES = 600;

export interface RouteCount {
  route: string;
  status: number;
  count: number;
}

/** Requests answered, by route and status, for every request whoever answers it (what /metrics will show). */
export class RequestCounter {
  readonly #byRoute = new Map<string, Float64Array>();

  count(route: string, status: number): void {
    let counts = this.#byRoute.get(route);
    if (!counts) this.#byRoute.set(route, (counts = new Float64Array(STATUSES)));
    counts[status < STATUSES ? status : 0]! += 1;
  }

  /** Every non-zero count, by route, then status. */
  snapshot(): RouteCount[] {
    const rows: RouteCount[] = [];
    for (const [route, counts] of [...this.#byRoute].sort(([a], [b]) => a.localeCompare(b))) {
      counts.forEach((count, status) => count > 0 && rows.push({ route, status, count }));
    }
    return rows;
  }
}
