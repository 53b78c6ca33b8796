import { readFileSync } from 'node:fs';
import { RESERVED_PATHS } from '../http/routes.ts';
import { parseRecords } from '../links/transfer.ts';
import { CommandError, EXIT, JSON_FLAG, withCore, type Command } from './command.ts';
import { parseFormat } from './export.ts';

export const importLinks: Command = {
  summary: 'Add the links of a kurz export (CSV or NDJSON) under their own codes. All or nothing: one bad record imports none.',
  usage: 'import FILE [--format csv|ndjson] [--json]',
  flags: {
    format: { type: 'string', placeholder: 'csv|ndjson', doc: 'input format (default: from the file name, else csv)' },
    json: JSON_FLAG,
  },
  positionals: [1, 1],
  run({ values, positionals, config, out }) {
    const file = positionals[0] ?? '';
    const format = parseFormat(values['format'], /\.(nd)?jsonl?$/i.test(file) ? 'ndjson' : 'csv');
    let text: string;
    try {
      text = readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (err) {
      throw new CommandError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const records = parseRecords(text, format, RESERVED_PATHS);
    return withCore(config, ({ services }) => {
      const result = services.links.importLinks(records);
      out(
        values['json'] ? JSON.stringify(result) + '\n' : `imported ${result.imported} links, skipped ${result.skipped} already present\n`,
      );
      return EXIT.ok;
    });
  },
};
