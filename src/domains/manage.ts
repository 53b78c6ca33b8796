import type { AuditDetails, AuditTrail } from '../audit/audit.ts';
import { isAdmin, type Actor } from '../auth/actor.ts';
import { AppError } from '../core/errors.ts';
import type { DomainStore } from '../store/ports.ts';
import { DEFAULT_DOMAIN, normaliseHost, type Domain, type DomainEdit, type DomainUse, type DomainUser, type Scheme } from './domain.ts';
import type { DomainRegistry } from './registry.ts';

export interface DomainDeps {
  store: DomainStore;
  registry: DomainRegistry;
  now: () => number;
  /** The user with this name (any case), or undefined. */
  userNamed: (name: string) => Promise<DomainUser | undefined>;
  /** Where additions, edits and removals are recorded. */
  audit: Pick<AuditTrail, 'record'>;
}

/**
 * What a domain is added or edited with, as every surface gives it (unchecked; null or '' clears a field).
 * `users`: the names of the users who may create links on it, or null for every user.
 */
export interface DomainInput {
  scheme?: unknown;
  notFoundRedirect?: unknown;
  rootRedirect?: unknown;
  users?: unknown;
}

/** The fields of DomainInput, which an edit must name at least one of. */
export const DOMAIN_FIELDS = ['scheme', 'notFoundRedirect', 'rootRedirect', 'users'] as const;

/** Longest redirect URL a domain keeps: as long as a link's target may be. */
const MAX_URL = 2048;

/** Most users one domain names: more than a kurz is meant for, few enough for one form. */
export const MAX_DOMAIN_USERS = 1000;

/** Who may use a domain, as the audit trail and the CLI say it. */
export function usersText(users: readonly DomainUser[] | null): string {
  if (users === null) return 'everyone';
  return users.length === 0 ? 'admins only' : users.map((u) => u.name).join(', ');
}

/** Refuses anyone but an admin: domains are theirs alone. */
function adminOnly(actor: Actor): void {
  if (!isAdmin(actor)) throw new AppError('forbidden', 'only an admin manages domains');
}

export type DomainManagement = ReturnType<typeof domainManagement>;

/**
 * Adding, editing and removing short domains. Each change reloads this process's registry at once; other
 * processes reload theirs from the change log (a trigger logs every change of the domains table).
 */
