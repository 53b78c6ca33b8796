import { COMMIT, VERSION } from '../core/version.ts';
import { EXIT, JSON_FLAG, type Command } from './command.ts';
import { sqliteVersion } from './wiring.ts';

export const version: Command = {
  summary: 'Print the versions of kurz, Node.js and SQLite, and the options Node runs with.',
  usage: 'version [--json]',
  examples: ['kurz version --json'],
  flags: { json: { ...JSON_FLAG, doc: 'print JSON, which also names the commit kurz was built from and the CPU architecture' } },
  positionals: [0, 0],
  async run({ values, config, out }) {
    const sqlite = await sqliteVersion(config);
    const versions = {
      kurz: VERSION,
      commit: COMMIT,
      node: process.versions.node,
      nodeOptions: process.execArgv,
      sqlite,
      arch: process.arch,
    };
    const options = versions.nodeOptions.length > 0 ? ` (${versions.nodeOptions.join(' ')})` : '';
    out(
      values['json']
        ? JSON.stringify(versions) + '\n'
        : `kurz ${versions.kurz}\nnode ${versions.node}${options}\nsqlite ${versions.sqlite}\n`,
    );
    return EXIT.ok;
  },
};
