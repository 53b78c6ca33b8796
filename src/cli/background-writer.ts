import { EXIT, UsageError, type Command } from './command.ts';
import { runBackgroundWriter } from './wiring.ts';

/** Started by `serve`, not by people (not listed in help): see src/cluster/background-writer.ts. */
export const backgroundWriter: Command = {
  summary: "Internal: write the visits of the parent server (and checkpoint SQLite's WAL) while it lives.",
  usage: 'background [--db FILE] --handover NAME',
  examples: ['kurz background --db /var/lib/kurz/kurz.db --handover node-1'],
  flags: { handover: { type: 'string', doc: "the server's name for this process, under which it keeps how far it has written" } },
  positionals: [0, 0],
  async run({ config, values }) {
    const handover = values['handover'];
    if (typeof handover !== 'string' || handover === '') throw new UsageError('background: --handover NAME is required');
    await runBackgroundWriter(config, handover);
    return EXIT.ok;
  },
};
