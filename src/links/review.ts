import type { AuditTrail } from '../audit/audit.ts';
import { isAdmin, type Actor } from '../auth/actor.ts';
import { matchBlocklist, type BlocklistMatch, type BlocklistSource } from '../blocklist/blocklist.ts';
import type { RedirectCache } from '../cache/redirect-cache.ts';
import { AppError } from '../core/errors.ts';
import { DEFAULT_DOMAIN } from '../domains/domain.ts';
import type { DomainRegistry } from '../domains/registry.ts';
import type { LinkStore } from '../store/ports.ts';
import { CODE } from './alias-rules.ts';
import { goneMessage, notFoundMessage, type Link } from './link.ts';
import { linkSubject } from './link-subject.ts';
import { maySee } from './manage.ts';

/** The most waiting links one look at the queue shows. */
export const QUEUE_SIZE = 100;

/** A link waiting for review, and what the blocklists in force say of its target now (undefined: not listed). */
export interface WaitingLink {
  link: Link;
  listed: BlocklistMatch | undefined;
}

/** What an admin decides of a waiting link. */
export type Verdict = 'approve' | 'reject';

export interface ReviewDeps {
  links: LinkStore;
  cache: RedirectCache;
  domains: DomainRegistry;
  blocklist?: BlocklistSource;
  audit: Pick<AuditTrail, 'record'>;
  now: () => number;
}

export type LinkReview = ReturnType<typeof linkReview>;

/**
 * The review queue: the links waiting for an admin, and the admin's verdict on each. Approving lets the link
 * redirect; rejecting refuses it for good (410, like a disabled link), its code never handed out again. Either
 * way every process drops the link from its redirect cache, as for any edit (the change log follows `review`).
 */
export function linkReview({ links, cache, domains, blocklist, audit, now }: ReviewDeps) {
  /** Throws AppError('forbidden') unless the actor is an admin. */
  function adminOnly(actor: Actor): void {
    if (!isAdmin(actor)) throw new AppError('forbidden', 'only an admin reviews links');
  }

  return {
    /** Live links waiting for review, in every process on the database. */
    pendingCount: (): Promise<number> => links.pendingCount(),

    /** The newest QUEUE_SIZE waiting links, each with the blocklists' word on its target. Admins only. */
    async waiting(actor: Actor): Promise<WaitingLink[]> {
      adminOnly(actor);
      const found = await links.listLinks({ review: 'pending', limit: QUEUE_SIZE });
      return found.map((link) => ({ link, listed: blocklist && matchBlocklist(blocklist.current, link.url) }));
    },

    /**
     * Approves or rejects the link `code` on `domain`, records it in the audit trail and returns the link as
     * stored. Throws AppError: 'not_found' (another's link, for a member, as everywhere), 'forbidden' (a
     * member's own), 'gone' (deleted), 'conflict' (not waiting for review: approved, never held, or rejected).
     */
    async decide(actor: Actor, code: string, verdict: Verdict, domain = DEFAULT_DOMAIN): Promise<Link> {
      const link = CODE.test(code) ? await links.linkByAddress(domain, code) : undefined;
      if (!link || !maySee(actor, link)) throw new AppError('not_found', notFoundMessage(code));
      adminOnly(actor);
      const stateError = (found: Link): AppError =>
        found.deletedAt
          ? new AppError('gone', goneMessage(code))
          : new AppError(
              'conflict',
              found.review === 'rejected'
                ? `the link "${code}" was rejected already; a rejected link stays retired`
                : `the link "${code}" is not waiting for review`,
            );
      if (link.deletedAt || link.review !== 'pending') throw stateError(link);
      const decided = await links.write(async (tx) => {
        if (!(await tx.setReview(link.id, 'pending', verdict === 'approve' ? null : 'rejected', new Date(now())))) return undefined;
        return tx.linkByAddress(domain, code);
      });
      cache.forget(domain, code);
      if (!decided) {
        // Another admin decided (or someone deleted it) between the read and the write.
        const current = await links.linkByAddress(domain, code);
        throw current ? stateError(current) : new AppError('not_found', notFoundMessage(code));
      }
      await audit.record(actor, verdict === 'approve' ? 'link.approve' : 'link.reject', linkSubject(decided, domains));
      return decided;
    },
  };
}
