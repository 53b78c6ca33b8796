import { readFileSync } from 'node:fs';
import { AppError } from '../core/errors.ts';
import { parseColumnMap } from '../transfer/sources/bitly.ts';
import { SOURCES, type ImportSource } from '../transfer/sources.ts';
import type { ImportReport } from '../transfer/transfer.ts';
import { CommandError, EXIT, JSON_FLAG, UsageError, type Command } from './command.ts';
import { AS_FLAG, actorFor } from './link-flags.ts';
import { parseFormat } from './export.ts';
import { withServices } from './wiring.ts';

export const importLinks: Command = {
  summary:
    'Add the links of a file under their own codes: a kurz export (CSV or NDJSON), or another shortener’s (--from). All or nothing: one bad record imports none; a code kurz has is never overwritten.',
  usage:
    'import FILE [--from kurz|yourls|shlink|kutt|bitly|csv] [--format csv|ndjson] [--map FIELD=COLUMN,…] [--dry-run] [--json] [--as USER]',
  examples: ['kurz import links.ndjson', 'kurz import yourls.sql --from yourls --dry-run'],
  flags: {
    as: AS_FLAG,
    from: {
      type: 'string',
      placeholder: SOURCES.join('|'),
      doc: 'what the file is: kurz (its export; the default), yourls (mysqldump), shlink (CSV), kutt (its SQLite file or a dump of links), bitly (CSV), csv (a list of URLs)',
    },
    format: { type: 'string', placeholder: 'csv|ndjson', doc: 'a kurz export’s format (default: from the file name, else csv)' },
    map: { type: 'string', placeholder: 'FIELD=COLUMN,…', doc: 'bitly: the column of code, url, title, tags, createdAt, visits' },
    'dry-run': { type: 'boolean', doc: 'say what would become of each line, and store nothing' },
    json: JSON_FLAG,
  },
  positionals: [1, 1],
  run({ values, positionals, config, out }) {
    const file = positionals[0] ?? '';
    const source = parseSource(values['from']);
    const format = parseFormat(values['format'], /\.(nd)?jsonl?$/i.test(file) ? 'ndjson' : 'csv');
    if (values['map'] !== undefined && source !== 'bitly') throw new UsageError('--map is for --from bitly');
    let map = {};
    try {
      map = parseColumnMap(typeof values['map'] === 'string' ? values['map'] : '');
    } catch (err) {
      throw new UsageError(`--${(err as AppError).message}`);
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(file === '-' ? 0 : file);
    } catch (err) {
      throw new CommandError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    return withServices(config, async (services) => {
      const read = services.transfer.readFile({ source, name: file, bytes, format, map });
      const actor = await actorFor(services, values['as']);
      const dryRun = values['dry-run'] === true;
      const report = await services.transfer.importLinks(actor, read.records, { from: source === 'kurz' ? 'kurz' : 'peer', dryRun });
      const skips = [...read.skips, ...report.lines.filter((l) => l.action === 'skip')].sort((a, b) => a.line - b.line);
      const skipped = report.skipped + read.skips.length;
      if (values['json']) {
        const lines = skips.map(({ line, code, reason }) => ({ line, code, reason }));
        out(JSON.stringify({ imported: report.imported, skipped, ...(dryRun ? { dryRun } : {}), skips: lines, notes: read.notes }) + '\n');
        return EXIT.ok;
      }
      out(summary(report, skipped, source, dryRun));
      for (const s of source === 'kurz' ? [] : skips) out(`line ${s.line}: skipped${s.code ? ` "${s.code}"` : ''}: ${s.reason}\n`);
      for (const note of read.notes) out(`note: ${note}\n`);
      return EXIT.ok;
    });
  },
};

function parseSource(value: unknown): ImportSource {
  if (value === undefined) return 'kurz';
  const source = SOURCES.find((s) => s === value);
  if (!source) throw new UsageError(`--from must be one of ${SOURCES.join(', ')}, got ${JSON.stringify(String(value))}`);
  return source;
}

function summary(report: ImportReport, skipped: number, source: ImportSource, dryRun: boolean): string {
  if (dryRun) return `would import ${report.imported} links, skip ${skipped}\n`;
  // kurz's own export skips only what is there already.
  return source === 'kurz'
    ? `imported ${report.imported} links, skipped ${skipped} already present\n`
    : `imported ${report.imported} links, skipped ${skipped}\n`;
}
