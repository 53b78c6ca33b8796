import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { asClientError, sendRetryAfter } from '../../http/problems.ts';
import { sendPage, sendSeeOther } from '../../http/respond.ts';
import { actorOf, csrfToken, DEVICE_MAX_AGE, readCookie, readForm, safeReturnPath, sessionOf, writeCookie } from '../session.ts';

/** /login, /logout and /account/password. */
export function accessPageHandlers(web: WebServices) {
  const showPasswordForm = async (ctx: Context, status: number, error: string | null): Promise<void> => {
    const generated = await web.access.mustChangePassword(actorOf(ctx).userId);
    sendPage(
      ctx.res,
      status,
      web.render('account-password', { title: 'Choose your password', csrf: csrfToken(ctx, web), generated, error }),
    );
  };

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
        const known = readCookie(ctx, web, 'device');
        const { token, device } = await web.access.login(user, password, web.pipeline.contextOf(ctx.req).limitKey, known);
        writeCookie(ctx, web, 'session', token, web.config.sessionMaxAge);
        // Strict: only the login form, on kurz itself, needs it.
        writeCookie(ctx, web, 'device', device, DEVICE_MAX_AGE, 'strict');
        sendSeeOther(ctx.res, next);
      } catch (err) {
        const problem = asClientError(err);
        if (!(err instanceof AppError) || !problem) throw err;
        sendRetryAfter(ctx.res, problem);
        showLogin(ctx, STATUS[err.code], next, user, err.message);
      }
    },

    showPasswordForm: (ctx: Context) => showPasswordForm(ctx, 200, null),

    /** Sets the user's new password: every session of theirs ends (this one too), and the login page follows. */
    async changePassword(ctx: Context): Promise<void> {
      const form = await readForm(ctx, web);
      const password = typeof form['password'] === 'string' ? form['password'] : '';
      if (password !== form['repeat']) return showPasswordForm(ctx, 400, 'the two passwords differ; nothing was changed');
      try {
        await web.access.setPassword(password, actorOf(ctx).userId);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'invalid') throw err;
        return showPasswordForm(ctx, 400, err.message);
      }
      writeCookie(ctx, web, 'session', null);
      sendSeeOther(ctx.res, '/login');
    },

    async logout(ctx: Context): Promise<void> {
      await readForm(ctx, web);
      const session = sessionOf(ctx);
      if (session) await web.access.logout(session.token);
      writeCookie(ctx, web, 'session', null);
      sendSeeOther(ctx.res, '/login');
    },
  };
}
