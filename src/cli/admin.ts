import { CommandError, EXIT, subcommandOf, type Command } from './command.ts';
import { askSecret, readSecretLine } from './secret-input.ts';
import { withServices } from './wiring.ts';

export const admin: Command = {
  summary: 'Manage the admin account.',
  usage: 'admin password',
  subcommands: {
    password: {
      usage: 'admin password',
      summary: 'set the admin password: asked twice on a terminal, else the first line of standard input; ends every login session',
    },
  },
  examples: ['kurz admin password', 'printf \'%s\\n\' "$NEW_PASSWORD" | kurz admin password'],
  flags: {},
  positionals: [0, 1],
  async run({ positionals, config, out }) {
    subcommandOf('admin', admin, positionals);
    const password = process.stdin.isTTY ? await askTwice() : await readSecretLine('password');
    await withServices(config, (services) => services.access.setPassword(password));
    out('admin password changed; every login session was ended\n');
    return EXIT.ok;
  },
};

async function askTwice(): Promise<string> {
  const password = await askSecret('New admin password: ');
  if (password === '') throw new CommandError('no password given; nothing was changed');
  if ((await askSecret('Repeat it: ')) !== password) throw new CommandError('the two passwords differ; nothing was changed');
  return password;
}
