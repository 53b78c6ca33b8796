import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { readBody } from '../../http/body.ts';
import { sendJson, sendNoContent } from '../../http/respond.ts';
import type { TagTotal } from '../../store/ports.ts';
import { actorOf } from '../session.ts';
import { listParam, paged, pageParams, param } from './params.ts';
import { invalidData, ShlinkProblem, tagNotFound } from './problems.ts';
import { visitsSummary } from './short-url-json.ts';

/** How Shlink's tag lists may be ordered, and the value each orders by. */
const ORDERS: Readonly<Record<string, (tag: TagTotal) => string | number>> = {
  tag: (tag) => tag.tag,
  shortUrlsCount: (tag) => tag.links,
  visits: (tag) => tag.humans + tag.bots,
  nonBotVisits: (tag) => tag.humans,
};

/** The tags `searchTerm` and `orderBy` (`tag-ASC` when absent) leave, in their order. */
function filtered(ctx: Context, tags: readonly TagTotal[], fields: readonly string[]): TagTotal[] {
  const search = param(ctx, 'searchTerm')?.trim().toLowerCase();
  const [field = 'tag', dir = 'ASC'] = (param(ctx, 'orderBy') ?? 'tag-ASC').split('-');
  const key = fields.includes(field) ? ORDERS[field] : undefined;
  if (key === undefined || (dir !== 'ASC' && dir !== 'DESC'))
    throw invalidData(['orderBy'], `orderBy must be one of ${fields.join(', ')}, then -ASC or -DESC`);
  const sign = dir === 'ASC' ? 1 : -1;
  return tags
    .filter((tag) => search === undefined || tag.tag.toLowerCase().includes(search))
    .sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      return sign * (x < y ? -1 : x > y ? 1 : a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0);
    });
}

/** /rest/v{1,2,3}/tags */
export function shlinkTagHandlers(web: WebServices) {
  return {
    /** The names of the tags on the caller's live links (an admin's: every link's); every one unless paged. */
    async listTags(ctx: Context): Promise<void> {
      const ask = pageParams(ctx, -1);
      const tags = filtered(ctx, await web.stats.tagsFor(actorOf(ctx)), ['tag']);
      const { data, pagination } = paged(ask, tags);
      sendJson(ctx.res, 200, { tags: { data: data.map((tag) => tag.tag), pagination } });
    },

    /** Each tag with its short URLs and their visits. */
    async showTagStats(ctx: Context): Promise<void> {
      const ask = pageParams(ctx, -1);
      const tags = filtered(ctx, await web.stats.tagsFor(actorOf(ctx)), Object.keys(ORDERS));
      const { data, pagination } = paged(ask, tags);
      const info = data.map((tag) => ({ tag: tag.tag, shortUrlsCount: tag.links, visitsSummary: visitsSummary(tag) }));
      sendJson(ctx.res, 200, { tags: { data: info, pagination } });
    },

    /**
     * Renames `oldName` to `newName` on the caller's links (an admin: everyone's); 204. kurz's own API merges
     * into a tag that exists, Shlink refuses with tag-conflict, and so does this one.
     */
    async renameTag(ctx: Context): Promise<void> {
      const body = await readBody(ctx.req, ['json']);
      const { oldName, newName } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      const missing = [typeof oldName === 'string' ? '' : 'oldName', typeof newName === 'string' ? '' : 'newName'].filter(Boolean);
      if (missing.length > 0) throw invalidData(missing, 'oldName and newName are required, both strings');
      const actor = actorOf(ctx);
      const [from, to] = [String(oldName), String(newName)];
      const names = new Set((await web.links.tagCounts(actor)).map((tag) => tag.tag));
      if (names.has(to.trim()) && to.trim() !== from) {
        const detail = `You cannot rename tag ${from} to ${to}, because it already exists`;
        throw new ShlinkProblem(409, 'tag-conflict', 'Tag conflict', detail, { oldName: from, newName: to });
      }
      try {
        await web.links.renameTag(actor, from, to);
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found') throw tagNotFound(from);
        throw err;
      }
      sendNoContent(ctx.res);
    },

    /** Takes each tag of `tags[]` off the caller's links (an admin: everyone's); a tag no link has is no error, as in Shlink. */
    async deleteTags(ctx: Context): Promise<void> {
      const actor = actorOf(ctx);
      for (const tag of listParam(ctx, 'tags')) {
        try {
          await web.links.deleteTag(actor, tag);
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'not_found')) throw err;
        }
      }
      sendNoContent(ctx.res);
    },
  };
}
