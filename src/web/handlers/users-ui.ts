import type { Context } from 'koa';
import type { UserUse } from '../../auth/user.ts';
import type { Invitation } from '../../auth/users.ts';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { sendPage, sendSeeOther } from '../../http/respond.ts';
import { formFailure, formValues, type FormError, type FormValues } from '../forms.ts';
import { formatTime } from '../presenters.ts';
import { actorOf, csrfToken, readForm } from '../session.ts';
import { showPage } from './pages.ts';

const ADD_FORM = ['name', 'email', 'role'] as const;
const EMPTY: FormValues = { name: '', email: '', role: 'member' };
/** What the list says after a change, by the parameter in its query string (its value the user's name). */
const NOTICES = ['disabled', 'active', 'admin', 'member'] as const;

/** What the list says after a hand-over (`handedOver`, `to`, `links` in its query string); null otherwise. */
function handoverNotice(query: Context['query']): { from: string; to: string; links: number } | null {
  const { handedOver: from, to, links } = query;
  if (typeof from !== 'string' || typeof to !== 'string' || typeof links !== 'string' || !/^\d{1,9}$/.test(links)) return null;
  return { from, to, links: Number(links) };
}

/** A user as the list shows them. */
function userRow(user: UserUse, self: number, all: readonly UserUse[]) {
  const path = `/users/${encodeURIComponent(user.name)}`;
  return {
    name: user.name,
    email: user.email,
    role: user.role,
    state: user.state,
    links: user.links,
    linksHref: `/links?owner=${encodeURIComponent(user.name)}`,
    created: formatTime(user.createdAt),
    password: user.hasPassword ? 'set' : user.inviteExpiresAt ? `link open until ${formatTime(user.inviteExpiresAt)}` : 'none',
    isSelf: user.id === self,
    path,
    // Whom their links may be handed to: anyone else, while they have any.
    heirs: user.links > 0 ? all.filter((u) => u.id !== user.id).map((u) => u.name) : [],
  };
}

/** /users: the admins' list of people, adding them, their roles and states, new one-time links. */
export function usersUiHandlers(web: WebServices) {
  async function showUsers(
    ctx: Context,
    status: number,
    form: FormValues,
    error: FormError | null,
    invitation: Invitation | null,
  ): Promise<void> {
    const actor = actorOf(ctx);
    const users = await web.users.listUsers(actor);
    const notice = NOTICES.map((kind) => ({ kind, name: ctx.query[kind] })).find((n) => typeof n.name === 'string') ?? null;
    showPage(ctx, web, status, 'users', {
      title: 'Users',
      section: 'users',
      users: users.map((u) => userRow(u, actor.userId, users)),
      notice: error || invitation ? null : notice,
      handover: error || invitation ? null : handoverNotice(ctx.query),
      invitation: invitation && { name: invitation.user.name, link: invitation.link, expires: formatTime(invitation.expiresAt) },
      form,
      error,
    });
  }

  return {
    listUsers: (ctx: Context) => showUsers(ctx, 200, EMPTY, null, null),

    /** Adds a user and shows their one-time link, this once (it is stored only as a hash). */
    async addUser(ctx: Context): Promise<void> {
      const form = formValues(await readForm(ctx, web), ADD_FORM);
      try {
        const invitation = await web.users.addUser(actorOf(ctx), { name: form['name'], email: form['email'], role: form['role'] });
        await showUsers(ctx, 201, EMPTY, null, invitation);
      } catch (err) {
        const error = formFailure(err);
        await showUsers(ctx, STATUS[(err as AppError).code], form, error, null);
      }
    },

    /** Changes a user's role or state, opens a new one-time link, or hands their links to `to` (`action`: role, disable, enable, reset, handover). */
    async changeUser(ctx: Context): Promise<void> {
      const form = await readForm(ctx, web);
      const name = ctx.params['name'] ?? '';
      const actor = actorOf(ctx);
      const action = form['action'];
      try {
        if (action === 'reset') return await showUsers(ctx, 200, EMPTY, null, await web.users.resetPassword(actor, name));
        if (action === 'handover') {
          const handed = await web.links.handOverAll(actor, (await web.users.user(actor, name)).id, form['to']);
          const query = new URLSearchParams({ handedOver: handed.from ?? name, to: handed.to ?? '', links: String(handed.links) });
          return sendSeeOther(ctx.res, `/users?${query}`);
        }
        const changed =
          action === 'role'
            ? await web.users.setRole(actor, name, form['role'])
            : action === 'disable' || action === 'enable'
              ? await web.users.setState(actor, name, action === 'disable' ? 'disabled' : 'active')
              : undefined;
        if (!changed) throw new AppError('invalid', 'action must be role, disable, enable, reset or handover', 'action');
        sendSeeOther(ctx.res, `/users?${action === 'role' ? changed.role : changed.state}=${encodeURIComponent(changed.name)}`);
      } catch (err) {
        if (!(err instanceof AppError) || err.code === 'internal') throw err;
        await showUsers(ctx, STATUS[err.code], EMPTY, { field: undefined, message: err.message }, null);
      }
    },

    /** The form a one-time link opens: set a password, then log in. */
    async showWelcome(ctx: Context): Promise<void> {
      const user = await web.users.invited(ctx.params['token'] ?? '');
      sendPage(
        ctx.res,
        user ? 200 : 410,
        web.render('welcome', { title: 'Set your password', csrf: csrfToken(ctx, web), name: user?.name ?? null, error: null }),
      );
    },

    async acceptWelcome(ctx: Context): Promise<void> {
      const form = await readForm(ctx, web);
      const token = ctx.params['token'] ?? '';
      const password = typeof form['password'] === 'string' ? form['password'] : '';
      const again = async (status: number, error: string): Promise<void> => {
        const user = await web.users.invited(token);
        sendPage(
          ctx.res,
          user ? status : 410,
          web.render('welcome', { title: 'Set your password', csrf: csrfToken(ctx, web), name: user?.name ?? null, error }),
        );
      };
      if (password !== form['repeat']) return again(400, 'the two passwords differ; nothing was changed');
      try {
        const user = await web.users.acceptInvitation(token, password);
        sendSeeOther(ctx.res, `/login?user=${encodeURIComponent(user.name)}`);
      } catch (err) {
        if (!(err instanceof AppError) || (err.code !== 'invalid' && err.code !== 'gone')) throw err;
        await again(STATUS[err.code], err.message);
      }
    },
  };
}
