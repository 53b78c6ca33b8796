import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../errors.ts';
import { readBody } from '../../http/body.ts';
import { sendPage, sendSeeOther } from '../../http/respond.ts';

/** The form's label of each field, which its error messages speak of. */
const LABELS: Record<string, string> = { url: 'Long URL', alias: 'Custom alias' };

/** The HTML pages: the shorten form, its result, and a link's page. */
export function pageHandlers(web: WebServices) {
  const showHome = (ctx: Context, status: number, form: Record<string, unknown>, error?: AppError): void => {
    const shown = error ? { message: inFormWords(error), field: error.field } : null;
    sendPage(ctx.res, status, web.render('home', { title: 'Shorten a link', form, error: shown }));
  };

  return {
    showForm(ctx: Context): void {
      showHome(ctx, 200, { url: '', alias: '' });
    },

    async createLinkFromForm(ctx: Context): Promise<void> {
      const body = (await readBody(ctx.req, ['form', 'json'])) as Record<string, unknown>;
      const url = typeof body['url'] === 'string' ? body['url'] : '';
      const alias = typeof body['alias'] === 'string' ? body['alias'].trim() : '';
      try {
        const { link, created } = await web.creation.createLink({ url, alias: alias === '' ? undefined : alias });
        sendSeeOther(ctx.res, `/links/${link.code}?${created ? 'created' : 'existing'}`);
      } catch (err) {
        if (!(err instanceof AppError) || err.code === 'internal') throw err;
        showHome(ctx, STATUS[err.code], { url, alias }, err);
      }
    },

    async showLink(ctx: Context): Promise<void> {
      const code = ctx.params['code'] ?? '';
      const link = await web.links.existingLink(code);
      const notice = 'created' in ctx.query ? 'created' : 'existing' in ctx.query ? 'existing' : null;
      sendPage(ctx.res, 200, web.render('link', { title: `Link ${code}`, link, shortUrl: web.shortUrl(link.code), notice }));
    },
  };
}

/** "url is required" becomes "Long URL is required": the message names the field as the form labels it. */
function inFormWords(error: AppError): string {
  const label = error.field ? LABELS[error.field] : undefined;
  return label && error.message.startsWith(`${error.field} `) ? label + error.message.slice(error.field!.length) : error.message;
}
