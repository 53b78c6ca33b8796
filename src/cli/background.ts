import { defaultDeps } from '../deps.ts';
import { runBackground } from '../store/background.ts';
import { openDatabase } from '../store/database.ts';
import { loadNativeBinding } from '../store/native.ts';
import { EXIT, type Command } from './command.ts';

/** Started by `serve`, not by people (not listed in help): see src/store/background.ts. */
export const background: Command = {
  summary: 'Internal: write the visit counts of the parent server and checkpoint the WAL of --db while it lives.',
  usage: 'background --db FILE',
  flags: {},
  positionals: [0, 0],
  async run({ config }) {
    await runBackground(openDatabase(config.db, { nativeBinding: loadNativeBinding(config.cacheDir) }), defaultDeps().log);
    return EXIT.ok;
  },
};
