import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { sendSeeOther } from '../../http/respond.ts';
import { goneMessage, type Link } from '../../links/link.ts';
import { LIST_QUERY, PAGE_SIZE } from '../../links/list-query.ts';
import { readForm } from '../session.ts';
import { showPage } from './pages.ts';
import {
  formError,
  formFailure,
  formValues,
  LINK_FIELDS,
  linkInput,
  linkValues,
  textOf,
  type FormError,
  type FormValues,
} from '../forms.ts';
import { linkDetails, linkRow, redirectDefaults } from '../presenters.ts';

const EDIT_FIELDS = LINK_FIELDS.filter((f) => f !== 'alias');
/** What the link page says after a change, by the flag in its query string. */
const NOTICES = ['created', 'existing', 'saved', 'enabled', 'disabled'] as const;

/** The link pages: the list, a link's page with its edit form, turning it off and on, deleting it. */
export function linksUiHandlers(web: WebServices) {
  const codeOf = (ctx: Context): string => ctx.params['code'] ?? '';
  const pathOf = (code: string): string => `/links/${encodeURIComponent(code)}`;

  function showLinkPage(ctx: Context, status: number, link: Link, form: FormValues, error: FormError | null): void {
    const notice = NOTICES.find((flag) => flag in ctx.query) ?? null;
    showPage(ctx, web, status, 'link', {
      title: `Link ${link.code}`,
      section: 'links',
      link: linkDetails(link, web),
      notice: error ? null : notice,
      form,
      error,
      defaults: redirectDefaults(web),
    });
  }

  return {
    /** The list: search, tag filter, sort, and paging by cursor with the filters kept. */
    async listLinks(ctx: Context): Promise<void> {
      const { links, next, query } = await web.links.listPage(LIST_QUERY.parse(ctx.query));
      const [tags, blockedCount] = await Promise.all([web.links.tagCounts(), web.links.blockedCount()]);
      const filters = { q: query.search ?? '', tag: query.tag ?? '', blocked: query.blocked ? 'true' : '', sort: query.sort ?? 'created' };
      const kept = {
        ...filters,
        sort: filters.sort === 'created' ? '' : filters.sort,
        limit: query.limit === PAGE_SIZE.default ? '' : String(query.limit),
      };
      const href = (extra: Record<string, string>): string => {
        const params = new URLSearchParams(Object.entries({ ...kept, ...extra }).filter(([, v]) => v !== ''));
        return params.size === 0 ? '/links' : `/links?${params}`;
      };
      if (filters.tag !== '' && !tags.some((t) => t.tag === filters.tag)) tags.push({ tag: filters.tag, count: 0 });
      showPage(ctx, web, 200, 'links', {
        title: 'Links',
        section: 'links',
        links: links.map((link) => linkRow(link, web)),
        filters,
        tags,
        nextHref: next ? href({ cursor: next }) : null,
        firstHref: typeof ctx.query['cursor'] === 'string' ? href({}) : null,
        deleted: typeof ctx.query['deleted'] === 'string' ? ctx.query['deleted'] : null,
        // The blocked filter shows where there is a blocklist, or links it disabled before it was taken away.
        blocklist: web.config.blocklist !== '' || blockedCount > 0,
        blockedCount,
      });
    },

    async showLink(ctx: Context): Promise<void> {
      const link = await web.links.existingLink(codeOf(ctx));
      showLinkPage(ctx, 200, link, linkValues(link), null);
    },

    /** Saves every field of the edit form; the redirect follows at once. A refused edit shows the form again as typed. */
    async editLink(ctx: Context): Promise<void> {
      const code = codeOf(ctx);
      const form = formValues(await readForm(ctx, web), EDIT_FIELDS);
      try {
        await web.links.editLink(code, linkInput(form, true));
        sendSeeOther(ctx.res, `${pathOf(code)}?saved`);
      } catch (err) {
        const error = formFailure(err);
        const link = await web.links.existingLink(code);
        showLinkPage(ctx, STATUS[error.code], link, { ...form, password: '' }, formError(error, EDIT_FIELDS));
      }
    },

    /** `enabled=true|false`: a disabled link answers 410 until enabled again. */
    async setLinkState(ctx: Context): Promise<void> {
      const code = codeOf(ctx);
      const enabled = textOf(await readForm(ctx, web), 'enabled');
      if (enabled !== 'true' && enabled !== 'false') throw new AppError('invalid', 'enabled must be true or false', 'enabled');
      await web.links.editLink(code, { enabled: enabled === 'true' });
      sendSeeOther(ctx.res, `${pathOf(code)}?${enabled === 'true' ? 'enabled' : 'disabled'}`);
    },

    /** The page that asks before deleting. */
    async confirmDelete(ctx: Context): Promise<void> {
      const link = await web.links.existingLink(codeOf(ctx));
      if (link.deletedAt) throw new AppError('gone', goneMessage(link.code));
      showPage(ctx, web, 200, 'delete', { title: `Delete ${link.code}?`, section: 'links', link: linkRow(link, web) });
    },

    /** Deletes and goes back to the list; the code answers 410 from then on. */
    async deleteLink(ctx: Context): Promise<void> {
      const code = codeOf(ctx);
      await readForm(ctx, web);
      const { deleted } = await web.links.deleteLink(code);
      if (!deleted) throw new AppError('gone', `the link "${code}" was deleted already`);
      sendSeeOther(ctx.res, `/links?deleted=${encodeURIComponent(code)}`);
    },
  };
}
