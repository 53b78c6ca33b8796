import { DEFAULT_DOMAIN, type DomainUse } from './domain.ts';

/**
 * A domain as the API and the CLI's --json show it; the default domain's host is the publicUrl's. `users`
 * (who may create links on it; null: everyone) and `links` (live, every user's) only for an admin: a member
 * is shown only the domains they may use, and never a count of others' links.
 */
export function domainJson(domain: DomainUse, forAdmin = true) {
  return {
    host: domain.host,
    isDefault: domain.id === DEFAULT_DOMAIN,
    scheme: domain.scheme,
    notFoundRedirect: domain.notFoundRedirect,
    rootRedirect: domain.rootRedirect,
    // Who may use it, and its live links (every user's): the admins' to know.
    ...(forAdmin ? { users: domain.users && domain.users.map((u) => u.name), links: domain.links } : {}),
    createdAt: domain.createdAt.toISOString(),
  };
}
