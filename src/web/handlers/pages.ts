import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { sendPage, type View } from '../../http/respond.ts';
import { isAdmin } from '../../auth/actor.ts';
import { csrfToken, sessionOf, type WebState } from '../session.ts';

// What every HTML page shares: the nav and the CSRF token of its forms.

/** Where a page sits in the nav. */
export type Section = 'home' | 'links' | 'import' | 'domains' | 'users' | 'activity' | 'keys' | 'settings';

/**
 * Sends `view` with `data`, the CSRF token of its forms (`csrf`) and, for a logged-in session, the nav
 * with `section` marked as the current page.
 */
export function showPage(
  ctx: Context,
  web: WebServices,
  status: number,
  view: View,
  data: { title: string; section?: Section; [key: string]: unknown },
): void {
  const actor = (ctx.state as WebState).actor;
  // Members see their own links, keys and figures; the instance's pages are the admins'.
  const nav = sessionOf(ctx) && actor ? { current: data.section ?? null, admin: isAdmin(actor), user: actor.name } : null;
  sendPage(ctx.res, status, web.render(view, { ...data, csrf: csrfToken(ctx, web), nav }));
}
