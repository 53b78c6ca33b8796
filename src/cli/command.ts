import { parseArgs } from 'node:util';
import { loadConfig, OPTIONS, flagName, parseDuration, type Config } from '../config.ts';

export type Env = Record<string, string | undefined>;

/**
 * Exit codes: 0 success, 1 failure at run time (not found, conflict…), 2 bad usage or configuration,
 * 3 `kurz check` found problems in the database.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, problems: 3 } as const;

/** A command line that cannot be understood; printed with a usage hint, exit 2. */
export class UsageError extends Error {}

/** A run-time failure the command already explained; exit 1. */
export class CommandError extends Error {}

export type Flag = {
  type: 'string' | 'boolean';
  doc: string;
  placeholder?: string;
  /** May be given more than once: a list. */ multiple?: boolean;
};

export interface Command {
  summary: string;
  /** e.g. "create URL [--alias A]" */
  usage: string;
  /** Whole command lines that work as written, shown by help and the man page. */
  examples: readonly string[];
  flags: Record<string, Flag>;
  /** A command with subcommands (`keys create`) names them here, each with its usage; the first positional picks one. */
  subcommands?: Record<string, { usage: string; summary: string }>;
  /** How many positional arguments it takes. */
  positionals: [min: number, max: number];
  /** Resolves to an exit code, or undefined while it keeps running (serve). */
  run(input: CommandInput): Promise<number | undefined>;
}

export interface CommandInput {
  /** A flag's value; a list for the flags that may be repeated. */
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  config: Config;
  out: (text: string) => void;
}

/** Every config option is a flag of every command (--db, --public-url, …), unless the command has a flag of that name. */
const CONFIG_FLAGS = Object.fromEntries(OPTIONS.map((o) => [flagName(o.name), { type: 'string' as const }]));

/** Parses a command's arguments, loads the config from env and flags, and runs it. */
export async function runCommand(name: string, command: Command, args: string[], env: Env): Promise<number | undefined> {
  let parsed: ReturnType<typeof parseArgs>;
  const own = Object.fromEntries(Object.entries(command.flags).map(([flag, f]) => [flag, { type: f.type, multiple: f.multiple ?? false }]));
  // The system decodes arguments as UTF-8, and bytes that are not become U+FFFD: that is not what was typed.
  const garbled = args.find((arg) => arg.includes('\ufffd'));
  if (garbled !== undefined) throw new UsageError(`${name}: the argument ${JSON.stringify(garbled)} is not valid UTF-8`);
  try {
    parsed = parseArgs({
      args,
      options: { ...CONFIG_FLAGS, ...own, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
      tokens: true,
    });
  } catch (err) {
    throw new UsageError(`${name}: ${(err as Error).message}`);
  }
  // parseArgs keeps the last of a flag given twice; which one was meant is not for kurz to guess.
  const given = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || own[token.name]?.multiple) continue;
    if (given.has(token.name)) throw new UsageError(`${name}: --${token.name} is given more than once`);
    given.add(token.name);
  }
  const values = parsed.values as CommandInput['values'];
  if (values['help']) {
    process.stdout.write(commandHelp(command));
    return EXIT.ok;
  }
  const [min, max] = command.positionals;
  if (parsed.positionals.length < min) throw new UsageError(`${name}: missing argument; usage: kurz ${command.usage}`);
  if (parsed.positionals.length > max)
    throw new UsageError(`${name}: unexpected argument ${JSON.stringify(parsed.positionals[max])}; usage: kurz ${command.usage}`);
  const configFlags: Record<string, string> = {};
  // A command's own flag of a setting's name (create's --redirect-status) is the command's, not the setting.
  for (const key of Object.keys(CONFIG_FLAGS)) {
    if (key in command.flags) continue;
    const value = values[key];
    if (typeof value === 'string') configFlags[key] = value;
  }
  const config = loadConfig({ env, flags: configFlags });
  return command.run({ values, positionals: parsed.positionals, config, out: (text) => process.stdout.write(text) });
}

export function commandHelp(command: Command): string {
  const lines = [`Usage: kurz ${command.usage}`, '', command.summary, ''];
  const subcommands = Object.values(command.subcommands ?? {});
  if (subcommands.length > 0) {
    lines.push('Subcommands:');
    for (const s of subcommands) lines.push(`  kurz ${s.usage.padEnd(36)} ${s.summary}`);
    lines.push('');
  }
  const flags = Object.entries(command.flags);
  if (flags.length > 0) {
    lines.push('Flags:');
    for (const [flag, f] of flags)
      lines.push(
        `  --${`${flag}${f.type === 'string' ? ` ${f.placeholder ?? 'VALUE'}` : ''}`.padEnd(26)} ${f.doc}${f.multiple ? ' (repeatable)' : ''}`,
      );
    lines.push('');
  }
  lines.push('Example' + (command.examples.length > 1 ? 's:' : ':'), ...command.examples.map((e) => `  ${e}`), '');
  lines.push('Every configuration option is also a flag (--db FILE, --public-url URL, --config FILE, …): see "kurz help".');
  const shadowed = Object.keys(command.flags).filter((flag) => flag in CONFIG_FLAGS);
  if (shadowed.length > 0)
    lines.push(`Here ${shadowed.map((f) => `--${f}`).join(' and ')} mean the flags above; set those options with KURZ_* or --config.`);
  lines.push('');
  return lines.join('\n');
}

/** A `--json` flag shared by the commands that print data. */
export const JSON_FLAG: Flag = { type: 'boolean', doc: 'print machine-readable JSON instead of text' };

/** The subcommand the first positional names (`keys create`); throws UsageError listing them when it names none. */
export function subcommandOf(name: string, command: Command, positionals: string[]): string {
  const given = positionals[0] ?? '';
  const known = Object.keys(command.subcommands ?? {});
  if (!known.includes(given)) {
    const choices = known.map((s) => `"${name} ${s}"`).join(', ');
    throw new UsageError(
      given === '' ? `${name} needs a subcommand: ${choices}` : `${name}: unknown subcommand ${JSON.stringify(given)}; try ${choices}`,
    );
  }
  return given;
}

/** Refuses flags given together that contradict each other (`--enable --disable`); exit 2. */
export function refuseTogether(values: CommandInput['values'], ...flags: string[]): void {
  const given = flags.filter((f) => values[f] !== undefined && values[f] !== false);
  if (given.length > 1) throw new UsageError(`${given.map((f) => `--${f}`).join(' and ')} contradict each other: give one`);
}

/** Prints rows as left-aligned columns under a header. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** A duration flag, in the units every setting takes (500ms, 5s, 10m, 12h, 30d); throws UsageError naming the flag. */
export function parseAge(flag: string, value: string): number {
  try {
    return parseDuration(value);
  } catch {
    throw new UsageError(`--${flag} must be a positive duration like 180d, 12h, 30m, 10s or 500ms, got ${JSON.stringify(value)}`);
  }
}
