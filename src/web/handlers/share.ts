import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { STATUS } from '../../core/errors.ts';
import { sendRetryAfter } from '../../http/problems.ts';
import { sendSeeOther } from '../../http/respond.ts';
import { LIMITS } from '../../links/link-options.ts';
import { single } from '../../links/list-query.ts';
import { takeCreations } from '../creation-limit.ts';
import { madeLinkPath } from '../domain-param.ts';
import { formError, formFailure, textOf, type FormError } from '../forms.ts';
import { actorOf, readForm } from '../session.ts';
import { showPage } from './pages.ts';
import { SHARE_PURPOSE } from '../one-click.ts';

const SHARE_FIELDS = ['url', 'title'] as const;

/** A page's title as a link's: a longer one than a title may be is cut to fit, ending in "…" (never inside a character). */
function fittedTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed.length <= LIMITS.title) return trimmed;
  return `${trimmed.slice(0, LIMITS.title - 1).replace(/[\uD800-\uDBFF]$/, '')}…`;
}

/**
 * /share?url=&title=: shortening the page one is on, reached by the bookmarklet (or any link to it). With
 * the user's share token it creates at once; without, it shows the URL and title with one button, so that a
 * link from elsewhere creates nothing by itself. Either way the link's own page follows, with its copy
 * button and QR code. A login comes first, and comes back here with the query.
 */
export function shareHandlers(web: WebServices) {
  function showForm(ctx: Context, status: number, url: string, title: string, error: FormError | null): void {
    showPage(ctx, web, status, 'share', { title: 'Shorten this page', section: 'home', url, linkTitle: title, error });
  }

  async function create(ctx: Context, url: string, title: string): Promise<void> {
    try {
      takeCreations(ctx, web, 1);
      const input = { url, ...(title.trim() === '' ? {} : { title: title.trim() }) };
      // A title is no reason for a second link of a URL shortened before: its link is shown.
      const { link, created } = await web.creation.createLink(actorOf(ctx), input, { ask: true });
      sendSeeOther(ctx.res, madeLinkPath(link, created, web.registry));
    } catch (err) {
      const error = formFailure(err);
      sendRetryAfter(ctx.res, error);
      showForm(ctx, STATUS[error.code], url, title, formError(error, SHARE_FIELDS));
    }
  }

  return {
    async showShare(ctx: Context): Promise<void> {
      const url = single(ctx.query, 'url') ?? '';
      // The page's own title, which nobody typed: cut to fit rather than refused.
      const title = fittedTitle(single(ctx.query, 'title') ?? '');
      const token = single(ctx.query, 't');
      if (url !== '' && web.access.checkCsrf(SHARE_PURPOSE(actorOf(ctx).userId), token)) return create(ctx, url, title);
      showForm(ctx, 200, url, title, null);
    },

    async shareLink(ctx: Context): Promise<void> {
      const form = await readForm(ctx, web);
      await create(ctx, textOf(form, 'url'), textOf(form, 'title'));
    },
  };
}
