import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { constants } from 'node:os';

const running = new Set<ChildProcess>();

/** spawn(), remembering the child until it exits so that killAll can end it. */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, options);
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.once('error', () => running.delete(child));
  return child;
}

/** Ends every child still running, at once: for failures and interruptions, where waiting helps no one. */
export function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** Resolves with the exit code once the child has exited (a signal counts as 128 + its number, like a shell). */
export function exited(child: ChildProcess): Promise<number> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  if (child.signalCode !== null) return Promise.resolve(128 + signalNumber(child.signalCode));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? 128 + signalNumber(signal ?? 'SIGKILL')));
  });
}

function signalNumber(signal: NodeJS.Signals): number {
  return constants.signals[signal];
}

/** This process's environment without anything that would change how kurz or Node behave. */
export function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('KURZ_') && key !== 'NODE_OPTIONS') env[key] = value;
  }
  return env;
}
