import type { Config } from '../../config.ts';
import { DEFAULT_DOMAIN } from '../../domains/domain.ts';
import type { Link, LinkAddress } from '../../links/link.ts';
import type { VisitTotal } from '../../visits/stats.ts';

/** What presenting a short URL needs: its short URL, its domain's host and the instance's query forwarding. */
export interface ShortUrlPresenter {
  config: Pick<Config, 'forwardQuery'>;
  shortUrl(link: LinkAddress): string;
  registry: { hostOf(domain: number): string };
}

/** A time as Shlink writes one (ISO 8601, seconds, an offset): 2026-01-02T03:04:05+00:00. */
export function shlinkTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}

/** Shlink's visits summary: every visit, people's and bots'. */
export function visitsSummary(total: VisitTotal): { total: number; nonBots: number; bots: number } {
  return { total: total.humans + total.bots, nonBots: total.humans, bots: total.bots };
}

/**
 * A link as Shlink's `ShortUrl`. `validSince` is its start time (null: valid from its creation); `forwardQuery`
 * is what the redirect does; `domain` is null on the default domain.
 */
export function shortUrlJson(link: Link, total: VisitTotal | undefined, web: ShortUrlPresenter) {
  return {
    shortCode: link.code,
    shortUrl: web.shortUrl(link),
    longUrl: link.url,
    dateCreated: shlinkTime(link.createdAt),
    visitsSummary: visitsSummary(total ?? { humans: link.visitCount, bots: 0 }),
    tags: link.tags,
    meta: {
      validSince: link.startsAt === null ? null : shlinkTime(link.startsAt),
      validUntil: link.expiresAt === null ? null : shlinkTime(link.expiresAt),
      maxVisits: link.maxVisits,
    },
    domain: link.domain === DEFAULT_DOMAIN ? null : web.registry.hostOf(link.domain),
    title: link.title,
    crawlable: link.crawlable,
    forwardQuery: link.forwardQuery ?? web.config.forwardQuery,
    hasRedirectRules: link.hasRules,
  };
}
