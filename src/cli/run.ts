import { ConfigError, OPTIONS, flagName } from '../config.ts';
import { AppError } from '../errors.ts';
import { admin } from './admin.ts';
import { backup } from './backup.ts';
import { check } from './check.ts';
import { CommandError, EXIT, UsageError, commandHelp, runCommand, type Command, type Env } from './command.ts';
import { create } from './create.ts';
import { remove } from './delete.ts';
import { edit } from './edit.ts';
import { exportLinks } from './export.ts';
import { importLinks } from './import.ts';
import { keys } from './keys.ts';
import { list } from './list.ts';
import { migrate } from './migrate.ts';
import { prune } from './prune.ts';
import { serve } from './serve.ts';
import { stats } from './stats.ts';
import { version } from './version.ts';
import { backgroundWriter } from './background-writer.ts';
import { BACKGROUND_WRITER_COMMAND } from './wiring.ts';

const COMMANDS: Record<string, Command> = {
  serve,
  create,
  edit,
  list,
  stats,
  delete: remove,
  keys,
  admin,
  backup,
  check,
  export: exportLinks,
  import: importLinks,
  migrate,
  prune,
  version,
};

/** Flags of every command that take a value: the configuration's. */
const VALUE_FLAGS = new Set(OPTIONS.map((o) => `--${flagName(o.name)}`));

/**
 * Runs the command named by argv (serve when none); returns the exit code, or undefined while serving.
 * Configuration flags may come before the command: `kurz --db X list`.
 */
export async function runCli(argv: string[], env: Env): Promise<number | undefined> {
  const [first, ...rest] = argv;
  if (first === 'help' || first === '--help' || first === '-h') return printHelp(rest[0]);
  if (first === '--version' || first === '-v') return runCli(['version'], env);
  const at = commandIndex(argv);
  const name = at === -1 ? 'serve' : (argv[at] ?? 'serve');
  const args = at === -1 ? argv : [...argv.slice(0, at), ...argv.slice(at + 1)];
  try {
    const command = name === BACKGROUND_WRITER_COMMAND ? backgroundWriter : COMMANDS[name];
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}`);
    return await runCommand(name, command, args, env);
  } catch (err) {
    return report(err);
  }
}

/** Where the command's name stands: the first argument that is neither a flag nor a configuration flag's value. */
function commandIndex(argv: string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('-')) return i;
    if (VALUE_FLAGS.has(arg)) i++;
  }
  return -1;
}

/** Prints a failure in one line and picks its exit code; only unexpected errors print a stack. */
function report(err: unknown): number {
  const write = (line: string) => process.stderr.write(`kurz: ${line}\n`);
  if (err instanceof UsageError) {
    write(`${err.message}\nRun "kurz help" for usage.`);
    return EXIT.usage;
  }
  if (err instanceof ConfigError) {
    write(`invalid configuration: ${err.message}`);
    return EXIT.usage;
  }
  if (err instanceof AppError || err instanceof CommandError) {
    write(err.message);
    return EXIT.failed;
  }
  write((err as Error).message ?? String(err));
  return EXIT.failed;
}

function printHelp(topic: string | undefined): number {
  const command = topic === undefined ? undefined : COMMANDS[topic];
  if (command) {
    process.stdout.write(commandHelp(command));
    return EXIT.ok;
  }
  const lines = ['Usage: kurz [command] [flags]       (no command: serve)', '', 'Commands:'];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(9)} ${c.summary}`);
  lines.push(
    '',
    'Run "kurz COMMAND --help" for its flags.',
    '',
    'Configuration (flag, or KURZ_* environment variable, or key in the --config JSON file):',
  );
  for (const o of OPTIONS)
    lines.push(`  --${flagName(o.name).padEnd(22)} ${o.doc} (default: ${o.default === '' ? 'see text' : o.default})`);
  process.stdout.write(lines.join('\n') + '\n');
  return topic === undefined ? EXIT.ok : EXIT.usage;
}
