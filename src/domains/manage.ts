import { AppError } from '../core/errors.ts';
import type { DomainStore } from '../store/ports.ts';
import { DEFAULT_DOMAIN, normaliseHost, type Domain, type DomainEdit, type DomainUse, type Scheme } from './domain.ts';
import type { DomainRegistry } from './registry.ts';

export interface DomainDeps {
  store: DomainStore;
  registry: DomainRegistry;
  now: () => number;
}

/** What a domain is added or edited with, as every surface gives it (unchecked; null or '' clears a field). */
export interface DomainInput {
  scheme?: unknown;
  notFoundRedirect?: unknown;
  rootRedirect?: unknown;
}

/** The fields of DomainInput, which an edit must name at least one of. */
export const DOMAIN_FIELDS = ['scheme', 'notFoundRedirect', 'rootRedirect'] as const;

/** Longest redirect URL a domain keeps: as long as a link's target may be. */
const MAX_URL = 2048;

export type DomainManagement = ReturnType<typeof domainManagement>;

/**
 * Adding, editing and removing short domains. Each change reloads this process's registry at once; other
 * processes reload theirs from the change log (a trigger logs every change of the domains table).
 */
export function domainManagement({ store, registry, now }: DomainDeps) {
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

  /** The fields present in `input`, checked. */
  function editOf(input: DomainInput): DomainEdit {
    const edit: DomainEdit = {};
    if (input.scheme !== undefined) edit.scheme = scheme(input.scheme);
    if (input.notFoundRedirect !== undefined) edit.notFoundRedirect = redirectUrl(input.notFoundRedirect, 'notFoundRedirect');
    if (input.rootRedirect !== undefined) edit.rootRedirect = redirectUrl(input.rootRedirect, 'rootRedirect');
    return edit;
  }

  return {
    reload,

    named,

    /** Every domain, the default first (its host the publicUrl's), with its live links. */
    async listDomains(): Promise<DomainUse[]> {
      const domains = await store.listDomains();
      return domains.map((d) => (d.id === DEFAULT_DOMAIN ? { ...d, host: registry.defaultHost } : d));
    },

    /** Adds a domain. Throws AppError: 'invalid' naming the field, 'conflict' when the host is kurz's already. */
    async addDomain(host: unknown, input: DomainInput): Promise<Domain> {
      const name = normaliseHost(host);
      if (name === registry.defaultHost)
        throw new AppError('conflict', `${name} is the default domain already (the publicUrl's host)`, 'host');
      const edit = editOf(input);
      const added = await store.insertDomain({
        host: name,
        scheme: edit.scheme ?? null,
        notFoundRedirect: edit.notFoundRedirect ?? null,
        rootRedirect: edit.rootRedirect ?? null,
        createdAt: new Date(now()),
      });
      if (!added) throw new AppError('conflict', `the domain ${name} exists already`, 'host');
      await reload();
      return added;
    },

    /** Changes the fields present (null or '' clears one). Throws AppError: 'not_found', 'invalid'. */
    async editDomain(host: unknown, input: DomainInput): Promise<Domain> {
      const domain = named(host);
      const edit = editOf(input);
      if (Object.keys(edit).length === 0) throw new AppError('invalid', `give at least one field to change (${DOMAIN_FIELDS.join(', ')})`);
      const edited = await store.updateDomain(domain.id, edit);
      if (!edited) throw new AppError('not_found', `no domain ${JSON.stringify(domain.host)}`);
      await reload();
      return { ...edited, host: registry.hostOf(edited.id) };
    },

    /**
     * Removes a domain no live link is on; its deleted links keep their history (and the host may be added
     * again, as a new domain). Throws AppError: 'not_found'; 'conflict' for the default domain or while live
     * links are on it.
     */
    async removeDomain(host: unknown): Promise<Domain> {
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
      return domain;
    },
  };
}
