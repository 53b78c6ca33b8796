import { DEFAULT_DOMAIN, type DomainUse } from './domain.ts';

/** A domain as the API and the CLI's --json show it; the default domain's host is the publicUrl's. */
export function domainJson(domain: DomainUse) {
  return {
    host: domain.host,
    isDefault: domain.id === DEFAULT_DOMAIN,
    scheme: domain.scheme,
    notFoundRedirect: domain.notFoundRedirect,
    rootRedirect: domain.rootRedirect,
    links: domain.links,
    createdAt: domain.createdAt.toISOString(),
  };
}
