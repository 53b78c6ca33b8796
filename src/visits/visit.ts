/** Visits of one link, merged: what the store adds to its counts. */
export interface VisitCount {
  id: number;
  count: number;
  /** Milliseconds since the epoch. */
  lastVisitAt: number;
}

/** Adds `count` visits at `at` to link `id`'s entry in `counts`. */
export function addCount(counts: Map<number, VisitCount>, id: number, count: number, at: number): void {
  const c = counts.get(id);
  if (c) {
    c.count += count;
    c.lastVisitAt = Math.max(c.lastVisitAt, at);
  } else {
    counts.set(id, { id, count, lastVisitAt: at });
  }
}

/** Counts in link order: neighbouring ids share a page, so one transaction rewrites fewer pages. */
export function inLinkOrder(counts: Map<number, VisitCount>): VisitCount[] {
  return [...counts.values()].sort((a, b) => a.id - b.id);
}
