import { STATUS_CODES } from 'node:http';
import type { Context } from 'koa';
import { FLOW_MAX_AGE } from '../../auth/sso.ts';
import type { WebServices } from '../../context.ts';
import { AppError, asSentence, STATUS } from '../../core/errors.ts';
import { asClientError, sendRetryAfter } from '../../http/problems.ts';
import { sendPage, sendSeeOther, UNCACHED } from '../../http/respond.ts';
import { cliCommand } from '../../core/invocation.ts';
import { showPage } from './pages.ts';
import { actorOf, csrfToken, DEVICE_MAX_AGE, readCookie, readForm, safeReturnPath, sessionOf, writeCookie } from '../session.ts';

/** What the password form says when passwordLogin is false. */
export const PASSWORD_LOGIN_OFF =
  'passwords are not taken here: log in with single sign-on (the admin can still set a password on the server with kurz admin password)';

/** /login, /login/sso, /logout and /account/password. */
export function accessPageHandlers(web: WebServices) {
  /** Sets the cookies of a new session (as the password login and single sign-on both open one). */
  const openBrowserSession = (ctx: Context, opened: { token: string; device: string }): void => {
    writeCookie(ctx, web, 'session', opened.token, web.config.sessionMaxAge);
    // Strict: only the login form, on kurz itself, needs it.
    writeCookie(ctx, web, 'device', opened.device, DEVICE_MAX_AGE, 'strict');
  };

  /** A single sign-on that did not open a session: its status, the reason, and the way back to the login page. */
  const showSsoFailure = (ctx: Context, status: number, message: string): void => {
    sendPage(
      ctx.res,
      status,
      web.render('error', {
        title: STATUS_CODES[status] ?? 'Error',
        status,
        message: `Single sign-on failed: ${message}`,
        help: 'No session was opened. Start again from the login page.',
        loginLink: true,
      }),
    );
  };

  /**
   * The password form: the current password (not when it is the generated one the session was just made
   * with, nor for someone without one), the new one twice. `error` names the field it is about.
   */
  const showPasswordForm = async (ctx: Context, status: number, error: { field: string; message: string } | null): Promise<void> => {
    const { userId } = actorOf(ctx);
    const generated = await web.access.mustChangePassword(userId);
    const askCurrent = !generated && (await web.access.hasPassword(userId));
    const model = { title: 'Choose your password', generated, askCurrent, error };
    // The generated password's session goes nowhere else until it is changed: no nav then.
    if (generated) sendPage(ctx.res, status, web.render('account-password', { ...model, csrf: csrfToken(ctx, web), cli: cliCommand() }));
    else showPage(ctx, web, status, 'account-password', { ...model, section: 'account' });
  };

  const showLogin = (ctx: Context, status: number, next: string, user: string, error: string | null): void => {
    sendPage(
      ctx.res,
      status,
      web.render('login', {
        title: 'Log in',
        csrf: csrfToken(ctx, web),
        cli: cliCommand(),
        next,
        user,
        error,
        passwordLogin: web.config.passwordLogin,
        sso: web.sso ? { name: web.sso.providerName, href: `/login/sso?next=${encodeURIComponent(next)}` } : null,
      }),
    );
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
      if (!web.config.passwordLogin) return showLogin(ctx, 403, '/', '', PASSWORD_LOGIN_OFF);
      const form = await readForm(ctx, web);
      const next = safeReturnPath(form['next']);
      const user = typeof form['user'] === 'string' ? form['user'].trim() : '';
      const password = typeof form['password'] === 'string' ? form['password'] : '';
      try {
        const known = readCookie(ctx, web, 'device');
        openBrowserSession(ctx, await web.access.login(user, password, web.pipeline.contextOf(ctx.req).limitKey, known));
        sendSeeOther(ctx.res, next);
      } catch (err) {
        const problem = asClientError(err);
        if (!(err instanceof AppError) || !problem) throw err;
        sendRetryAfter(ctx.res, problem);
        showLogin(ctx, STATUS[err.code], next, user, err.message);
      }
    },

    /** Starts a single sign-on: the flow goes into its cookie, the browser to the provider. 404 when it is off. */
    async startSso(ctx: Context): Promise<void> {
      if (!web.sso) throw new AppError('not_found', 'single sign-on is not set up here (oidcIssuer is empty)');
      const next = safeReturnPath(ctx.query['next']);
      if (sessionOf(ctx)) return sendSeeOther(ctx.res, next);
      try {
        const { url, flow } = await web.sso.start(next);
        writeCookie(ctx, web, 'sso', flow, FLOW_MAX_AGE);
        sendSeeOther(ctx.res, url, UNCACHED);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        showSsoFailure(ctx, STATUS[err.code], err.message);
      }
    },

    /**
     * The provider's answer: checked against the flow cookie (which ends here, whatever the outcome), the
     * code redeemed, and a session opened for the identity as the password login opens one. Every failure
     * is a 4xx (503 while the provider is unreachable) page naming it, and no session.
     */
    async finishSso(ctx: Context): Promise<void> {
      if (!web.sso) throw new AppError('not_found', 'single sign-on is not set up here (oidcIssuer is empty)');
      const flow = readCookie(ctx, web, 'sso');
      writeCookie(ctx, web, 'sso', null);
      try {
        const { identity, next } = await web.sso.finish(ctx.querystring, flow);
        const opened = await web.access.signOn(identity);
        if ('refused' in opened) return showSsoFailure(ctx, 403, opened.refused);
        openBrowserSession(ctx, opened);
        sendSeeOther(ctx.res, next);
      } catch (err) {
        if (!(err instanceof AppError) || !asClientError(err)) throw err;
        showSsoFailure(ctx, STATUS[err.code], err.message);
      }
    },

    showPasswordForm: (ctx: Context) => showPasswordForm(ctx, 200, null),

    /** Sets the user's new password: every session of theirs ends (this one too), and the login page follows. */
    async changePassword(ctx: Context): Promise<void> {
      const form = await readForm(ctx, web);
      const { userId } = actorOf(ctx);
      const text = (name: string): string => (typeof form[name] === 'string' ? (form[name] as string) : '');
      const password = text('password');
      if (!(await web.access.mustChangePassword(userId)) && (await web.access.hasPassword(userId))) {
        const current = text('current');
        if (current === '')
          return showPasswordForm(ctx, 400, { field: 'current', message: 'Give your current password; nothing was changed' });
        try {
          if (!(await web.access.checkPassword(userId, current)))
            return showPasswordForm(ctx, 400, { field: 'current', message: 'That is not your current password; nothing was changed' });
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== 'rate_limited') throw err;
          return showPasswordForm(ctx, 429, { field: 'current', message: `Too many wrong passwords: ${err.message}. Nothing was changed` });
        }
      }
      if (password !== text('repeat'))
        return showPasswordForm(ctx, 400, { field: 'repeat', message: 'The two new passwords differ; nothing was changed' });
      try {
        await web.access.setPassword(password, userId);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'invalid') throw err;
        return showPasswordForm(ctx, 400, { field: 'password', message: asSentence(err.message) });
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
