import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from './log.ts';

/** What the app takes from the outside world, so tests can pin the clock and the randomness. */
export interface Deps {
  /** Milliseconds since the epoch. */
  now: () => number;
  random: (size: number) => Buffer;
  log: Logger;
}

/** The real clock, the real CSPRNG, and a logger writing to stderr. */
export function defaultDeps(): Deps {
  return { now: Date.now, random: randomBytes, log: createLogger(process.stderr) };
}
