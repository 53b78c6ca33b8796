import type { DomainUse } from './domain.ts';

/** A domain as the API and the CLI's --json show it; the default domain's host is the publicUrl's. */
export function domainJson(domain: DomainUse, defaultHost: string) {
  return {
    host: domain.host,
    isDefault: domain.host === defaultHost,
    scheme: domain.scheme,
    notFoundRedirect: domain.notFoundRedirect,
    rootRedirect: domain.rootRedirect,
    links: domain.links,
    createdAt: domain.createdAt.toISOString(),
  };
}