export function domainManagement({ store, registry, now, userNamed, audit }: DomainDeps) {
  async function reload(): Promise<void> {
    registry.load(await store.listDomains());
  }

  /** The domain a person named, by host (the publicUrl's host names the default domain). Throws AppError('not_found'). */
  function named(input: unknown): Domain {
    const host = normaliseHost(input);
    const id = registry.idOfHost(host);
    const domain = id === undefined ? undefined : registry.byId(id);
    if (id === undefined || !domain) throw new AppError('not_found', `no domain ${JSON.stringify(host)}`);
    return { ...domain, host: registry.hostOf(id) };
  }

  /** A redirect a domain sends visitors to: an absolute http(s) URL that does not lead back to one of kurz's domains. */
  function redirectUrl(value: unknown, field: string): string | null {
    if (value === null || value === '') return null;
    if (typeof value !== 'string') throw new AppError('invalid', `${field} must be a URL or null`, field);
    let url: URL;
    try {
      url = new URL(value.trim());
    } catch {
      throw new AppError('invalid', `${field} must be an absolute http or https URL`, field);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new AppError('invalid', `${field} must be an http or https URL`, field);
    if (url.href.length > MAX_URL) throw new AppError('invalid', `${field} may be at most ${MAX_URL} characters long`, field);
    if (url.username || url.password) throw new AppError('invalid', `${field} must not hold a user name or password`, field);
    if (registry.domainOfHost(url.host) !== undefined)
      throw new AppError(
        'invalid',
        `${field} leads back to kurz (${url.hostname} is one of its domains): visitors would go round in circles`,
        field,
      );
    return url.href;
  }

  function scheme(value: unknown): Scheme | null {
    if (value === null || value === '') return null;
    if (value === 'http' || value === 'https') return value;
    throw new AppError('invalid', "scheme must be http or https (or null: the default domain's)", 'scheme');
  }

  /** The users named (null: everyone), each once, in the order given. Throws AppError('invalid', …, 'users') naming an unknown one. */
  async function users(value: unknown): Promise<DomainUser[] | null> {
    if (value === null) return null;
    if (!Array.isArray(value) || !value.every((name) => typeof name === 'string'))
      throw new AppError('invalid', 'users must be a list of user names, or null for every user', 'users');
    if (value.length > MAX_DOMAIN_USERS) throw new AppError('invalid', `users may name at most ${MAX_DOMAIN_USERS} users`, 'users');
    const found = new Map<number, DomainUser>();
    for (const name of value as string[]) {
      const user = name.trim() === '' || name.length > 64 ? undefined : await userNamed(name.trim());
      if (!user) throw new AppError('invalid', `users: no user named ${JSON.stringify(name)} (kurz users list shows them)`, 'users');
      found.set(user.id, { id: user.id, name: user.name });
    }
    return [...found.values()];
  }

  /** The fields present in `input`, checked. */
  async function editOf(input: DomainInput): Promise<DomainEdit> {
    const edit: DomainEdit = {};
    if (input.scheme !== undefined) edit.scheme = scheme(input.scheme);
    if (input.notFoundRedirect !== undefined) edit.notFoundRedirect = redirectUrl(input.notFoundRedirect, 'notFoundRedirect');
    if (input.rootRedirect !== undefined) edit.rootRedirect = redirectUrl(input.rootRedirect, 'rootRedirect');
    if (input.users !== undefined) edit.users = await users(input.users);
    return edit;
  }

  /** What an edit changed, for the audit trail: each field's new value (who may use it in words). */
  function changes(before: Domain, after: Domain): AuditDetails {
    const details: AuditDetails = {};
    for (const field of ['scheme', 'notFoundRedirect', 'rootRedirect'] as const)
      if (before[field] !== after[field]) details[field] = after[field];
    if (usersText(before.users) !== usersText(after.users)) details['users'] = usersText(after.users);
    return details;
  }

  const subject = (domain: Domain) => ({ kind: 'domain' as const, id: domain.id, label: registry.hostOf(domain.id) });

  return {
    reload,

    named,

    /** Every domain, the default first (its host the publicUrl's), with its live links. */
    async listDomains(): Promise<DomainUse[]> {
      const domains = await store.listDomains();
      return domains.map((d) => (d.id === DEFAULT_DOMAIN ? { ...d, host: registry.defaultHost } : d));
    },

    /**
     * Adds a domain, open to every user unless `users` names some. Throws AppError: 'forbidden' unless an
     * admin acts; 'invalid' naming the field; 'conflict' when the host is kurz's already.
     */
    async addDomain(actor: Actor, host: unknown, input: DomainInput): Promise<Domain> {
      adminOnly(actor);
      const name = normaliseHost(host);
      if (name === registry.defaultHost)
        throw new AppError('conflict', `${name} is the default domain already (the publicUrl's host)`, 'host');
      const edit = await editOf(input);
      const added = await store.insertDomain({
        host: name,
        scheme: edit.scheme ?? null,
        notFoundRedirect: edit.notFoundRedirect ?? null,
        rootRedirect: edit.rootRedirect ?? null,
        users: edit.users ?? null,
        createdAt: new Date(now()),
      });
      if (!added) throw new AppError('conflict', `the domain ${name} exists already`, 'host');
      await reload();
      const details: AuditDetails = { users: usersText(added.users) };
      for (const field of ['scheme', 'notFoundRedirect', 'rootRedirect'] as const) if (added[field] !== null) details[field] = added[field];
      await audit.record(actor, 'domain.add', subject(added), details);
      return added;
    },

    /**
     * Changes the fields present (null or '' clears one; null users opens it to every user). A user taken
     * off keeps their links on it; they only create no more there. Throws AppError: 'forbidden' unless an
     * admin acts; 'not_found', 'invalid'.
     */
    async editDomain(actor: Actor, host: unknown, input: DomainInput): Promise<Domain> {
      adminOnly(actor);
      const domain = named(host);
      const edit = await editOf(input);
      if (Object.keys(edit).length === 0) throw new AppError('invalid', `give at least one field to change (${DOMAIN_FIELDS.join(', ')})`);
      const edited = await store.updateDomain(domain.id, edit);
      if (!edited) throw new AppError('not_found', `no domain ${JSON.stringify(domain.host)}`);
      await reload();
      const shown = { ...edited, host: registry.hostOf(edited.id) };
      const details = changes(domain, shown);
      if (Object.keys(details).length > 0) await audit.record(actor, 'domain.edit', subject(shown), details);
      return shown;
    },

    /**
     * Removes a domain no live link is on; its deleted links keep their history (and the host may be added
     * again, as a new domain). Throws AppError: 'forbidden' unless an admin acts; 'not_found'; 'conflict'
     * for the default domain or while live links are on it.
     */
    async removeDomain(actor: Actor, host: unknown): Promise<Domain> {
      adminOnly(actor);
      const domain = named(host);
      if (domain.id === DEFAULT_DOMAIN)
        throw new AppError('conflict', `${domain.host} is the default domain (the publicUrl's host); it cannot be removed`);
      const outcome = await store.removeDomain(domain.id, new Date(now()));
      if (outcome === 'not_found') throw new AppError('not_found', `no domain ${JSON.stringify(domain.host)}`);
      if (outcome === 'in_use') {
        const links = (await store.listDomains()).find((d) => d.id === domain.id)?.links ?? 0;
        throw new AppError(
          'conflict',
          `${links} live link${links === 1 ? ' is' : 's are'} on ${domain.host}: move them to another domain (kurz edit CODE --domain ${domain.host} --move-to HOST) or delete them first`,
        );
      }
      await reload();
      await audit.record(actor, 'domain.remove', { kind: 'domain', id: domain.id, label: domain.host });
      return domain;
    },
  };
}
