import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { parseRecords } from '../transfer/format.ts';
import { RESERVED_PATHS } from '../links/reserved-paths.ts';
import { CommandError, EXIT, JSON_FLAG, type Command } from './command.ts';
import { AS_FLAG, actorFor } from './link-flags.ts';
import { parseFormat } from './export.ts';
import { withServices } from './wiring.ts';

export const importLinks: Command = {
  summary: 'Add the links of a kurz export (CSV or NDJSON) under their own codes. All or nothing: one bad record imports none.',
  usage: 'import FILE [--format csv|ndjson] [--json] [--as USER]',
  flags: {
    as: AS_FLAG,
    format: { type: 'string', placeholder: 'csv|ndjson', doc: 'input format (default: from the file name, else csv)' },
    json: JSON_FLAG,
  },
  positionals: [1, 1],
  run({ values, positionals, config, out }) {
    const file = positionals[0] ?? '';
    const format = parseFormat(values['format'], /\.(nd)?jsonl?$/i.test(file) ? 'ndjson' : 'csv');
    let bytes: Buffer;
    try {
      bytes = readFileSync(file === '-' ? 0 : file);
    } catch (err) {
      throw new CommandError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    // Decoding would turn bytes that are not UTF-8 into U+FFFD, and that is what would be imported.
    if (!isUtf8(bytes)) throw new CommandError(`${file} is not UTF-8 text: save it as UTF-8 and import it again`);
    const text = bytes.toString('utf8');
    return withServices(config, async (services) => {
      const records = parseRecords(text, format, RESERVED_PATHS, services.transfer.domainOfFile);
      const result = await services.transfer.importLinks(await actorFor(services, values['as']), records);
      out(
        values['json'] ? JSON.stringify(result) + '\n' : `imported ${result.imported} links, skipped ${result.skipped} already present\n`,
      );
      return EXIT.ok;
    });
  },
};
