import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { sendPage, type View } from '../../http/respond.ts';
import { isAdmin } from '../../auth/actor.ts';
import { cliCommand } from '../../core/invocation.ts';
import { reviewsOf } from '../middleware/review-count.ts';
import { csrfToken, sessionOf, type WebState } from '../session.ts';

// What every HTML page shares: the nav, the CSRF token of its forms and the command that runs kurz's CLI here.

/** Where a page sits in the nav. */
export type Section =
  'home' | 'links' | 'import' | 'domains' | 'users' | 'activity' | 'review' | 'keys' | 'webhooks' | 'settings' | 'account';

/**
 * Sends `view` with `data`, the CSRF token of its forms (`csrf`) and, for a logged-in session, the nav
 * with `section` marked as the current page (and, for an admin, the links waiting for review).
 */
export function showPage(
  ctx: Context,
  web: WebServices,
  status: number,
  view: View,
  data: { title: string; section?: Section; [key: string]: unknown },
): void {
  const actor = (ctx.state as WebState).actor;
  const admin = actor !== undefined && isAdmin(actor);
  const reviews = reviewsOf(ctx);
  // Members see their own links, keys and figures; the instance's pages are the admins'. The review queue
  // shows while reviewNewLinks holds links, or links still wait.
  const nav =
    sessionOf(ctx) && actor
      ? {
          current: data.section ?? null,
          admin,
          user: actor.name,
          review: admin && (web.config.reviewNewLinks !== 'off' || (reviews ?? 0) > 0),
          reviews,
        }
      : null;
  sendPage(ctx.res, status, web.render(view, { cli: cliCommand(), ...data, csrf: csrfToken(ctx, web), nav }));
}
