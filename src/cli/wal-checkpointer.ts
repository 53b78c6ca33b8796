import { openDatabase } from '../store/database.ts';
import { loadNativeBinding } from '../store/native.ts';
import { runCheckpoints } from '../store/wal-checkpointer.ts';
import { EXIT, type Command } from './command.ts';

/** Started by `serve`, not by people (not listed in help): see src/store/wal-checkpointer.ts. */
export const walCheckpointer: Command = {
  summary: 'Internal: checkpoint the WAL of --db every second while the parent server lives.',
  usage: 'wal-checkpointer --db FILE',
  flags: {},
  positionals: [0, 0],
  async run({ config }) {
    await runCheckpoints(openDatabase(config.db, { nativeBinding: loadNativeBinding(config.cacheDir) }));
    return EXIT.ok;
  },
};
