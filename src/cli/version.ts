import { VERSION } from '../version.ts';
import { EXIT, JSON_FLAG, withCore, type Command } from './command.ts';

export const version: Command = {
  summary: 'Print the versions of kurz, Node.js and SQLite.',
  usage: 'version [--json]',
  flags: { json: JSON_FLAG },
  positionals: [0, 0],
  run: ({ values, config, out }) =>
    withCore({ ...config, db: ':memory:' }, ({ db }) => {
      const sqlite = db.prepare('SELECT sqlite_version() AS v').pluck().get() as string;
      const versions = { kurz: VERSION, node: process.versions.node, sqlite };
      out(values['json'] ? JSON.stringify(versions) + '\n' : `kurz ${versions.kurz}\nnode ${versions.node}\nsqlite ${versions.sqlite}\n`);
      return EXIT.ok;
    }),
};
