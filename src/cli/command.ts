import { parseArgs } from 'node:util';
import { loadConfig, OPTIONS, flagName, parseDuration, type Config } from '../config.ts';

export type Env = Record<string, string | undefined>;

/** Exit codes: 0 success, 1 failure at run time (not found, conflict…), 2 bad usage or configuration. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A command line that cannot be understood; printed with a usage hint, exit 2. */
export class UsageError extends Error {}

/** A run-time failure the command already explained; exit 1. */
export class CommandError extends Error {}

type Flag = { type: 'string' | 'boolean'; doc: string; placeholder?: string };

export interface Command {
  summary: string;
  /** e.g. "create URL [--alias A]" */
  usage: string;
  flags: Record<string, Flag>;
  /** How many positional arguments it takes. */
  positionals: [min: number, max: number];
  /** Resolves to an exit code, or undefined while it keeps running (serve). */
  run(input: CommandInput): Promise<number | undefined>;
}

export interface CommandInput {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  config: Config;
  out: (text: string) => void;
}

/** Every config option is a flag of every command (--db, --public-url, …). */
const CONFIG_FLAGS = Object.fromEntries(OPTIONS.map((o) => [flagName(o.name), { type: 'string' as const }]));

/** Parses a command's arguments, loads the config from env and flags, and runs it. */
export async function runCommand(name: string, command: Command, args: string[], env: Env): Promise<number | undefined> {
  let parsed: ReturnType<typeof parseArgs>;
  const own = Object.fromEntries(Object.entries(command.flags).map(([flag, f]) => [flag, { type: f.type }]));
  try {
    parsed = parseArgs({
      args,
      options: { ...CONFIG_FLAGS, ...own, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    throw new UsageError(`${name}: ${(err as Error).message}`);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values['help']) {
    process.stdout.write(commandHelp(command));
    return EXIT.ok;
  }
  const [min, max] = command.positionals;
  if (parsed.positionals.length < min) throw new UsageError(`${name}: missing argument; usage: kurz ${command.usage}`);
  if (parsed.positionals.length > max)
    throw new UsageError(`${name}: unexpected argument "${parsed.positionals[max]}"; usage: kurz ${command.usage}`);
  const configFlags: Record<string, string> = {};
  for (const key of Object.keys(CONFIG_FLAGS)) if (typeof values[key] === 'string') configFlags[key] = values[key];
  const config = loadConfig({ env, flags: configFlags });
  return command.run({ values, positionals: parsed.positionals, config, out: (text) => process.stdout.write(text) });
}

export function commandHelp(command: Command): string {
  const lines = [`Usage: kurz ${command.usage}`, '', command.summary, ''];
  const flags = Object.entries(command.flags);
  if (flags.length > 0) {
    lines.push('Flags:');
    for (const [flag, f] of flags)
      lines.push(`  --${`${flag}${f.type === 'string' ? ` ${f.placeholder ?? 'VALUE'}` : ''}`.padEnd(26)} ${f.doc}`);
    lines.push('');
  }
  lines.push('Every configuration option is also a flag (--db FILE, --public-url URL, --config FILE, …): see "kurz help".', '');
  return lines.join('\n');
}

/** A `--json` flag shared by the commands that print data. */
export const JSON_FLAG: Flag = { type: 'boolean', doc: 'print machine-readable JSON instead of text' };

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
    throw new UsageError(`--${flag} must be a positive duration like 180d, 12h, 30m, 10s or 500ms, got "${value}"`);
  }
}
