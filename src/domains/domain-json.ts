import { DEFAULT_DOMAIN, type DomainUse } from './domain.ts';

/**
 * A domain as the API and the CLI's --json show it; the default domain's host is the publicUrl's. `users`
 * (who may create links on it; null: everyone) only for an admin: a member is shown only domains they may use.
 */
export function domainJson(domain: DomainUse, withUsers = true) {
  return {
    host: domain.host,
    isDefault: domain.id === DEFAULT_DOMAIN,
    scheme: domain.scheme,
    notFoundRedirect: domain.notFoundRedirect,
    rootRedirect: domain.rootRedirect,
    ...(withUsers ? { users: domain.users && domain.users.map((u) => u.name) } : {}),
    links: domain.links,
    createdAt: domain.createdAt.toISOString(),
  };
}
