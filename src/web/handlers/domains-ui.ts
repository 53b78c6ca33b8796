import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { sendSeeOther } from '../../http/respond.ts';
import { DEFAULT_DOMAIN, type Domain, type DomainUse } from '../../domains/domain.ts';
import { usersText } from '../../domains/manage.ts';
import { actorOf, readForm } from '../session.ts';
import { showPage } from './pages.ts';
import { formError, formFailure, formValues, textOf, type FormError, type FormValues } from '../forms.ts';
import { formatTime } from '../presenters.ts';

/**
 * The fields of the add form; the edit form has all but `host`. `access` is the user picker's choice
 * (everyone, or some: those whose box `user:NAME` is ticked); an error about `users` is shown beside it.
 */
const DOMAIN_FORM = ['host', 'scheme', 'notFoundRedirect', 'rootRedirect', 'access', 'users'] as const;
const EDIT_FORM = DOMAIN_FORM.filter((f) => f !== 'host');
const EMPTY: FormValues = { host: '', scheme: '', notFoundRedirect: '', rootRedirect: '', access: 'everyone' };
/** The name of a user's box in the picker is this and their name. */
const USER_BOX = 'user:';

/** The ticked boxes of the user picker, as form values ('true' each). */
function tickedBoxes(body: Record<string, unknown>): FormValues {
  return Object.fromEntries(
    Object.keys(body)
      .filter((k) => k.startsWith(USER_BOX) && textOf(body, k) !== '')
      .map((k) => [k, 'true']),
  );
}

/**
 * Who may use the domain, as the form says: undefined when it has no picker, null for every user, else the
 * names ticked (none: admins only). Throws AppError('invalid', …, 'access') for another choice.
 */
function usersOf(form: FormValues): string[] | null | undefined {
  const access = form['access'] ?? '';
  if (access === '') return undefined;
  if (access === 'everyone') return null;
  if (access !== 'some') throw new AppError('invalid', 'access must be everyone or some', 'access');
  return Object.keys(form)
    .filter((k) => k.startsWith(USER_BOX))
    .map((k) => k.slice(USER_BOX.length));
}

/** What the use case takes from a submitted form: the settings, and who may use the domain. */
function domainInput(form: FormValues) {
  const { scheme, notFoundRedirect, rootRedirect } = form;
  const users = usersOf(form);
  return { scheme, notFoundRedirect, rootRedirect, ...(users === undefined ? {} : { users }) };
}
/** What the list says after a change, by the parameter in its query string (its value the host). */
const NOTICES = ['added', 'saved', 'removed'] as const;

/** A domain as the list shows it. */
function domainRow(domain: DomainUse) {
  const path = `/domains/${encodeURIComponent(domain.host)}`;
  return {
    host: domain.host,
    isDefault: domain.id === DEFAULT_DOMAIN,
    scheme: domain.scheme,
    notFoundRedirect: domain.notFoundRedirect,
    rootRedirect: domain.rootRedirect,
    openTo: usersText(domain.users),
    links: domain.links,
    linksHref: `/links?domain=${encodeURIComponent(domain.host)}`,
    created: formatTime(domain.createdAt),
    editHref: path,
    removeHref: `${path}/remove`,
  };
}

/** A domain's settings as its edit form shows them. */
const domainValues = (domain: Domain): FormValues => ({
  scheme: domain.scheme ?? '',
  notFoundRedirect: domain.notFoundRedirect ?? '',
  rootRedirect: domain.rootRedirect ?? '',
  access: domain.users === null ? 'everyone' : 'some',
  ...Object.fromEntries((domain.users ?? []).map((u) => [`${USER_BOX}${u.name}`, 'true'])),
});

