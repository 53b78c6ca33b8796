import type { Config } from '../config.ts';
import type { Link } from './link.ts';

/** What presenting a link needs: its short URL and the instance's defaults for options it leaves unset. */
export interface Presenter {
  config: Pick<Config, 'redirectStatus' | 'forwardQuery'>;
  shortUrl(code: string): string;
}

/**
 * The link as the API and the CLI's --json show it. `redirectStatus` and `forwardQuery` are what the
 * redirect does (the instance's setting when the link leaves them unset); the password is only ever
 * `passwordProtected`; `blocked` is the blocklist entry its target matches, or null.
 */
export function linkJson(link: Link, { config, shortUrl }: Presenter) {
  return {
    code: link.code,
    shortUrl: shortUrl(link.code),
    url: link.url,
    title: link.title,
    note: link.note,
    tags: link.tags,
    expiresAt: link.expiresAt?.toISOString() ?? null,
    maxVisits: link.maxVisits,
    visitsLeft: link.maxVisits === null ? null : Math.max(0, link.maxVisits - link.claimedVisits),
    passwordProtected: link.passwordHash !== null,
    redirectStatus: link.redirectStatus ?? config.redirectStatus,
    forwardQuery: link.forwardQuery ?? config.forwardQuery,
    enabled: link.enabled,
    blocked: link.blocked && { rule: link.blocked.rule, list: link.blocked.list, at: link.blocked.at.toISOString() },
    isAlias: link.isAlias,
    createdAt: link.createdAt.toISOString(),
    updatedAt: link.updatedAt.toISOString(),
    visitCount: link.visitCount,
    lastVisitAt: link.lastVisitAt?.toISOString() ?? null,
    deletedAt: link.deletedAt?.toISOString() ?? null,
  };
}

export type LinkJson = ReturnType<typeof linkJson>;
