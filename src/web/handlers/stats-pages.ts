import type { Context } from 'koa';
import { actorOf } from '../session.ts';
import type { WebServices } from '../../context.ts';
import { barChart } from '../charts.ts';
import type { Entry, InstanceStats, LinkStats } from '../../visits/stats.ts';
import { showPage } from './pages.ts';
import { formatTime, linkRow } from '../presenters.ts';
import { domainOf } from '../domain-param.ts';

/** The top lists a link's stats page shows, with their headings. */
const TABLES: ReadonlyArray<[keyof LinkStats & string, string]> = [
  ['referrers', 'Referrers'],
  ['browsers', 'Browsers'],
  ['os', 'Operating systems'],
  ['devices', 'Devices'],
  ['countries', 'Countries'],
  ['languages', 'Languages'],
];

/** Charts take ms points; the stats give dates. */
const points = (series: ReadonlyArray<{ t: Date; humans: number; bots: number }>) =>
  series.map((p) => ({ t: p.t.getTime(), humans: p.humans, bots: p.bots }));

/** Each entry with its share of `total`, as the tables show it. */
function shares(entries: readonly Entry[], total: number) {
  return entries.map((e) => ({
    ...e,
    share: total === 0 ? '0%' : `${((100 * e.count) / total).toFixed(e.count * 1000 < total ? 1 : 0)}%`,
  }));
}

/** A link's visits page, and the figures of the dashboard. */
export function statsPageHandlers(web: WebServices) {
  return {
    /** GET /links/:code/stats: totals, the last 48 hours by the hour, the last 90 days by the day, the top lists. */
    async showLinkStats(ctx: Context): Promise<void> {
      const link = await web.links.existingLink(actorOf(ctx), ctx.params['code'] ?? '', domainOf(ctx, web.registry));
      const [hours, days] = await Promise.all([
        web.stats.forLink(link, { granularity: 'hour' }),
        web.stats.forLink(link, { granularity: 'day' }),
      ]);
      const row = linkRow(link, web);
      showPage(ctx, web, 200, 'stats', {
        title: `Visits to ${link.code}`,
        section: 'links',
        link: { ...row, shortUrl: web.shortUrl(link), lastVisit: link.lastVisitAt ? formatTime(link.lastVisitAt) : null },
        period: { from: formatTime(days.from), to: formatTime(days.to) },
        visits: days.visits,
        hourChart: barChart({
          id: 'hours',
          title: 'Human visits per hour, last 48 hours (UTC)',
          granularity: 'hour',
          points: points(hours.series),
        }),
        dayChart: barChart({
          id: 'days',
          title: 'Human visits per day, last 90 days (UTC)',
          granularity: 'day',
          points: points(days.series),
        }),
        tables: TABLES.map(([key, heading]) => ({ key, heading, entries: shares(days[key] as Entry[], days.visits.humans) })),
        bots: shares(days.bots, days.visits.bots),
        variants: days.variants,
      });
    },
  };
}

/** What the dashboard shows of the instance's figures. */
export function dashboardFigures(stats: InstanceStats) {
  return {
    ...stats,
    chart: barChart({
      id: 'dashboard-days',
      title: `Human visits per day, last ${stats.days.length} days (UTC)`,
      granularity: 'day',
      points: points(stats.days),
    }),
    rows: stats.days.map((d) => ({ ...d, day: d.t.toISOString().slice(0, 10), today: d === stats.days.at(-1) })).reverse(),
  };
}
