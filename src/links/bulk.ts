import type { Actor } from '../auth/actor.ts';
import { AppError } from '../core/errors.ts';
import type { LinkAddress, Link } from './link.ts';
import { PAGE_SIZE } from './list-query.ts';
import type { LinkManagement } from './manage.ts';

/** What the list's bulk form does to the links chosen: one change each, as the link's own page would make it. */
export type BulkChange =
  | { kind: 'enable' }
  | { kind: 'disable' }
  | { kind: 'tag'; tag: string }
  | { kind: 'untag'; tag: string }
  | { kind: 'move'; host: string }
  | { kind: 'delete' };

/** The most links one bulk request names: a page of the list at its longest. */
export const BULK_MOST = PAGE_SIZE.max;

/** A link a bulk change left as it was, and why (the error its one-by-one change gave). */
export interface BulkFailure {
  link: Link;
  error: AppError;
}

/**
 * The links at `addresses`, each as the actor sees it (their own; any for an admin). Throws AppError:
 * 'invalid' for none or more than BULK_MOST, 'not_found' naming every code the actor has no link at, so
 * that nothing is done to a selection that is not all theirs (another's link is not found, as one by one).
 */
export async function chosenLinks(links: LinkManagement, actor: Actor, addresses: readonly LinkAddress[]): Promise<Link[]> {
  if (addresses.length === 0) throw new AppError('invalid', 'no link is selected: tick the links to change first', 'link');
  if (addresses.length > BULK_MOST)
    throw new AppError('invalid', `at most ${BULK_MOST} links at once (${addresses.length} are selected)`, 'link');
  const found = await Promise.all(addresses.map((a) => links.linkByCode(actor, a.code, a.domain)));
  const missing = addresses.filter((_, i) => found[i] === undefined).map((a) => JSON.stringify(a.code));
  if (missing.length > 0)
    throw new AppError('not_found', `no link of yours has the code ${missing.join(', ')}; nothing was changed`, 'link');
  return found.filter((link) => link !== undefined);
}

/**
 * Makes `change` to each link through the same use case its own page uses (editLink, deleteLink), so the
 * same checks, cache invalidation and audit entries follow. The changes run together: the store's group
 * commit writes them in a transaction or two, each link in its own savepoint, instead of one synced
 * transaction a link. A link the change cannot be made to (deleted already, a code taken on the domain it
 * would move to, a tag too many) is left as it was and returned among `failed`; the others are changed.
 */
export async function changeLinks(
  links: LinkManagement,
  actor: Actor,
  chosen: readonly Link[],
  change: BulkChange,
): Promise<{ changed: Link[]; failed: BulkFailure[] }> {
  const outcomes = await Promise.all(
    chosen.map(async (link): Promise<AppError | null> => {
      try {
        if (change.kind === 'delete') {
          const { deleted } = await links.deleteLink(actor, link.code, link.domain);
          if (!deleted) throw new AppError('gone', `the link "${link.code}" was deleted already`);
        } else await links.editLink(actor, link.code, editOf(link, change), link.domain);
        return null;
      } catch (err) {
        if (!(err instanceof AppError) || err.code === 'internal') throw err;
        return err;
      }
    }),
  );
  return {
    changed: chosen.filter((_, i) => outcomes[i] === null),
    failed: chosen.flatMap((link, i) => {
      const error = outcomes[i];
      return error ? [{ link, error }] : [];
    }),
  };
}

/** The edit (editLink's input) that makes `change` to `link`. */
function editOf(link: Link, change: Exclude<BulkChange, { kind: 'delete' }>): Record<string, unknown> {
  if (change.kind === 'enable' || change.kind === 'disable') return { enabled: change.kind === 'enable' };
  if (change.kind === 'move') return { domain: change.host };
  if (change.kind === 'tag') return { tags: [...link.tags, change.tag] };
  return { tags: link.tags.filter((t) => t !== change.tag) };
}
