import type { RedirectCache } from '../cache/redirect-cache.ts';
import { AppError } from '../errors.ts';
import type { LinkStore } from '../store/ports.ts';
import { notFoundMessage, type Link, type LinkQuery } from './link.ts';

export interface ManageDeps {
  now: () => number;
  links: LinkStore;
  cache: RedirectCache;
}

export type LinkManagement = ReturnType<typeof linkManagement>;

/** The error for a code no link has. */
function linkNotFound(code: string): AppError {
  return new AppError('not_found', notFoundMessage(code));
}

/** Reading, listing, deleting and pruning links. */
export function linkManagement({ now, links, cache }: ManageDeps) {
  /** The link with this code, deleted or not. Throws AppError('not_found'). */
  async function existingLink(code: string): Promise<Link> {
    const link = await links.linkByCode(code);
    if (!link) throw linkNotFound(code);
    return link;
  }

  return {
    existingLink,

    linkByCode: (code: string): Promise<Link | undefined> => links.linkByCode(code),

    listLinks: (query: LinkQuery): Promise<Link[]> => links.listLinks(query),

    /** Marks the link deleted: its code keeps answering, with 410. Throws AppError('not_found'). */
    async deleteLink(code: string): Promise<{ link: Link; deleted: boolean }> {
      const link = await existingLink(code);
      const deleted = await links.write((tx) => tx.deleteLink(link.id, new Date(now())));
      cache.forget(code);
      return { link, deleted };
    },

    /** Links nobody visited (or created, if never visited) in the last `age` ms; deleted unless `dryRun`. */
    async prune(age: number, dryRun: boolean): Promise<Link[]> {
      const stale = await links.write(async (tx) => {
        const at = new Date(now());
        const found = await tx.unvisitedSince(new Date(at.getTime() - age));
        if (!dryRun) for (const link of found) await tx.deleteLink(link.id, at);
        return found;
      });
      if (!dryRun) for (const link of stale) cache.forget(link.code);
      return stale;
    },
  };
}
