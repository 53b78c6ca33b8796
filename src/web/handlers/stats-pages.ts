import type { Context } from 'koa';
import { actorOf } from '../session.ts';
import { isAdmin } from '../../auth/actor.ts';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { send } from '../../http/respond.ts';
import { envName, flagName } from '../../config.ts';
import { barChart, lineChart, MAX_SERIES, shareBar, trendLine, worldMap } from '../charts.ts';
import type { Entry, InstanceStats, LinkStats } from '../../visits/stats.ts';
import { parsePagePeriod, type PagePeriod, type PeriodChoices, PRESETS } from '../../visits/stats-query.ts';
import { DAY } from '../../visits/visit.ts';
import { statsCsv, type CsvSection } from '../../transfer/stats-format.ts';
import type { Link } from '../../links/link.ts';
import { showPage } from './pages.ts';
import { formatTime, linkRow } from '../presenters.ts';
import { domainOf, domainQuery } from '../domain-param.ts';

/** The top lists a link's stats page shows, with their headings. */
const TABLES: ReadonlyArray<[keyof LinkStats & string, string]> = [
  ['referrers', 'Referrers'],
  ['browsers', 'Browsers'],
  ['os', 'Operating systems'],
  ['devices', 'Devices'],
  ['countries', 'Countries'],
  ['languages', 'Languages'],
];

/** The link page's and a link's stats page's period, and the comparison's. */
export const LINK_PERIODS: PeriodChoices = { fallback: '30d' };
/** The dashboard's: 14 days unless told otherwise; the last 24 hours and up to 3 custom days by the hour. */
export const DASHBOARD_PERIODS: PeriodChoices = { fallback: '14d' };
/** Days the link page's trend line covers. */
const TREND_DAYS = 30;

const PRESET_LABELS: Record<keyof typeof PRESETS, string> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '14d': 'Last 14 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
};

/** Charts take ms points; the stats give dates. */
const points = (series: ReadonlyArray<{ t: Date; humans: number; bots: number }>) =>
  series.map((p) => ({ t: p.t.getTime(), humans: p.humans, bots: p.bots }));

/** Each entry with its share of `total`, as the tables show it, and the bar drawn beside it. */
function shares(entries: readonly Entry[], total: number) {
  return entries.map((e) => ({
    ...e,
    share: total === 0 ? '0%' : `${((100 * e.count) / total).toFixed(e.count * 1000 < total ? 1 : 0)}%`,
    bar: shareBar(e.count, total),
  }));
}

/** What the period picker shows: the choices (the page's own), the one made, the custom days and the fields to carry. */
export function pickerOf(period: PagePeriod, choices: PeriodChoices, action: string, keep: Array<[string, string]>) {
  const options = Object.entries(PRESET_LABELS).map(([value, label]) => ({ value, label }));
  return {
    action,
    keep,
    options: [...options, { value: 'custom', label: 'Custom days' }],
    choice: period.choice,
    from: period.firstDay,
    to: period.lastDay,
    label: period.label,
    step: period.granularity === 'hour' ? 'by the hour' : 'by the day',
  };
}

/** The query string of `period` (with `extra` first), as links to the CSV and between the pages carry it. */
export function periodQuery(period: PagePeriod, extra: Array<[string, string]> = []): string {
  const params = new URLSearchParams(extra);
  params.set('period', period.choice);
  if (period.choice === 'custom') {
    params.set('from', period.firstDay);
    params.set('to', period.lastDay);
  }
  return params.toString();
}

/** A CSV download: its name says what and which period. */
function sendCsv(ctx: Context, name: string, period: PagePeriod, sections: readonly CsvSection[]): void {
  const filename = `kurz-${name}-${period.firstDay}-to-${period.lastDay}.csv`.replace(/[^A-Za-z0-9_.-]/g, '_');
  send(
    ctx.res,
    200,
    {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${filename}"`,
      'Cache-Control': 'no-store',
    },
    statsCsv(sections),
  );
}

/** The series as CSV rows: each bucket's start, humans and bots. */
function seriesSection(name: string, series: ReadonlyArray<{ t: Date; humans: number; bots: number }>): CsvSection {
  return {
    name,
    rows: series.flatMap((p) => [[p.t.toISOString(), 'humans', p.humans] as const, [p.t.toISOString(), 'bots', p.bots] as const]),
  };
}

