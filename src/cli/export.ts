import { FORMATS, csvHeader, formatRecord, type TransferFormat } from '../links/transfer-format.ts';
import { EXIT, UsageError, type Command } from './command.ts';
import { withServices } from './wiring.ts';

export const exportLinks: Command = {
  summary: 'Write every link (deleted ones too) to standard output; `kurz import` reads it back unchanged.',
  usage: 'export [--format csv|ndjson]',
  flags: {
    format: { type: 'string', placeholder: 'csv|ndjson', doc: 'output format (default csv); CSV cells are safe to open in a spreadsheet' },
  },
  positionals: [0, 0],
  run({ values, config, out }) {
    const format = parseFormat(values['format'], 'csv');
    return withServices(
      config,
      async (services) => {
        if (format === 'csv') out(csvHeader());
        for await (const record of services.transfer.exportLinks()) out(formatRecord(record, format));
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
  if (!format) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got "${String(value)}"`);
  return format;
}
