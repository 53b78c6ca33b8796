import type { Context } from 'koa';
import type { Services } from '../../app.ts';
import { AppError, STATUS } from '../../errors.ts';
import { sendPage } from '../respond.ts';

/** The HTML pages: the shorten form, its result, and a link's page. */
export function pageHandlers(s: Services) {
  const showHome = (ctx: Context, status: number, form: Record<string, unknown>, error?: AppError): void => {
    sendPage(
      ctx,
      status,
      s.render('home', { title: 'Shorten a link', form, error: error ? { message: error.message, field: error.field } : null }),
    );
  };

  return {
    showForm(ctx: Context): void {
      showHome(ctx, 200, { url: '', alias: '' });
    },

    async createLinkFromForm(ctx: Context): Promise<void> {
      const body = (ctx.request.body ?? {}) as Record<string, unknown>;
      const url = typeof body['url'] === 'string' ? body['url'] : '';
      const alias = typeof body['alias'] === 'string' ? body['alias'].trim() : '';
      try {
        const { link, created } = await s.creations.create({ url, alias: alias === '' ? undefined : alias });
        ctx.status = 303;
        ctx.redirect(`/links/${link.code}?${created ? 'created' : 'existing'}`);
      } catch (err) {
        if (!(err instanceof AppError) || err.code === 'internal') throw err;
        showHome(ctx, STATUS[err.code], { url, alias }, err);
      }
    },

    showLink(ctx: Context): void {
      const code = ctx.params['code'] ?? '';
      const link = s.links.existingLink(code);
      const notice = 'created' in ctx.query ? 'created' : 'existing' in ctx.query ? 'existing' : null;
      sendPage(ctx, 200, s.render('link', { title: `Link ${code}`, link, shortUrl: s.links.shortUrl(link.code), notice }));
    },
  };
}