/** A link's figures as the CSV has them: totals, the series, each breakdown, the bots, the rules and the variants. */
function linkSections(stats: LinkStats, prefix = ''): CsvSection[] {
  return [
    {
      name: `${prefix}totals`,
      rows: [
        ['', 'humans', stats.visits.humans],
        ['', 'unique_visitors', stats.visits.uniqueVisitors],
        ['', 'bots', stats.visits.bots],
      ],
    },
    seriesSection(`${prefix}series_${stats.granularity}`, stats.series),
    ...[...TABLES.map(([key]) => key), 'bots' as const, 'rules' as const].map((key) => ({
      name: `${prefix}${key}`,
      rows: (stats[key] as Entry[]).map((e) => [e.name, 'visits', e.count] as const),
    })),
    {
      name: `${prefix}variants`,
      rows: stats.variants.flatMap((v) => [
        [v.url, 'visits', v.visits] as const,
        [v.url, 'humans', v.humans] as const,
        [v.url, 'unique_visitors', v.uniqueVisitors] as const,
      ]),
    },
  ];
}

const REGIONS = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** A country's entry as the table shows it: "Germany (DE)"; "unknown" and "other" as they are. */
function countryNamed(entry: Entry): Entry {
  if (!/^[A-Z]{2}$/.test(entry.name)) return entry;
  const name = REGIONS.of(entry.name) ?? entry.name;
  return { ...entry, name: name === entry.name ? name : `${name} (${entry.name})` };
}

/** Whose stats a comparison names: `code=CODE` on the `domain` parameter's domain, or `code=HOST/CODE`. */
function comparedCodes(ctx: Context, web: WebServices): Array<{ code: string; domain: number; text: string }> {
  const raw = ctx.query['code'];
  const texts = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((c) => c.trim()).filter((c) => c !== '');
  const fallback = domainOf(ctx, web.registry);
  return texts.map((text) => {
    const slash = text.lastIndexOf('/');
    if (slash < 0) return { code: text, domain: fallback, text };
    return { code: text.slice(slash + 1), domain: web.registry.idOf(text.slice(0, slash), 'code'), text };
  });
}