/** /domains: the admin's short domains, each with its own code space: the list, adding, editing, removing. */
export function domainsUiHandlers(web: WebServices) {
  const hostOf = (ctx: Context): string => ctx.params['host'] ?? '';
  /** The publicUrl's scheme, which a domain without its own uses. */
  const defaultScheme = (): string => new URL(web.config.publicUrl).protocol.slice(0, -1);
  /** The domain the path names with its live links. Throws AppError('not_found'). */
  const domainUse = async (ctx: Context): Promise<DomainUse> => {
    const domain = web.domains.named(hostOf(ctx));
    return (await web.domains.listDomains()).find((d) => d.id === domain.id) ?? { ...domain, links: 0 };
  };

  /** The user picker's boxes: every user, ticked as the form says. */
  async function userBoxes(ctx: Context, form: FormValues) {
    const users = await web.users.listUsers(actorOf(ctx));
    return users.map((u, i) => ({
      id: `user-${i}`,
      field: `${USER_BOX}${u.name}`,
      name: u.name,
      note: u.role === 'admin' ? 'admin, always may' : u.state === 'disabled' ? 'disabled' : '',
      checked: form[`${USER_BOX}${u.name}`] === 'true',
    }));
  }

  async function showDomains(ctx: Context, status: number, form: FormValues, error: FormError | null): Promise<void> {
    const domains = await web.domains.listDomains();
    const notice = NOTICES.map((kind) => ({ kind, host: ctx.query[kind] })).find((n) => typeof n.host === 'string') ?? null;
    showPage(ctx, web, status, 'domains', {
      title: 'Domains',
      section: 'domains',
      domains: domains.map(domainRow),
      defaultScheme: defaultScheme(),
      notice: error ? null : notice,
      form,
      users: await userBoxes(ctx, form),
      error,
    });
  }

  async function showEdit(ctx: Context, status: number, domain: DomainUse, form: FormValues, error: FormError | null): Promise<void> {
    showPage(ctx, web, status, 'domain', {
      title: `Domain ${domain.host}`,
      section: 'domains',
      domain: domainRow(domain),
      defaultScheme: defaultScheme(),
      form,
      users: await userBoxes(ctx, form),
      error,
    });
  }

  function showRemove(ctx: Context, status: number, domain: DomainUse, error: string | null): void {
    showPage(ctx, web, status, 'domain-remove', { title: `Remove ${domain.host}?`, section: 'domains', domain: domainRow(domain), error });
  }

  return {
    async listDomains(ctx: Context): Promise<void> {
      await showDomains(ctx, 200, EMPTY, null);
    },

    /** Adds the domain and goes back to the list; a refused one shows the form again as typed. */
    async addDomain(ctx: Context): Promise<void> {
      const body = await readForm(ctx, web);
      const form = { ...formValues(body, DOMAIN_FORM), ...tickedBoxes(body) };
      try {
        const added = await web.domains.addDomain(actorOf(ctx), form['host'], domainInput(form));
        sendSeeOther(ctx.res, `/domains?${new URLSearchParams({ added: added.host })}`);
      } catch (err) {
        const error = formFailure(err);
        await showDomains(ctx, STATUS[error.code], form, formError(error, DOMAIN_FORM));
      }
    },

    async showDomain(ctx: Context): Promise<void> {
      const domain = await domainUse(ctx);
      await showEdit(ctx, 200, domain, domainValues(domain), null);
    },

    /** Saves the edit form (an empty field clears it); every process's redirect follows. */
    async editDomain(ctx: Context): Promise<void> {
      const domain = await domainUse(ctx);
      const body = await readForm(ctx, web);
      const form = { ...formValues(body, EDIT_FORM), ...tickedBoxes(body) };
      try {
        await web.domains.editDomain(actorOf(ctx), domain.host, domainInput(form));
        sendSeeOther(ctx.res, `/domains?${new URLSearchParams({ saved: domain.host })}`);
      } catch (err) {
        const error = formFailure(err);
        await showEdit(ctx, STATUS[error.code], domain, form, formError(error, EDIT_FORM));
      }
    },

    /** The page that asks before removing; it says why not while links are on the domain. */
    async confirmRemove(ctx: Context): Promise<void> {
      const domain = await domainUse(ctx);
      if (domain.id === DEFAULT_DOMAIN)
        throw new AppError('conflict', `${domain.host} is the default domain (the publicUrl's host); it cannot be removed`);
      showRemove(ctx, 200, domain, null);
    },

    /** Removes the domain and goes back to the list; refused (409, the page again with the reason) while live links are on it. */
    async removeDomain(ctx: Context): Promise<void> {
      const domain = await domainUse(ctx);
      await readForm(ctx, web);
      try {
        await web.domains.removeDomain(actorOf(ctx), domain.host);
        sendSeeOther(ctx.res, `/domains?${new URLSearchParams({ removed: domain.host })}`);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'conflict' || domain.id === DEFAULT_DOMAIN) throw err;
        showRemove(ctx, STATUS.conflict, await domainUse(ctx), err.message);
      }
    },
  };
}
