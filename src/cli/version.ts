import { VERSION } from '../version.ts';
import { EXIT, JSON_FLAG, withCore, type Command } from './command.ts';

export const version: Command = {
  summary: 'Print the versions of kurz, Node.js and SQLite, and the options Node runs with.',
  usage: 'version [--json]',
  flags: { json: JSON_FLAG },
  positionals: [0, 0],
  run: ({ values, config, out }) =>
    withCore({ ...config, db: ':memory:' }, ({ db }) => {
      const sqlite = db.prepare('SELECT sqlite_version() AS v').pluck().get() as string;
      const versions = { kurz: VERSION, node: process.versions.node, nodeOptions: process.execArgv, sqlite };
      const options = versions.nodeOptions.length > 0 ? ` (${versions.nodeOptions.join(' ')})` : '';
      out(
        values['json']
          ? JSON.stringify(versions) + '\n'
          : `kurz ${versions.kurz}\nnode ${versions.node}${options}\nsqlite ${versions.sqlite}\n`,
      );
      return EXIT.ok;
    }),
};