/** A link's visits page, the comparison of several, their CSVs, and the figures of the dashboard. */
export function statsPageHandlers(web: WebServices) {
  /** A link's figures for `period`, read once for the page and its CSV. */
  async function linkFigures(ctx: Context) {
    const link = await web.links.existingLink(actorOf(ctx), ctx.params['code'] ?? '', domainOf(ctx, web.registry));
    const period = parsePagePeriod(ctx.query, web.now(), LINK_PERIODS);
    const stats = await web.stats.forLink(link, { from: period.from, to: period.to, granularity: period.granularity });
    return { link, period, stats };
  }

  /** The links a comparison names (2 to MAX_SERIES, each one the actor may see), or the message saying why not. */
  async function comparedLinks(ctx: Context): Promise<{ links: Link[]; texts: string[]; error: AppError | null }> {
    const codes = comparedCodes(ctx, web);
    const texts = codes.map((c) => c.text);
    if (codes.length > MAX_SERIES)
      return {
        links: [],
        texts,
        error: new AppError('invalid', `compare at most ${MAX_SERIES} links at once (${codes.length} given)`, 'code'),
      };
    if (codes.length < 2)
      return { links: [], texts, error: new AppError('invalid', `compare at least two links: give two to ${MAX_SERIES} codes`, 'code') };
    const links: Link[] = [];
    for (const c of codes) {
      try {
        links.push(await web.links.existingLink(actorOf(ctx), c.code, c.domain));
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found')
          return { links: [], texts, error: new AppError('not_found', `no link has the code ${JSON.stringify(c.text)}`, 'code') };
        throw err;
      }
    }
    const seen = new Set(links.map((l) => l.id));
    if (seen.size < links.length) return { links: [], texts, error: new AppError('invalid', 'each link may be compared once', 'code') };
    return { links, texts, error: null };
  }

  /** The name a link goes by in a comparison: its code, with its host when not on the default domain. */
  const compareName = (link: Link) => (link.domain === 0 ? link.code : `${web.registry.hostOf(link.domain)}/${link.code}`);

  return {
    /** GET /links/:code/stats: the period's totals, its chart (hours or days), the top lists with bars, the bots, the CSV. */
    async showLinkStats(ctx: Context): Promise<void> {
      const { link, period, stats } = await linkFigures(ctx);
      const row = linkRow(link, web);
      const domain = domainQuery(link.domain, web.registry);
      const keep: Array<[string, string]> = domain === '' ? [] : [['domain', web.registry.hostOf(link.domain)]];
      const geoip = web.config.geoipDatabase !== '';
      showPage(ctx, web, 200, 'stats', {
        title: `Visits to ${link.code}`,
        section: 'links',
        link: { ...row, shortUrl: web.shortUrl(link), lastVisit: link.lastVisitAt ? formatTime(link.lastVisitAt) : null },
        picker: pickerOf(period, LINK_PERIODS, `${row.path}/stats`, keep),
        csv: `${row.path}/stats.csv?${periodQuery(period, keep)}`,
        // The comparison starts from this link: another code typed beside it.
        compare: { code: compareName(link), keep: [...new URLSearchParams(periodQuery(period))] },
        visits: stats.visits,
        chart: barChart({
          id: 'visits-chart',
          title: `Human visits per ${period.granularity}, ${period.label} (UTC)`,
          granularity: period.granularity,
          points: points(stats.series),
        }),
        tables: TABLES.filter(([key]) => geoip || key !== 'countries').map(([key, heading]) => ({
          key,
          heading,
          entries: shares(key === 'countries' ? stats.countries.map(countryNamed) : (stats[key] as Entry[]), stats.visits.humans),
        })),
        map: geoip
          ? worldMap({ id: 'countries-map', title: `Human visits by country, ${period.label}`, entries: stats.everyCountry })
          : null,
        // Without a GeoIP database every country is "unknown": say how to get them instead.
        geoHint: geoip
          ? null
          : {
              setting: 'geoipDatabase',
              env: envName('geoipDatabase'),
              flag: `--${flagName('geoipDatabase')}`,
              settings: isAdmin(actorOf(ctx)),
            },
        bots: shares(stats.bots, stats.visits.bots),
        // A link with rules (or that had some in the period): which rule decided each person's visit.
        rules:
          link.hasRules || stats.rules.length > 0
            ? {
                entries: shares(
                  stats.rules,
                  stats.rules.reduce((sum, e) => sum + e.count, 0),
                ),
                editor: `${row.path}#rule-editor`,
              }
            : null,
        variants: stats.variants.map((v) => ({
          ...v,
          bar: shareBar(
            v.visits,
            stats.variants.reduce((sum, x) => sum + x.visits, 0),
          ),
        })),
      });
    },

    /** GET /links/:code/stats.csv: what the stats page shows for the period, as CSV. */
    async exportLinkStats(ctx: Context): Promise<void> {
      const { link, period, stats } = await linkFigures(ctx);
      sendCsv(ctx, `stats-${link.code}`, period, linkSections(stats));
    },

    /** GET /stats/compare: two to five links' human visits on one chart, with a legend and each one's totals. */
    async showComparison(ctx: Context): Promise<void> {
      const period = parsePagePeriod(ctx.query, web.now(), LINK_PERIODS);
      const { links, texts, error } = await comparedLinks(ctx);
      // Nothing asked yet: the form alone.
      const asked = texts.length > 0;
      const all = await Promise.all(
        links.map((link) => web.stats.forLink(link, { from: period.from, to: period.to, granularity: period.granularity })),
      );
      const keep: Array<[string, string]> = [];
      const fields = [...texts, ...Array<string>(Math.max(0, MAX_SERIES - texts.length)).fill('')].slice(
        0,
        Math.max(MAX_SERIES, texts.length),
      );
      showPage(ctx, web, asked && error ? STATUS[error.code] : 200, 'compare', {
        title: 'Compare links',
        section: 'links',
        error: asked && error ? error.message : null,
        fields,
        picker: pickerOf(period, LINK_PERIODS, '/stats/compare', keep),
        csv: error
          ? null
          : `/stats/compare.csv?${periodQuery(
              period,
              links.map((l) => ['code', compareName(l)]),
            )}`,
        chart: error
          ? null
          : lineChart({
              id: 'compare-chart',
              title: `Human visits per ${period.granularity}, ${period.label} (UTC)`,
              granularity: period.granularity,
              series: links.map((l, i) => ({ name: compareName(l), points: points(all[i]!.series) })),
            }),
        legend: links.map((l, i) => ({
          n: i,
          name: compareName(l),
          href: `${linkRow(l, web).href}`,
          stats: `${linkRow(l, web).path}/stats?${periodQuery(period, l.domain === 0 ? [] : [['domain', web.registry.hostOf(l.domain)]])}`,
          url: l.url,
          humans: all[i]!.visits.humans,
          uniqueVisitors: all[i]!.visits.uniqueVisitors,
          bots: all[i]!.visits.bots,
        })),
      });
    },

    /** GET /stats/compare.csv: the compared links' series and breakdowns, each section named after its link. */
    async exportComparison(ctx: Context): Promise<void> {
      const period = parsePagePeriod(ctx.query, web.now(), LINK_PERIODS);
      const { links, error } = await comparedLinks(ctx);
      if (error) throw error;
      const all = await Promise.all(
        links.map((link) => web.stats.forLink(link, { from: period.from, to: period.to, granularity: period.granularity })),
      );
      const sections = links.flatMap((l, i) => linkSections(all[i]!, `${compareName(l)}:`));
      sendCsv(ctx, `compare-${links.map((l) => l.code).join('-')}`, period, sections);
    },
  };
}

