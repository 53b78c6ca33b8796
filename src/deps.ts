import { randomBytes } from 'node:crypto';
import type { Config } from './config.ts';
import { createLogger, type Logger, type LogStream } from './core/log.ts';

/** What the app takes from the outside world, so tests can pin the clock and the randomness. */
export interface Deps {
  /** Milliseconds since the epoch. */
  now: () => number;
  random: (size: number) => Buffer;
  log: Logger;
  /** Where the access log writes, in the log's format; process.stderr (the log's stream) unless given. */
  logStream?: LogStream;
  /**
   * True when stderr is a terminal a person watches, not a file or a journal that keeps what it is sent:
   * only then is the generated first password printed. Absent: false.
   */
  terminal?: boolean;
}

/** The real clock, the real CSPRNG, and a logger writing to stderr at the configured level and format. */
export function defaultDeps(config?: Pick<Config, 'logLevel' | 'logFormat'>): Deps {
  const log = createLogger(process.stderr, { level: config?.logLevel ?? 'info', format: config?.logFormat ?? 'auto' });
  return { now: Date.now, random: randomBytes, log, terminal: process.stderr.isTTY === true };
}
