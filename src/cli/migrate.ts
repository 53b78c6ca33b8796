import { loadConfig } from '../config.ts';
import { CommandError, EXIT, UsageError, type Command } from './command.ts';
import { migrateToPostgres } from './wiring.ts';

export const migrate: Command = {
  summary:
    'Copy the SQLite database (links, visits, keys, sessions, settings, the code key) into an empty PostgreSQL database, then count both.',
  usage: 'migrate --to postgres://USER:PASSWORD@HOST:PORT/DATABASE [--db FILE]',
  examples: ['PGPASSWORD=secret kurz migrate --to postgres://kurz@db.example.com/kurz'],
  flags: { to: { type: 'string', placeholder: 'URL', doc: 'the empty PostgreSQL database to copy into' } },
  positionals: [0, 0],
  async run({ values, config, out }) {
    const to = values['to'];
    if (typeof to !== 'string' || to === '') throw new UsageError('migrate: --to postgres://… is required');
    let url: string;
    try {
      // Checked as the setting is; not as its flag, which refuses a password.
      url = loadConfig({ file: {}, env: { KURZ_DATABASE_URL: to } }).databaseUrl;
    } catch (err) {
      throw new UsageError(
        `migrate: --to ${(err as Error).message.replace(/^databaseUrl \(environment variable KURZ_DATABASE_URL\): /, '')}`,
      );
    }
    if (config.databaseUrl !== '')
      throw new UsageError('migrate: copies from the SQLite file (--db); unset --database-url / KURZ_DATABASE_URL');
    let counts;
    try {
      counts = await migrateToPostgres(config, url, (table) => out(`copying ${table}…\n`));
    } catch (err) {
      throw new CommandError(
        `migrate: ${(err as Error).message}; if the copy stopped part-way, empty the PostgreSQL database (DROP SCHEMA public CASCADE; CREATE SCHEMA public) and run it again`,
      );
    }
    const width = Math.max(...counts.map((c) => c.table.length));
    out(`${'table'.padEnd(width)}  ${'SQLite'.padStart(12)}  ${'PostgreSQL'.padStart(12)}\n`);
    for (const c of counts)
      out(
        `${c.table.padEnd(width)}  ${String(c.source).padStart(12)}  ${String(c.copied).padStart(12)}${c.source === c.copied ? '' : '  DIFFERS'}\n`,
      );
    const differ = counts.filter((c) => c.source !== c.copied);
    if (differ.length > 0) throw new CommandError(`migrate: ${differ.map((c) => c.table).join(', ')} differ after the copy`);
    out(`copied every row; point kurz at it with KURZ_DATABASE_URL (codes keep working unchanged)\n`);
    return EXIT.ok;
  },
};