/** The link page's "Visits (N) →" button: the human visits of the last 30 days, and their trend line. */
export async function visitTrend(web: WebServices, link: Link) {
  const to = new Date(Math.floor(web.now() / DAY) * DAY + DAY);
  const stats = await web.stats.forLink(link, { from: new Date(to.getTime() - TREND_DAYS * DAY), to, granularity: 'day' });
  return {
    href: `${linkRow(link, web).href.replace(/(\?|$)/, '/stats$1')}`,
    visits: stats.visits.humans,
    days: TREND_DAYS,
    line: trendLine(stats.series.map((p) => p.humans)),
  };
}

/** What the dashboard shows of the instance's figures for `period`. */
export function dashboardFigures(stats: InstanceStats, period: PagePeriod) {
  return {
    ...stats,
    label: period.label,
    chart: barChart({
      id: 'dashboard-days',
      title: `Human visits per ${stats.granularity}, ${period.label} (UTC)`,
      granularity: stats.granularity,
      points: points(stats.days),
    }),
    rows: stats.days
      .map((d) => ({
        ...d,
        day: stats.granularity === 'hour' ? `${d.t.toISOString().slice(0, 13).replace('T', ' ')}:00 UTC` : d.t.toISOString().slice(0, 10),
        today: d === stats.days.at(-1),
      }))
      .reverse(),
  };
}

/** The dashboard's figures as CSV: the period's totals, links created and visits per day, the top links, the domains. */
export function dashboardCsv(ctx: Context, stats: InstanceStats, period: PagePeriod, hostOf: (domain: number) => string): void {
  sendCsv(ctx, 'dashboard', period, [
    {
      name: 'totals',
      rows: [
        ['', 'humans', stats.period.humans],
        ['', 'unique_visitors', stats.period.uniqueVisitors],
        ['', 'bots', stats.period.bots],
        ['', 'links_created', stats.period.linksCreated],
      ],
    },
    {
      name: `series_${stats.granularity}`,
      rows: stats.days.flatMap((d) => {
        const t = d.t.toISOString();
        return [[t, 'humans', d.humans] as const, [t, 'bots', d.bots] as const, [t, 'links_created', d.linksCreated] as const];
      }),
    },
    {
      name: 'top_links',
      rows: stats.topLinks.flatMap((l) => {
        const name = l.domain === 0 ? l.code : `${hostOf(l.domain)}/${l.code}`;
        return [[name, 'humans', l.humans] as const, [name, 'unique_visitors', l.uniques] as const];
      }),
    },
    { name: 'domains', rows: stats.domains.map((d) => [hostOf(d.domain), 'humans', d.humans] as const) },
  ]);
}
