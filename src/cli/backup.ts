import { existsSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { openDatabase } from '../store/database.ts';
import { loadNativeBinding } from '../store/native.ts';
import { CommandError, EXIT, withCore, type Command } from './command.ts';

export const backup: Command = {
  summary: 'Copy the live database to FILE: an online, consistent snapshot, safe while kurz serves.',
  usage: 'backup FILE [--force]',
  flags: { force: { type: 'boolean', doc: 'replace FILE if it exists' } },
  positionals: [1, 1],
  async run({ values, positionals, config, out }) {
    const target = positionals[0] ?? '';
    if (existsSync(target) && !values['force']) throw new CommandError(`${target} exists; pass --force to replace it`);
    if (!existsSync(dirname(target) || '.')) throw new CommandError(`cannot write ${target}: folder ${dirname(target)} does not exist`);
    // The copy is made next to the target and renamed over it only once complete and checked.
    const temp = `${target}.partial-${process.pid}`;
    try {
      const pages = await withCore(config, async ({ db }) => (await db.backup(temp)).totalPages);
      const copy = openDatabase(temp, { nativeBinding: loadNativeBinding(config.cacheDir) });
      try {
        const check = copy.pragma('quick_check', { simple: true });
        if (check !== 'ok') throw new CommandError(`the copy failed its integrity check: ${String(check)}`);
        copy.pragma('journal_mode = DELETE');
      } finally {
        copy.close();
      }
      renameSync(temp, target);
      out(`backed up ${pages} pages to ${target}\n`);
      return EXIT.ok;
    } finally {
      rmSync(temp, { force: true });
    }
  },
};
