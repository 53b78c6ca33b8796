import { join } from 'node:path';
import { exited, spawnTracked } from './children.ts';

export interface WrkOptions {
  /** http://127.0.0.1:PORT/ */
  url: string;
  /** A script in bench/wrk/, e.g. "redirect.lua". */
  script: string;
  /** Passed to the script's init() after "--". */
  args: readonly string[];
  connections: number;
  seconds: number;
  core: number;
}

export interface Latency {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

export interface WrkResult {
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  /** Milliseconds. */
  latency: Latency;
  /** Responses by HTTP status. */
  statuses: Record<string, number>;
  /** Redirect requests sent with a bot's User-Agent (not responses: wrk cannot tell whose a response is). */
  botRequests: number;
  /** Connections that failed, broke or timed out: never expected on loopback. */
  socketErrors: { connect: number; read: number; write: number; timeout: number };
}

/** The line bench/wrk/common.lua prints from done(). */
interface RawResult {
  durationUs: number;
  requests: number;
  botRequests: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latencyUs: Latency;
  statuses: Record<string, number>;
}

const SCRIPTS = join(import.meta.dirname, 'wrk');
// A response slower than this is a timeout (an error) rather than a latency: nothing here should take 10 s.
const TIMEOUT_S = 10;
// wrk exits on its own after the run; past this much extra time it is presumed stuck.
const GRACE_MS = 30_000;

/** Runs one load test with one wrk thread pinned to `core`. Rejects if wrk fails or prints no result. */
export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const args = ['-c', String(options.core), 'wrk', '-t1', `-c${options.connections}`, `-d${options.seconds}s`];
  args.push(`--timeout=${TIMEOUT_S}s`, '--latency', '-s', join(SCRIPTS, options.script), options.url, '--', ...options.args);
  const child = spawnTracked('taskset', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stuck = setTimeout(() => child.kill('SIGKILL'), options.seconds * 1000 + GRACE_MS);
  const code = await exited(child).finally(() => clearTimeout(stuck));
  const line = /^WRK_RESULT (.*)$/m.exec(output)?.[1];
  if (code !== 0 || line === undefined) {
    throw new Error(`wrk ${options.script} against ${options.url} failed (exit code ${code}):\n${output.trim()}`);
  }
  return parseResult(JSON.parse(line) as RawResult);
}

function parseResult(raw: RawResult): WrkResult {
  const seconds = raw.durationUs / 1e6;
  const ms = (us: number): number => us / 1000;
  const { connect, read, write, timeout } = raw.errors;
  return {
    seconds,
    requests: raw.requests,
    requestsPerSecond: raw.requests / seconds,
    latency: {
      mean: ms(raw.latencyUs.mean),
      p50: ms(raw.latencyUs.p50),
      p90: ms(raw.latencyUs.p90),
      p99: ms(raw.latencyUs.p99),
      p999: ms(raw.latencyUs.p999),
      max: ms(raw.latencyUs.max),
    },
    statuses: raw.statuses,
    botRequests: raw.botRequests,
    socketErrors: { connect, read, write, timeout },
  };
}
