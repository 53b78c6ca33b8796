import type { RedirectCache } from '../cache/redirect-cache.ts';
import type { LinkStore } from '../store/ports.ts';
import type { LinkChange, Target } from './link.ts';
import { robotsOf } from './robots.ts';

export interface ResolveDeps {
  links: LinkStore;
  cache: RedirectCache;
}

export interface FollowDeps extends ResolveDeps {
  /** Called when a domain was added, edited or removed: the process reloads its domains. */
  domainsChanged: () => void;
}

/** Change-log entries kept behind the newest one, for processes that poll less often. */
const CHANGES_KEPT = 10_000;

/** Entries below the newest seen that are still looked for, in case they commit after it. */
const LATE_ENTRIES = 64;

/**
 * How long a robots.txt is kept at most: edits reach it through the change log at once, but a link another
 * process creates is in no change log (as the negative cache, it is seen when this runs out).
 */
const ROBOTS_MAX_AGE = 60_000;

export type LinkResolver = ReturnType<typeof linkResolver>;

/** The redirect's lookup: the cache first, answered synchronously, then the store. */
export function linkResolver({ links, cache }: ResolveDeps) {
  return {
    /**
     * The target at this address (domain id, code), from the cache or from a store that answers at once;
     * `null` if the address is known to have no link; `undefined` if only `lookup` can tell.
     */
    resolveAtOnce(domain: number, code: string): Target | null | undefined {
      const cached = cache.get(domain, code);
      if (cached !== undefined || !links.targetByAddressAtOnce) return cached;
      const target = links.targetByAddressAtOnce(domain, code);
      cache.remember(domain, code, target);
      return target ?? null;
    },

    /** The robots.txt of a domain at `at`: remembered until a link of it changes, one it lists expires or one it waits for starts. */
    async robotsText(domain: number, at: number): Promise<string> {
      const cached = cache.robots(domain, at);
      if (cached) return cached.text;
      const robots = robotsOf(await links.crawlableLinks(domain), at);
      cache.rememberRobots(domain, { text: robots.text, until: Math.min(robots.until ?? Infinity, at + ROBOTS_MAX_AGE) });
      return robots.text;
    },

    /** Asks the store, and remembers the answer (from an address's second lookup on). */
    async lookup(domain: number, code: string): Promise<Target | undefined> {
      const target = await links.targetByAddress(domain, code);
      cache.remember(domain, code, target);
      return target;
    },
  };
}

/**
 * Follows the store's change log, dropping from this process's cache the addresses that any process (a CLI
 * command, another worker or node) edited, deleted or moved, and reloading its domains when one changed. `poll` from one timer; it holds where it has read up to.
 * Entries are numbered when written but may commit out of order (PostgreSQL's sequences, several nodes):
 * each poll reads again the last LATE_ENTRIES below the newest one seen, for those that committed late.
 */
export async function followChanges({ links, cache, domainsChanged }: FollowDeps): Promise<{ poll(): Promise<void> }> {
  let seen = await links.lastChange();
  /** Entries within LATE_ENTRIES of `seen` already applied. */
  const applied = new Set<number>();
  // A backend that pushes changes makes them immediate; the poll still catches what a lost connection missed.
  const apply = (change: Omit<LinkChange, 'seq'>): void => {
    if (change.code === null) domainsChanged();
    else cache.forget(change.domain, change.code);
  };
  links.onChange?.(apply);
  return {
    async poll() {
      const changes = await links.changesAfter(Math.max(0, seen - LATE_ENTRIES));
      let fresh = false;
      for (const c of changes) {
        if (c.seq <= seen - LATE_ENTRIES || applied.has(c.seq)) continue;
        apply(c);
        applied.add(c.seq);
        fresh = true;
      }
      if (!fresh) return;
      seen = Math.max(seen, ...changes.map((c) => c.seq));
      for (const seq of applied) if (seq <= seen - LATE_ENTRIES) applied.delete(seq);
      await links.forgetChangesUpTo(seen - CHANGES_KEPT);
    },
  };
}
