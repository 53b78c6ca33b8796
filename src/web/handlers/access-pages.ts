import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../errors.ts';
import { asClientError, sendRetryAfter } from '../../http/problems.ts';
import { sendPage, sendSeeOther } from '../../http/respond.ts';
import {
  cookieOptions,
  cookiesOf,
  csrfToken,
  DEVICE_COOKIE,
  DEVICE_MAX_AGE,
  readForm,
  safeReturnPath,
  SESSION_COOKIE,
  sessionOf,
} from '../session.ts';

/** /login and /logout. */
export function accessPageHandlers(web: WebServices) {
  const showLogin = (ctx: Context, status: number, next: string, user: string, error: string | null): void => {
    sendPage(ctx.res, status, web.render('login', { title: 'Log in', csrf: csrfToken(ctx, web), next, user, error }));
  };

  return {
    showLogin(ctx: Context): void {
      const next = safeReturnPath(ctx.query['next']);
      if (sessionOf(ctx)) return sendSeeOther(ctx.res, next);
      showLogin(ctx, 200, next, '', null);
    },

    /**
     * A right user and password open a session, mark the browser as known (the device cookie) and go back
     * where the login was asked for (on kurz only).
     */
    async login(ctx: Context): Promise<void> {
      const form = await readForm(ctx, web);
      const next = safeReturnPath(form['next']);
      const user = typeof form['user'] === 'string' ? form['user'].trim() : '';
      const password = typeof form['password'] === 'string' ? form['password'] : '';
      try {
        const cookies = cookiesOf(ctx, web);
        const known = cookies.get(DEVICE_COOKIE);
        const { token, device } = await web.access.login(user, password, web.pipeline.contextOf(ctx.req).limitKey, known);
        cookies.set(SESSION_COOKIE, token, cookieOptions(web, web.config.sessionMaxAge));
        // The device token carries its own signature; Strict, since only the login form, on kurz, needs it.
        cookies.set(DEVICE_COOKIE, device, { ...cookieOptions(web, DEVICE_MAX_AGE), sameSite: 'strict', signed: false });
        sendSeeOther(ctx.res, next);
      } catch (err) {
        const problem = asClientError(err);
        if (!(err instanceof AppError) || !problem) throw err;
        sendRetryAfter(ctx.res, problem);
        showLogin(ctx, STATUS[err.code], next, user, err.message);
      }
    },

    async logout(ctx: Context): Promise<void> {
      await readForm(ctx, web);
      const session = sessionOf(ctx);
      if (session) await web.access.logout(session.token);
      cookiesOf(ctx, web).set(SESSION_COOKIE, null, cookieOptions(web));
      sendSeeOther(ctx.res, '/login');
    },
  };
}
