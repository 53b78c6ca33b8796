import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { sendSeeOther } from '../../http/respond.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { actorOf, readForm } from '../session.ts';
import { formError, formFailure, textOf, type FormError } from '../forms.ts';
import { showPage } from './pages.ts';

/** A tag's page paths: its rename form posts to `href`, its deletion is asked at `deleteHref`. */
function tagPaths(tag: string) {
  const href = `/tags/${encodeURIComponent(tag)}`;
  return { href, deleteHref: `${href}/delete`, linksHref: `/links?${new URLSearchParams({ tag })}` };
}

/**
 * /tags: the tags of the actor's links (an admin: everyone's) with how many live links carry each; each row
 * renames its tag (a name another tag has merges the two) or, after asking, deletes it from the links.
 */
export function tagsUiHandlers(web: WebServices) {
  const tagOf = (ctx: Context): string => ctx.params['tag'] ?? '';

  /** The list; `failed` is the row whose rename was refused, with the name given and why. */
  async function showTags(ctx: Context, status: number, failed: { tag: string; name: string; error: FormError } | null): Promise<void> {
    const counts = await web.links.tagCounts(actorOf(ctx));
    const query = (name: string): string | null => (typeof ctx.query[name] === 'string' ? ctx.query[name] : null);
    // What the last change did, as the redirect after it says (the sentence is the page's: the query only names).
    const links = Number(query('links'));
    const changed = Number.isSafeInteger(links) && links > 0 ? count(links) : null;
    const renamed = query('renamed');
    const to = query('to');
    const deleted = query('deleted');
    showPage(ctx, web, status, 'tags', {
      title: 'Tags',
      section: 'links',
      tags: counts.map(({ tag, count }) => ({ tag, count, ...tagPaths(tag), failed: failed?.tag === tag ? failed : null })),
      done: changed && renamed && to ? { renamed, to, links: changed } : changed && deleted ? { deleted, links: changed } : null,
    });
  }

  return {
    async listTags(ctx: Context): Promise<void> {
      await showTags(ctx, 200, null);
    },

    /** Renames (or merges) the tag, then back to the list, saying what happened. */
    async renameTag(ctx: Context): Promise<void> {
      const tag = tagOf(ctx);
      const name = textOf(await readForm(ctx, web), 'name');
      try {
        const renamed = await web.links.renameTag(actorOf(ctx), tag, name);
        sendSeeOther(ctx.res, `/tags?${new URLSearchParams({ renamed: renamed.from, to: renamed.to, links: String(renamed.links) })}`);
      } catch (err) {
        const error = formFailure(err);
        await showTags(ctx, STATUS[error.code], { tag, name, error: formError(error, ['name']) });
      }
    },

    /** The page that asks before taking the tag off its links. */
    async confirmDelete(ctx: Context): Promise<void> {
      const tag = tagOf(ctx);
      const found = (await web.links.tagCounts(actorOf(ctx))).find((t) => t.tag === tag);
      if (!found) throw new AppError('not_found', `no live link of yours has the tag ${JSON.stringify(tag)}`);
      showPage(ctx, web, 200, 'tag-delete', {
        title: `Delete the tag “${tag}”?`,
        section: 'links',
        tag,
        count: count(found.count),
        ...tagPaths(tag),
      });
    },

    async deleteTag(ctx: Context): Promise<void> {
      await readForm(ctx, web);
      const deleted = await web.links.deleteTag(actorOf(ctx), tagOf(ctx));
      sendSeeOther(ctx.res, `/tags?${new URLSearchParams({ deleted: deleted.tag, links: String(deleted.links) })}`);
    },
  };
}

function count(links: number): string {
  return `${links.toLocaleString('en-US')} ${links === 1 ? 'link' : 'links'}`;
}
