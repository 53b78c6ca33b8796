import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { exited, spawnTracked } from './children.ts';

/**
 * The per-client limits a load generator would hit, being one client: they stay on (their counting is
 * measured) but set to the largest the settings take, which no run reaches.
 */
export const LIMITS_OUT_OF_REACH: Readonly<Record<string, string>> = {
  KURZ_CREATION_RATE_LIMIT: '1000000000',
  KURZ_NOT_FOUND_RATE_LIMIT: '1000000000',
};

export interface ServerOptions {
  /** For messages: "kurz" or "baseline". */
  name: string;
  /** The program and its arguments, run as `taskset -c CORES …`. */
  command: readonly string[];
  env: Record<string, string>;
  /** A taskset list: "0", or "0,1". */
  cores: string;
  /** Receives the server's stdout and stderr. */
  logFile: string;
}

export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  /** http://127.0.0.1:PORT, as the server printed it. */
  readonly url: string;
  /** Resident memory now, from /proc/PID/status. */
  rssKiB(): number;
  /** CPU time used so far, user + system, in seconds. */
  cpuSeconds(): number;
  /** The same of its child processes (kurz's background writer, its workers), summed; 0 when it has none. */
  childRssKiB(): number;
  childCpuSeconds(): number;
  /**
   * The private memory (USS: pages no other process maps) of its children, summed: what they add to the
   * server's RSS, since the rest of theirs is mostly Node's own code, which the server maps too.
   */
  childPrivateKiB(): number;
  /** Lines the server logged at level error so far (`{"time":…,"level":"error",…}`, or `TIME error message …` as text). */
  errorLines(): string[];
  /**
   * SIGTERM, then SIGKILL if it has not exited within the grace period; resolves to the seconds it took to
   * exit. Rejects unless it exited with 0.
   */
  stop(): Promise<number>;
}

const READY_TIMEOUT_MS = 60_000;
// kurz writes the visits its background writer still holds before it exits: after a saturating run, a
// backlog that the writer (niced behind the server on the same core) had no time for.
const STOP_GRACE_MS = 180_000;
// Both kurz and the baseline print "… is running: open http://127.0.0.1:PORT/" once they listen.
const READY = /is running: open (http:\/\/[^/\s]+)\//;
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** Starts a server pinned to its cores and resolves once it listens. Rejects with its log if it fails to start. */
export async function startServer(options: ServerOptions): Promise<ServerProcess> {
  const log = openSync(options.logFile, 'w');
  const child = spawnTracked('taskset', ['-c', options.cores, ...options.command], {
    env: options.env,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const failure = (reason: string): Error => new Error(`${options.name} ${reason}; its log:\n${tail(options.logFile)}`);
  let code: number | undefined;
  const exit = exited(child).then(
    (c) => (code = c),
    () => (code = 127),
  );

  const deadline = Date.now() + READY_TIMEOUT_MS;
  let url = readyUrl(options.logFile);
  while (url === undefined) {
    const reason = code !== undefined ? `exited with code ${code} before listening` : Date.now() > deadline ? 'did not listen in time' : '';
    if (reason) {
      child.kill('SIGKILL');
      await exit;
      throw failure(reason);
    }
    await sleep(20);
    url = readyUrl(options.logFile);
  }

  const pid = child.pid!;
  const read = (id: number, file: string): string => {
    try {
      return readFileSync(`/proc/${id}/${file}`, 'utf8');
    } catch {
      throw failure('is gone: it exited or was killed during the run');
    }
  };
  const rss = (status: string): number => Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  const cpu = (stat: string): number => {
    // The fields after the ")" that ends the command name; utime and stime are the 12th and 13th.
    const fields = stat.split(')').at(-1)!.trim().split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  };
  const uss = (smaps: string): number =>
    [...smaps.matchAll(/^Private_(?:Clean|Dirty):\s+(\d+) kB/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  const children = (): number[] =>
    readdirSync(`/proc/${pid}/task`).flatMap((task) => read(pid, `task/${task}/children`).split(' ').filter(Boolean).map(Number));
  // A child may end between its listing and its reading (a scheduled backup's does): it then counts nothing.
  const sumOverChildren = (file: string, value: (text: string) => number): number =>
    children().reduce((sum, id) => {
      try {
        return sum + value(readFileSync(`/proc/${id}/${file}`, 'utf8'));
      } catch {
        return sum;
      }
    }, 0);
  return {
    name: options.name,
    pid,
    url,
    rssKiB: () => rss(read(pid, 'status')),
    cpuSeconds: () => cpu(read(pid, 'stat')),
    childRssKiB: () => sumOverChildren('status', rss),
    childCpuSeconds: () => sumOverChildren('stat', cpu),
    childPrivateKiB: () => sumOverChildren('smaps_rollup', uss),
    errorLines: () =>
      readFileSync(options.logFile, 'utf8')
        .split('\n')
        .filter((line) => (line.startsWith('{"time":') ? line.includes(',"level":"error",') : /^\S+ error /.test(line))),
    async stop() {
      const started = performance.now();
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exit;
      clearTimeout(force);
      if (code !== 0) throw failure(`stopped with exit code ${code}`);
      return (performance.now() - started) / 1000;
    },
  };
}

function readyUrl(logFile: string): string | undefined {
  return READY.exec(readFileSync(logFile, 'utf8'))?.[1];
}

function tail(file: string, lines = 20): string {
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}
