import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { sendPage, type View } from '../../http/respond.ts';
import { csrfToken, sessionOf } from '../session.ts';

// What every HTML page shares: the nav and the CSRF token of its forms.

/** Where a page sits in the nav. */
export type Section = 'home' | 'links' | 'import' | 'domains' | 'activity' | 'keys' | 'settings';

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
  const nav = sessionOf(ctx) ? { current: data.section ?? null } : null;
  sendPage(ctx.res, status, web.render(view, { ...data, csrf: csrfToken(ctx, web), nav }));
}
