import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { CommandError, EXIT, type Command } from './command.ts';
import { backupDatabase } from './wiring.ts';

export const backup: Command = {
  summary: 'Copy the live database to FILE: an online, consistent snapshot, safe while kurz serves.',
  usage: 'backup FILE [--force]',
  examples: ['kurz backup /var/backups/kurz/kurz-$(date +%F).db'],
  flags: { force: { type: 'boolean', doc: 'replace FILE if it exists' } },
  positionals: [1, 1],
  async run({ values, positionals, config, out }) {
    if (config.databaseUrl !== '') {
      throw new CommandError('kurz backup copies the SQLite file; on PostgreSQL, back up with pg_dump (see the README)');
    }
    const target = positionals[0] ?? '';
    if (existsSync(target) && !values['force']) throw new CommandError(`${target} exists; pass --force to replace it`);
    if (!existsSync(dirname(target) || '.')) throw new CommandError(`cannot write ${target}: folder ${dirname(target)} does not exist`);
    const pages = await backupDatabase(config, target);
    out(`backed up ${pages} pages to ${target}\n`);
    return EXIT.ok;
  },
};
