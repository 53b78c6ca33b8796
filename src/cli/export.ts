import { isAdmin } from '../auth/actor.ts';
import { FORMATS, type TransferFormat } from '../transfer/format.ts';
import { parseExportQuery } from '../visits/stats-query.ts';
import { exportLines } from '../transfer/visit-format.ts';
import { EXIT, UsageError, type Command } from './command.ts';
import { AS_FLAG, actorFor } from './link-flags.ts';
import { withServices } from './wiring.ts';

export const exportLinks: Command = {
  summary:
    'Write every link (deleted ones too) to standard output; `kurz import` reads it back unchanged. With --visits, the raw visits kept instead.',
  usage: 'export [--domain HOST] [--visits [--from DATE] [--to DATE]] [--format csv|ndjson] [--as USER]',
  examples: ['kurz export --format ndjson > links.ndjson'],
  flags: {
    as: AS_FLAG,
    format: { type: 'string', placeholder: 'csv|ndjson', doc: 'output format (default csv); CSV cells are safe to open in a spreadsheet' },
    domain: { type: 'string', placeholder: 'HOST', doc: 'only the links on this domain (see kurz domains list)' },
    visits: { type: 'boolean', doc: 'export the raw visits kept (visitRetentionDays), without client addresses or user agents' },
    from: { type: 'string', placeholder: 'DATE', doc: 'with --visits: only visits at or after this ISO 8601 date or time' },
    to: { type: 'string', placeholder: 'DATE', doc: 'with --visits: only visits before this ISO 8601 date or time' },
  },
  positionals: [0, 0],
  run({ values, config, out }) {
    if (!values['visits'] && (values['from'] !== undefined || values['to'] !== undefined))
      throw new UsageError('--from and --to go with --visits: links are always exported whole');
    const query = parseExportQuery({
      what: values['visits'] ? 'visits' : 'links',
      format: parseFormat(values['format'], 'csv'),
      from: values['from'],
      to: values['to'],
    });
    return withServices(
      config,
      async (services) => {
        const domain = values['domain'] === undefined ? undefined : services.registry.idOf(values['domain']);
        const actor = await actorFor(services, values['as']);
        if (query.what === 'visits' && !isAdmin(actor))
          throw new UsageError(`--visits is an admin's: the visits are every link's (${actor.name} is a member)`);
        const sources = {
          links: () => services.transfer.exportLinks(actor, domain),
          domainOf: services.transfer.fileDomain,
          visits: (from: Date, to: Date) => services.stats.visits(from, to),
        };
        // On the server, an export is a backup: password links keep their hashes (the API's leaves them out).
        for await (const line of exportLines(sources, query, 'with-hashes')) out(line);
        return EXIT.ok;
      },
      { existing: true },
    );
  },
};

/** The --format flag, or `fallback` when it is absent. */
export function parseFormat(value: unknown, fallback: TransferFormat): TransferFormat {
  if (value === undefined) return fallback;
  const format = FORMATS.find((f) => f === value);
  if (!format) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(String(value))}`);
  return format;
}
