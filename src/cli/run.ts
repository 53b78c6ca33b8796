import { parseArgs } from 'node:util';
import { ConfigError, OPTIONS, flagName } from '../config.ts';
import { serve } from './serve.ts';

export type Env = Record<string, string | undefined>;

/** Exit codes: 0 success, 1 failure at run time, 2 bad usage or configuration. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Thrown for a command line that cannot be understood; printed with the usage hint, exit 2. */
export class UsageError extends Error {}

interface Command {
  summary: string;
  /** Resolves to an exit code, or to undefined when the command keeps running (serve). */
  run: (args: string[], env: Env) => Promise<number | undefined>;
}

const COMMANDS: Record<string, Command> = {
  serve: { summary: 'Start the web server (the default command)', run: serve },
};

/** Every config option as a `--kebab-case VALUE` flag, for commands that read the config. */
export function parseConfigFlags(args: string[]): Record<string, string> {
  const options = Object.fromEntries(OPTIONS.map((o) => [flagName(o.name), { type: 'string' as const }]));
  try {
    const { values } = parseArgs({ args, options, strict: true, allowPositionals: false });
    return values as Record<string, string>;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Parses the command line and runs the command; returns the exit code, or undefined while serving. */
export async function runCli(argv: string[], env: Env): Promise<number | undefined> {
  const [first, ...rest] = argv;
  const name = first === undefined || first.startsWith('-') ? 'serve' : first;
  const args = name === first ? rest : argv;
  if (name === 'help' || name === '--help' || name === '-h') return printHelp();
  const command = COMMANDS[name];
  try {
    if (!command) throw new UsageError(`unknown command "${name}"`);
    return await command.run(args, env);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`kurz: ${err.message}\nRun "kurz help" for usage.\n`);
      return EXIT.usage;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`kurz: invalid configuration: ${err.message}\n`);
      return EXIT.usage;
    }
    process.stderr.write(`kurz: ${(err as Error).message}\n`);
    return EXIT.failed;
  }
}

function printHelp(): number {
  const lines = ['Usage: kurz [command] [flags]', '', 'Commands:'];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(10)} ${c.summary}`);
  lines.push('', 'Configuration flags (also KURZ_* environment variables and a JSON config file):');
  for (const o of OPTIONS) lines.push(`  --${flagName(o.name).padEnd(22)} ${o.doc} (default: ${o.default === '' ? 'none' : o.default})`);
  process.stdout.write(lines.join('\n') + '\n');
  return EXIT.ok;
}
