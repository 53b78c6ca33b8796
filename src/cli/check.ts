import { describeExposed, exposedFiles } from '../core/file-modes.ts';
import { EXIT, type Command } from './command.ts';
import { checkDatabase } from './wiring.ts';

export const check: Command = {
  summary:
    "Verify a database (FILE, e.g. a backup, or --db's): SQLite's integrity, that it is kurz's, that its tables agree; warn when others may read its files.",
  usage: 'check [FILE] [--quick]',
  examples: ['kurz check /var/backups/kurz/pre-upgrade.db'],
  flags: {
    quick: { type: 'boolean', doc: "SQLite's quick_check instead of integrity_check: faster, does not match indexes against their tables" },
  },
  positionals: [0, 1],
  async run({ values, positionals, config, out }) {
    const file = positionals[0];
    // A warning, not a problem: the data is sound, and the exit code says only that. Read before SQLite
    // opens the file, which may make its -wal and -shm anew.
    const sqliteFile = file ?? (config.databaseUrl === '' ? config.db : undefined);
    const exposed = sqliteFile === undefined ? [] : exposedFiles(sqliteFile);
    const report = await checkDatabase(config, { file, quick: values['quick'] === true });
    out(`checking ${file ?? (config.databaseUrl === '' ? config.db : 'the PostgreSQL database of databaseUrl')}\n`);
    for (const outcome of report.outcomes) {
      const [mark, note] =
        outcome.problems.length > 0 ? ['FAILED', ''] : outcome.skipped ? ['skipped', outcome.skipped] : ['ok', outcome.detail ?? ''];
      out(`${mark.padEnd(8)} ${outcome.name}${note ? `: ${note}` : ''}\n`);
      for (const problem of outcome.problems) out(`         ${problem}\n`);
    }
    for (const one of exposed) out(`${'warning'.padEnd(8)} ${describeExposed(one)}\n`);
    const failed = report.outcomes.filter((o) => o.problems.length > 0).length;
    if (failed > 0) {
      out(`${failed} of ${report.outcomes.length} checks failed\n`);
      return EXIT.problems;
    }
    const totals = report.totals ? `: ${report.totals.links} links, ${report.totals.visits} visits counted` : '';
    out(`ok${totals}\n`);
    return EXIT.ok;
  },
};
