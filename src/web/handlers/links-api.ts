import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { checkJsonObject, readBody } from '../../http/body.ts';
import { sendJson } from '../../http/respond.ts';
import { linkJson } from '../../links/link-json.ts';

const LINKS_PATH = '/api/v1/links';

const CREATE_FIELDS: ReadonlySet<string> = new Set(['url', 'alias']);

/** /api/v1/links */
export function linksApiHandlers(web: WebServices) {
  return {
    /** 201 with the new link's Location, or 200 with the earlier link of the same URL (dedupe). */
    async createLink(ctx: Context): Promise<void> {
      const fields = checkJsonObject(await readBody(ctx.req, ['json']), CREATE_FIELDS);
      const { link, created } = await web.creation.createLink({ url: fields['url'], alias: fields['alias'] });
      if (created) ctx.res.setHeader('Location', `${LINKS_PATH}/${link.code}`);
      sendJson(ctx.res, created ? 201 : 200, linkJson(link, web.shortUrl(link.code)));
    },

    async showLink(ctx: Context): Promise<void> {
      const link = await web.links.existingLink(ctx.params['code'] ?? '');
      sendJson(ctx.res, 200, linkJson(link, web.shortUrl(link.code)));
    },
  };
}
