import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { BULK_BODY_LIMIT, checkJsonObject, readBody } from '../../http/body.ts';
import { sendJson, sendNoContent } from '../../http/respond.ts';
import { linkJson } from '../../links/link-json.ts';
import { OPTION_FIELDS } from '../../links/link-options.ts';
import { takeCreations } from '../creation-limit.ts';

const LINKS_PATH = '/api/v1/links';

const CREATE_FIELDS: ReadonlySet<string> = new Set(['url', 'alias', ...OPTION_FIELDS]);
const EDIT_FIELDS: ReadonlySet<string> = new Set(['url', ...OPTION_FIELDS]);

/** Most links one batch may hold. */
export const BATCH_MAX = 1000;

/** /api/v1/links and /api/v1/tags */
export function linksApiHandlers(web: WebServices) {
  const codeOf = (ctx: Context): string => ctx.params['code'] ?? '';

  return {
    /** 201 with the new link's Location, or 200 with the earlier link of the same URL (dedupe). */
    async createLink(ctx: Context): Promise<void> {
      takeCreations(ctx, web, 1);
      const fields = checkJsonObject(await readBody(ctx.req, ['json']), CREATE_FIELDS);
      const { link, created } = await web.creation.createLink({ ...fields, url: fields['url'] });
      if (created) ctx.res.setHeader('Location', `${LINKS_PATH}/${link.code}`);
      sendJson(ctx.res, created ? 201 : 200, linkJson(link, web));
    },

    /**
     * Up to BATCH_MAX links in one request, answered with one result per entry, in order: created, existing
     * (dedupe) or error with its reason. The valid ones are stored even when others fail. The body may
     * be up to BULK_BODY_LIMIT; the batch counts its links against the creation limit.
     */
    async createLinks(ctx: Context): Promise<void> {
      const body = checkJsonObject(await readBody(ctx.req, ['json'], BULK_BODY_LIMIT), new Set(['links']));
      const entries = body['links'];
      if (!Array.isArray(entries)) throw new AppError('invalid', 'links must be a list of links', 'links');
      if (entries.length === 0) throw new AppError('invalid', 'links must hold at least one link', 'links');
      if (entries.length > BATCH_MAX)
        throw new AppError('invalid', `links may hold at most ${BATCH_MAX} links, got ${entries.length}`, 'links');
      takeCreations(ctx, web, entries.length);
      const results = (
        await web.creation.createEach(entries, (entry) => {
          const fields = checkJsonObject(entry, CREATE_FIELDS);
          return { ...fields, url: fields['url'] };
        })
      ).map((result) =>
        result instanceof AppError
          ? { status: 'error', error: { code: result.code, message: result.message, ...(result.field ? { field: result.field } : {}) } }
          : { status: result.created ? 'created' : 'existing', link: linkJson(result.link, web) },
      );
      const count = (status: string) => results.filter((r) => r.status === status).length;
      sendJson(ctx.res, 200, { created: count('created'), existing: count('existing'), failed: count('error'), results });
    },

    async listLinks(ctx: Context): Promise<void> {
      const { links, next } = await web.links.listPage(ctx.query);
      sendJson(ctx.res, 200, { links: links.map((link) => linkJson(link, web)), nextCursor: next });
    },

    async showLink(ctx: Context): Promise<void> {
      const link = await web.links.existingLink(codeOf(ctx));
      sendJson(ctx.res, 200, linkJson(link, web));
    },

    /** Sets the fields given (null clears an option); the redirect follows at once. */
    async editLink(ctx: Context): Promise<void> {
      const fields = checkJsonObject(await readBody(ctx.req, ['json']), EDIT_FIELDS);
      if (Object.keys(fields).length === 0)
        throw new AppError('invalid', `give at least one field to change (${[...EDIT_FIELDS].join(', ')})`);
      const link = await web.links.editLink(codeOf(ctx), fields);
      sendJson(ctx.res, 200, linkJson(link, web));
    },

    /** 204; the code answers 410 from then on and is never handed out again. Deleting twice is a 410. */
    async deleteLink(ctx: Context): Promise<void> {
      const { deleted } = await web.links.deleteLink(codeOf(ctx));
      if (!deleted) throw new AppError('gone', `the link "${codeOf(ctx)}" was deleted already`);
      sendNoContent(ctx.res);
    },

    async listTags(ctx: Context): Promise<void> {
      sendJson(ctx.res, 200, { tags: await web.links.tagCounts() });
    },
  };
}
