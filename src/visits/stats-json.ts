import type { Presenter } from '../links/link-json.ts';
import type { InstanceStats, LinkStats } from './stats.ts';

/** A link's figures as `GET /api/v1/links/CODE/stats` and `kurz stats CODE --json` show them. */
export function linkStatsJson(stats: LinkStats) {
  return {
    from: stats.from.toISOString(),
    to: stats.to.toISOString(),
    granularity: stats.granularity,
    visits: stats.visits,
    lastVisitAt: stats.lastVisitAt?.toISOString() ?? null,
    series: stats.series.map((p) => ({ t: p.t.toISOString(), humans: p.humans, bots: p.bots })),
    referrers: stats.referrers,
    browsers: stats.browsers,
    os: stats.os,
    devices: stats.devices,
    countries: stats.countries,
    languages: stats.languages,
    bots: stats.bots,
    variants: stats.variants,
    rules: stats.rules,
  };
}

/** The instance's figures as `GET /api/v1/stats` shows them; `domains` only when there are several. */
export function instanceStatsJson(stats: InstanceStats, { shortUrl, registry }: Pick<Presenter, 'shortUrl' | 'registry'>) {
  return {
    from: stats.from.toISOString(),
    to: stats.to.toISOString(),
    totals: { links: stats.links, humans: stats.humansAllTime },
    period: stats.period,
    days: stats.days.map((d) => ({ ...d, t: d.t.toISOString() })),
    domains: stats.domains.map((d) => ({ domain: registry.hostOf(d.domain), links: d.links, humans: d.humans })),
    topLinks: stats.topLinks.map((l) => ({
      code: l.code,
      shortUrl: shortUrl(l),
      url: l.url,
      title: l.title,
      humans: l.humans,
      bots: l.bots,
      uniqueVisitors: l.uniques,
    })),
  };
}
