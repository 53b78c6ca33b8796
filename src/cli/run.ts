import { ConfigError, OPTIONS, flagName } from '../config.ts';
import { AppError } from '../core/errors.ts';
import { CommandError, EXIT, UsageError, commandHelp, runCommand, type Command, type Env } from './command.ts';
import { BACKGROUND_WRITER_COMMAND } from '../cluster/background-writer.ts';

/**
 * Each command's module, loaded when it runs: the background writer (a process beside every server) and
 * the one-shot commands then load none of the web server (Koa, the templates, QR codes).
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve.ts')).serve,
  create: async () => (await import('./create.ts')).create,
  edit: async () => (await import('./edit.ts')).edit,
  list: async () => (await import('./list.ts')).list,
  stats: async () => (await import('./stats.ts')).stats,
  delete: async () => (await import('./delete.ts')).remove,
  domains: async () => (await import('./domains.ts')).domains,
  users: async () => (await import('./users.ts')).users,
  keys: async () => (await import('./keys.ts')).keys,
  admin: async () => (await import('./admin.ts')).admin,
  backup: async () => (await import('./backup.ts')).backup,
  check: async () => (await import('./check.ts')).check,
  export: async () => (await import('./export.ts')).exportLinks,
  import: async () => (await import('./import.ts')).importLinks,
  migrate: async () => (await import('./migrate.ts')).migrate,
  prune: async () => (await import('./prune.ts')).prune,
  audit: async () => (await import('./audit.ts')).audit,
  review: async () => (await import('./review.ts')).review,
  rules: async () => (await import('./rules.ts')).rules,
  answers: async () => (await import('./answers.ts')).answers,
  version: async () => (await import('./version.ts')).version,
  completion: async () => (await import('./completion.ts')).completion(listedCommands),
  healthcheck: async () => (await import('./healthcheck.ts')).healthcheck,
};

/** Every command people run, in the order help lists them: what help, the completions and the man page read. */
export async function listedCommands(): Promise<Array<[name: string, command: Command]>> {
  return Promise.all(Object.entries(COMMANDS).map(async ([name, load]) => [name, await load()] as [string, Command]));
}

/** Started by `serve`, not by people: not listed in help. */
const backgroundWriter = async (): Promise<Command> => (await import('./background-writer.ts')).backgroundWriter;

/** Flags of every command that take a value: the configuration's. */
const VALUE_FLAGS = new Set(OPTIONS.map((o) => `--${flagName(o.name)}`));

/**
 * Runs the command named by argv (serve when none); returns the exit code, or undefined while serving.
 * Configuration flags may come before the command: `kurz --db X list`.
 */
export async function runCli(argv: string[], env: Env): Promise<number | undefined> {
  const [first, ...rest] = argv;
  if (first === 'help' || first === '--help' || first === '-h') {
    if (rest.length > 1) return report(new UsageError(`help takes one command, got ${rest.length}: ${rest.join(' ')}`));
    return await printHelp(rest[0]);
  }
  if (first === '--version' || first === '-v') return runCli(['version'], env);
  const at = commandIndex(argv);
  const name = at === -1 ? 'serve' : (argv[at] ?? 'serve');
  const args = at === -1 ? argv : [...argv.slice(0, at), ...argv.slice(at + 1)];
  try {
    const load = name === BACKGROUND_WRITER_COMMAND ? backgroundWriter : Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!load) throw new UsageError(`unknown command ${JSON.stringify(name)}`);
    return await runCommand(name, await load(), args, env);
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

async function printHelp(topic: string | undefined): Promise<number> {
  if (topic !== undefined) {
    const load = Object.hasOwn(COMMANDS, topic) ? COMMANDS[topic] : undefined;
    if (!load)
      return report(new UsageError(`help: unknown command ${JSON.stringify(topic)}; the commands are ${Object.keys(COMMANDS).join(', ')}`));
    process.stdout.write(commandHelp(await load()));
    return EXIT.ok;
  }
  const lines = ['Usage: kurz [command] [flags]       (no command: serve)', '', 'Commands:'];
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length)) + 1;
  for (const [name, command] of await listedCommands()) lines.push(`  ${name.padEnd(width)} ${command.summary}`);
  lines.push(
    '',
    'Run "kurz help COMMAND" (or "kurz COMMAND --help") for its flags and an example.',
    '',
    'Configuration (flag, or KURZ_* environment variable, or key in the --config JSON file):',
  );
  for (const o of OPTIONS)
    lines.push(`  --${flagName(o.name).padEnd(22)} ${o.doc} (default: ${o.default === '' ? 'see text' : o.default})`);
  process.stdout.write(lines.join('\n') + '\n');
  return EXIT.ok;
}
