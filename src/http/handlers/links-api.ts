import type { Context } from 'koa';
import type { Services } from '../../app.ts';
import { presentLink } from '../../links/present.ts';
import { jsonObject } from '../body.ts';
import { sendJson } from '../respond.ts';

const CREATE_FIELDS: ReadonlySet<string> = new Set(['url', 'alias']);

/** /api/v1/links */
export function linksApiHandlers(s: Services) {
  return {
    async createLink(ctx: Context): Promise<void> {
      const body = jsonObject(ctx, CREATE_FIELDS);
      const { link, created } = await s.creations.create({ url: body['url'], alias: body['alias'] });
      if (created) ctx.set('Location', `/api/v1/links/${link.code}`);
      sendJson(ctx, created ? 201 : 200, presentLink(link, s.links.shortUrl(link.code)));
    },

    showLink(ctx: Context): void {
      const code = ctx.params['code'] ?? '';
      const link = s.links.existingLink(code);
      sendJson(ctx, 200, presentLink(link, s.links.shortUrl(link.code)));
    },
  };
}
