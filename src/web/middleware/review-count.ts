import type { Context, Middleware } from 'koa';
import { isAdmin } from '../../auth/actor.ts';
import type { WebServices } from '../../context.ts';
import { wantsHtml } from '../../http/respond.ts';
import { sessionOf, type WebState } from '../session.ts';

/**
 * Counts the links waiting for review before an admin's page is made (a GET that wants HTML, in a session),
 * for its nav and the dashboard: one count on the partial index links_in_review. Every other request passes
 * untouched.
 */
export function countReviews(web: WebServices): Middleware {
  return async (ctx, next) => {
    const state = ctx.state as WebState;
    if (ctx.method === 'GET' && state.actor && isAdmin(state.actor) && sessionOf(ctx) && wantsHtml(ctx.req))
      state.reviews = await web.review.pendingCount();
    await next();
  };
}

/** The links waiting for review that `countReviews` counted for this request; null when it did not count. */
export function reviewsOf(ctx: Context): number | null {
  return (ctx.state as WebState).reviews ?? null;
}
