import { EXIT, type Command } from './command.ts';
import { runBackgroundWriter } from './wiring.ts';

/** Started by `serve`, not by people (not listed in help): see src/store/sqlite/background-writer.ts. */
export const backgroundWriter: Command = {
  summary: 'Internal: write the visits of the parent server and checkpoint the WAL of --db while it lives.',
  usage: 'background --db FILE',
  flags: {},
  positionals: [0, 0],
  async run({ config }) {
    await runBackgroundWriter(config);
    return EXIT.ok;
  },
};
