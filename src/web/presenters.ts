import type { Actor } from '../auth/actor.ts';
import type { WebServices } from '../context.ts';
import { linkRefusal, notStarted } from '../links/gate.ts';
import type { Link } from '../links/link.ts';
import { DEFAULT_DOMAIN } from '../domains/domain.ts';

// Links as pages show them: times, states, rows of a list and the details of one link.

/** A time as the pages show it: `2026-01-15 12:00 UTC`. */
export function formatTime(date: Date): string {
  return `${date.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
}

/** What a link does now, in a word, and the badge's classes: redirecting, off, or off by the blocklist. */
export function linkState(link: Link, at: number): { label: string; classes: string } {
  if (link.deletedAt) return { label: 'deleted', classes: 'state-off' };
  if (notStarted(link.startsAt?.getTime() ?? null, at)) return { label: 'scheduled', classes: 'state-off state-scheduled' };
  const refusal = linkRefusal(link, at);
  if (refusal === 'in_review') return { label: 'in review', classes: 'state-review' };
  if (refusal) return { label: refusal.replace('_', ' '), classes: refusal === 'blocked' ? 'state-off state-blocked' : 'state-off' };
  return { label: link.passwordHash ? 'password' : 'active', classes: 'state-active' };
}

/**
 * A link as a row of a list. Its pages are `path` (and `path`/stats, /delete, …) followed by `query`:
 * `?domain=HOST` for a link off the default domain, '' on it; `href` is its page.
 */
export function linkRow(link: Link, web: WebServices) {
  const path = `/links/${encodeURIComponent(link.code)}`;
  const query = link.domain === DEFAULT_DOMAIN ? '' : `?domain=${encodeURIComponent(web.registry.hostOf(link.domain))}`;
  return {
    code: link.code,
    path,
    query,
    href: path + query,
    domain: web.registry.hostOf(link.domain),
    shortUrl: web.shortUrl(link),
    owner: web.ownerName(link.ownerId),
    url: link.url,
    title: link.title,
    tags: link.tags,
    /** Each tag with the list filtered by it. */
    tagLinks: link.tags.map((tag) => ({ tag, href: `/links?${new URLSearchParams({ tag })}` })),
    visitCount: link.visitCount,
    created: formatTime(link.createdAt),
    createdIso: link.createdAt.toISOString(),
    state: linkState(link, web.now()),
    deleted: link.deletedAt !== null,
    /** The bulk form's value for the link (bulk-form.ts reads it back): its code, after its host off the default domain. */
    address: link.domain === DEFAULT_DOMAIN ? link.code : `${web.registry.hostOf(link.domain)}/${link.code}`,
    statsHref: `${path}/stats${query}`,
    qrSvg: `/api/v1/links/${encodeURIComponent(link.code)}/qr?format=svg${domainParam(link, web)}`,
    /** What the list's badges say besides the state: it has redirect rules, an A/B split of how many variants. */
    rules: link.hasRules,
    split: link.split === null ? 0 : link.split.length,
  };
}

/** `&domain=HOST` for a link off the default domain, to follow other parameters; '' on it. */
function domainParam(link: Link, web: WebServices): string {
  return link.domain === DEFAULT_DOMAIN ? '' : `&domain=${encodeURIComponent(web.registry.hostOf(link.domain))}`;
}

/**
 * The domains a select offers, the default first (preselected where nothing else is chosen). With an actor,
 * only those they may create links on or move links to, and `keep`, the domain a link is on already.
 */
export function domainOptions(web: WebServices, actor?: Actor, keep?: number) {
  return web.registry
    .all()
    .filter((d) => actor === undefined || d.id === keep || web.registry.mayUse(actor, d.id))
    .map((d) => ({ value: d.host, label: d.id === DEFAULT_DOMAIN ? `${d.host} (default)` : d.host }));
}

/** A link with everything its page shows. */
export function linkDetails(link: Link, web: WebServices) {
  const { redirectStatus, forwardQuery } = web.config;
  return {
    ...linkRow(link, web),
    note: link.note,
    starts: link.startsAt ? formatTime(link.startsAt) : null,
    startsIso: link.startsAt ? link.startsAt.toISOString() : null,
    expires: link.expiresAt ? formatTime(link.expiresAt) : 'never',
    expiresIso: link.expiresAt ? link.expiresAt.toISOString() : null,
    visitsUsed: link.maxVisits === null ? `${link.claimedVisits} (no limit)` : `${link.claimedVisits} of ${link.maxVisits}`,
    password: link.passwordHash !== null,
    redirectStatus: link.redirectStatus === null ? `${redirectStatus} (instance default)` : String(link.redirectStatus),
    forwardQuery: link.forwardQuery === null ? `${forwardQuery ? 'yes' : 'no'} (instance default)` : link.forwardQuery ? 'yes' : 'no',
    enabled: link.enabled,
    crawlable: link.crawlable,
    review: link.review,
    reviewPath: `/review/${encodeURIComponent(link.code)}`,
    blocked: link.blocked && {
      rule: link.blocked.rule,
      list: link.blocked.list,
      since: formatTime(link.blocked.at),
      sinceIso: link.blocked.at.toISOString(),
    },
    updated: formatTime(link.updatedAt),
    updatedIso: link.updatedAt.toISOString(),
    lastVisit: link.lastVisitAt ? formatTime(link.lastVisitAt) : null,
    lastVisitIso: link.lastVisitAt?.toISOString() ?? null,
    deleted: link.deletedAt ? formatTime(link.deletedAt) : null,
    qrSvg: `/api/v1/links/${encodeURIComponent(link.code)}/qr?format=svg${domainParam(link, web)}`,
    qrPng: `/api/v1/links/${encodeURIComponent(link.code)}/qr?format=png&size=512${domainParam(link, web)}`,
    /** The QR code large, for a click on the small one: a screen's height, to scan from across a room. */
    qrLarge: `/api/v1/links/${encodeURIComponent(link.code)}/qr?format=svg&size=800${domainParam(link, web)}`,
  };
}

/** The instance's redirect settings, which link forms offer as "instance default". */
export function redirectDefaults(web: WebServices) {
  return { redirectStatus: web.config.redirectStatus, forwardQuery: web.config.forwardQuery };
}
