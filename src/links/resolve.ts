import type { RedirectCache } from '../cache/redirect-cache.ts';
import type { LinkStore } from '../store/ports.ts';
import type { Target } from './link.ts';

export interface ResolveDeps {
  links: LinkStore;
  cache: RedirectCache;
}

/** Change-log entries kept behind the newest one, for processes that poll less often. */
const CHANGES_KEPT = 10_000;

export type LinkResolver = ReturnType<typeof linkResolver>;

/** The redirect's lookup: the cache first, answered synchronously, then the store. */
export function linkResolver({ links, cache }: ResolveDeps) {
  return {
    /**
     * The target, from the cache or from a store that answers at once; `null` if the code is known not to
     * exist; `undefined` if only `lookup` can tell.
     */
    resolveAtOnce(code: string): Target | null | undefined {
      const cached = cache.get(code);
      if (cached !== undefined || !links.targetByCodeAtOnce) return cached;
      const target = links.targetByCodeAtOnce(code);
      cache.remember(code, target);
      return target ?? null;
    },

    /** Asks the store, and remembers the answer (from a code's second lookup on). */
    async lookup(code: string): Promise<Target | undefined> {
      const target = await links.targetByCode(code);
      cache.remember(code, target);
      return target;
    },
  };
}

/**
 * Follows the store's change log, dropping from this process's cache the codes that any process (a CLI
 * command, another worker) edited or deleted. `poll` from one timer; it holds where it has read up to.
 */
export async function followChanges({ links, cache }: ResolveDeps): Promise<{ poll(): Promise<void> }> {
  let seen = await links.lastChange();
  return {
    async poll() {
      const changes = await links.changesAfter(seen);
      if (changes.length === 0) return;
      for (const c of changes) cache.forget(c.code);
      seen = changes.at(-1)?.seq ?? seen;
      await links.forgetChangesUpTo(seen - CHANGES_KEPT);
    },
  };
}
