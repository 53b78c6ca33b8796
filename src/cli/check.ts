import { EXIT, type Command } from './command.ts';
import { checkDatabase } from './wiring.ts';

export const check: Command = {
  summary: "Verify a database (FILE, e.g. a backup, or --db's): SQLite's integrity, that it is kurz's, and that its tables agree.",
  usage: 'check [FILE] [--quick]',
  flags: {
    quick: { type: 'boolean', doc: "SQLite's quick_check instead of integrity_check: faster, does not match indexes against their tables" },
  },
  positionals: [0, 1],
  async run({ values, positionals, config, out }) {
    const file = positionals[0];
    const report = await checkDatabase(config, { file, quick: values['quick'] === true });
    out(`checking ${file ?? (config.databaseUrl === '' ? config.db : 'the PostgreSQL database of --database-url')}\n`);
    for (const outcome of report.outcomes) {
      const [mark, note] =
        outcome.problems.length > 0 ? ['FAILED', ''] : outcome.skipped ? ['skipped', outcome.skipped] : ['ok', outcome.detail ?? ''];
      out(`${mark.padEnd(8)} ${outcome.name}${note ? `: ${note}` : ''}\n`);
      for (const problem of outcome.problems) out(`         ${problem}\n`);
    }
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
