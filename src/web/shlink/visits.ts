import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { sendJson } from '../../http/respond.ts';
import type { ScopedVisit, VisitScope } from '../../store/ports.ts';
import { actorOf } from '../session.ts';
import { dateRange, domainParam, flagParam, liveShortUrl, pageParams, pagination, param, paged } from './params.ts';
import { domainNotFound, tagNotFound } from './problems.ts';
import { shlinkTime, visitsSummary } from './short-url-json.ts';

const COUNTRY_NAMES = new Intl.DisplayNames(['en'], { type: 'region' });

/**
 * Where a visit came from, as Shlink's `VisitLocation`: kurz knows a country at most (with a GeoIP database);
 * an unknown one is Shlink's empty location.
 */
function locationOf(country: string | null) {
  const known = country !== null && country !== '';
  return {
    countryCode: known ? country : '',
    countryName: known ? (COUNTRY_NAMES.of(country) ?? country) : '',
    regionName: '',
    cityName: '',
    latitude: 0,
    longitude: 0,
    timezone: '',
    isEmpty: !known,
  };
}

/** /rest/v{1,2,3}/visits, and the visits of one short URL, tag or domain */
export function shlinkVisitHandlers(web: WebServices) {
  /**
   * A raw visit as Shlink's `Visit`. kurz keeps no user agent (only the browser and system it named, for the
   * stats), so `userAgent` is empty; `redirectUrl` is the link's target (a rule or an A/B split may have sent
   * the visitor elsewhere).
   */
  function visitJson(visit: ScopedVisit) {
    return {
      referer: visit.referrer ?? '',
      date: shlinkTime(visit.at),
      userAgent: '',
      visitLocation: locationOf(visit.country),
      potentialBot: visit.bot !== null,
      visitedUrl: web.shortUrl({ domain: visit.domain, code: visit.code }),
      redirectUrl: visit.url,
    };
  }

  /** `?domain=` narrowing a list of visits (`DEFAULT`: the default domain); a host kurz does not serve has none. */
  function domainFilter(ctx: Context): number | undefined {
    const host = param(ctx, 'domain');
    return host === undefined ? undefined : (domainParam(host, web.registry, true).id ?? -1);
  }

  /** A page of the visits `scope` names (with the query's dates, `excludeBots` and paging), in Shlink's list. */
  async function sendVisits(ctx: Context, scope: Pick<VisitScope, 'linkId' | 'tag' | 'domain'>): Promise<void> {
    const ask = pageParams(ctx);
    const { from, before } = dateRange(ctx);
    const period = { from: from ?? 0, to: before ?? Number.MAX_SAFE_INTEGER, humansOnly: flagParam(ctx, 'excludeBots') };
    const limit = ask.all ? 2 ** 31 - 1 : ask.size;
    const { visits, total } = await web.stats.visitPageFor(actorOf(ctx), { ...scope, ...period }, limit, ask.offset);
    sendJson(ctx.res, 200, { visits: { data: visits.map(visitJson), pagination: pagination(ask, visits.length, total) } });
  }

  return {
    /** Every visit of the caller's links (an admin: every link's), people's and bots'; kurz records no orphan visits. */
    async showVisitsOverview(ctx: Context): Promise<void> {
      const total = await web.stats.allTimeFor(actorOf(ctx));
      const none = visitsSummary({ humans: 0, bots: 0 });
      sendJson(ctx.res, 200, { visits: { nonOrphanVisits: visitsSummary(total), orphanVisits: none } });
    },

    async listShortUrlVisits(ctx: Context): Promise<void> {
      const link = await liveShortUrl(ctx, web);
      await sendVisits(ctx, { linkId: link.id });
    },

    async listTagVisits(ctx: Context): Promise<void> {
      const tag = ctx.params['tag'] ?? '';
      const tags = await web.links.tagCounts(actorOf(ctx));
      if (!tags.some((known) => known.tag === tag)) throw tagNotFound(tag);
      await sendVisits(ctx, { tag, domain: domainFilter(ctx) });
    },

    async listDomainVisits(ctx: Context): Promise<void> {
      const host = ctx.params['domain'] ?? '';
      const { id } = domainParam(host, web.registry, true);
      if (id === undefined) throw domainNotFound(host);
      await sendVisits(ctx, { domain: id });
    },

    async listNonOrphanVisits(ctx: Context): Promise<void> {
      await sendVisits(ctx, { domain: domainFilter(ctx) });
    },

    /** kurz records no orphan visits: none to delete, as Shlink answers when it tracked none. */
    deleteOrphanVisits(ctx: Context): void {
      sendJson(ctx.res, 200, { deletedVisits: 0 });
    },

    /** kurz records no visits to paths that are no short URL: always an empty list, as Shlink's when it tracks none. */
    listOrphanVisits(ctx: Context): void {
      pageParams(ctx);
      dateRange(ctx);
      const type = param(ctx, 'type');
      if (type !== undefined && !['invalid_short_url', 'base_url', 'regular_404'].includes(type))
        throw new AppError('invalid', 'type must be invalid_short_url, base_url or regular_404', 'type');
      sendJson(ctx.res, 200, { visits: paged(pageParams(ctx), []) });
    },
  };
}
