import { actorFor, AS_FLAG, DOMAIN_FLAG } from './link-flags.ts';
import { linkJson } from '../links/link-json.ts';
import { sparkline } from '../web/charts.ts';
import type { Entry, LinkStats } from '../visits/stats.ts';
import { linkStatsJson } from '../visits/stats-json.ts';
import { parseStatsQuery } from '../visits/stats-query.ts';
import { EXIT, JSON_FLAG, type Command } from './command.ts';
import { withServices } from './wiring.ts';

/** The widest sparkline printed; longer series are summed into fewer characters. */
const SPARK_WIDTH = 60;

export const stats: Command = {
  summary: "Show one link's visits: humans and bots apart, unique visitors, a sparkline and the top referrers, browsers, countries….",
  usage: 'stats CODE [--domain HOST] [--granularity hour|day] [--from DATE] [--to DATE] [--json] [--as USER]',
  examples: ['kurz stats docs --granularity hour'],
  flags: {
    as: AS_FLAG,
    granularity: {
      type: 'string',
      placeholder: 'hour|day',
      doc: 'one sparkline character per hour (last 48 h) or per day (last 90 days, the default)',
    },
    from: { type: 'string', placeholder: 'DATE', doc: 'start of the period, ISO 8601 (2026-11-01 or 2026-11-01T12:00:00Z)' },
    to: { type: 'string', placeholder: 'DATE', doc: 'end of the period (exclusive), ISO 8601; default now' },
    domain: DOMAIN_FLAG,
    json: JSON_FLAG,
  },
  positionals: [1, 1],
  run: ({ values, positionals, config, out }) =>
    withServices(
      config,
      async (services) => {
        const period = parseStatsQuery({ granularity: values['granularity'], from: values['from'], to: values['to'] });
        const link = await services.links.existingLink(
          await actorFor(services, values['as']),
          positionals[0] ?? '',
          services.registry.idOf(values['domain']),
        );
        const figures = await services.stats.forLink(link, period);
        const shown = linkJson(link, services);
        if (values['json']) {
          out(JSON.stringify({ ...shown, stats: linkStatsJson(figures) }) + '\n');
          return EXIT.ok;
        }
        const { visits } = figures;
        const rows: Array<[string, string]> = [
          ['Short URL', shown.shortUrl],
          ['Target', shown.url],
          ['Created', shown.createdAt],
          ['Visits', String(shown.visitCount)],
          ['Last visit', shown.lastVisitAt ?? 'never'],
        ];
        if (shown.deletedAt) rows.push(['Deleted', shown.deletedAt]);
        const humans = figures.series.map((p) => p.humans);
        rows.push(
          ['Period', `${day(figures.from)} to ${day(figures.to)} UTC, by ${figures.granularity}`],
          [
            'In period',
            `${count(visits.humans)} human visits, ${count(visits.uniqueVisitors)} unique visitors, ${count(visits.bots)} bot hits`,
          ],
          ['Humans', `${sparkline(squeezed(humans))} peak ${count(Math.max(0, ...humans))} per ${figures.granularity}`],
          ...(visits.detailDropped > 0
            ? [
                ['Detail dropped', `${count(visits.detailDropped)} visits only counted (too many waited for the database)`] as [
                  string,
                  string,
                ],
              ]
            : []),
          ...lists(figures),
          // An A/B split's variants: one line each.
          ...figures.variants.map((v, i): [string, string] => [
            i === 0 ? 'Variants' : '',
            `${v.url}: ${count(v.visits)} visits, ${count(v.uniqueVisitors)} unique visitors, ${count(v.humans)} humans`,
          ]),
        );
        out(rows.map(([k, v]) => `${k.padEnd(11)} ${v}`).join('\n') + '\n');
        return EXIT.ok;
      },
      { existing: true },
    ),
};

function lists(figures: LinkStats): Array<[string, string]> {
  const named: Array<[string, Entry[]]> = [
    ['Referrers', figures.referrers],
    ['Browsers', figures.browsers],
    ['OS', figures.os],
    ['Devices', figures.devices],
    ['Countries', figures.countries],
    ['Languages', figures.languages],
    ['Bots', figures.bots],
    ['Rules', figures.rules],
  ];
  return named
    .filter(([, entries]) => entries.length > 0)
    .map(([name, entries]) => [name, entries.map((e) => `${e.name} ${count(e.count)}`).join(', ')]);
}

/** At most SPARK_WIDTH values, neighbours summed, the newest last. */
function squeezed(values: readonly number[]): number[] {
  const per = Math.ceil(values.length / SPARK_WIDTH);
  if (per <= 1) return [...values];
  const out: number[] = [];
  for (let end = values.length; end > 0; end -= per) out.unshift(values.slice(Math.max(0, end - per), end).reduce((a, b) => a + b, 0));
  return out;
}

const count = (n: number): string => n.toLocaleString('en-US');
const day = (d: Date): string => d.toISOString().slice(0, 16).replace('T', ' ');
