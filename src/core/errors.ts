export type ErrorCode =
  | 'invalid'
  | 'not_found'
  | 'misdirected'
  | 'conflict'
  | 'gone'
  | 'unauthorized'
  | 'forbidden'
  | 'too_large'
  | 'rate_limited'
  | 'internal'
  | 'unavailable';

/** HTTP status for each kind of error: the single map the HTTP layer and the CLI's exit codes derive from. */
export const STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  // A Host that is none of kurz's domains (unknownHosts refuse).
  misdirected: 421,
  gone: 410,
  too_large: 413,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

/** The one error type of the domain. `field` names the offending input, when there is one. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  /** For `rate_limited`: seconds until a retry may succeed (the Retry-After header). */
  readonly retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, field?: string, retryAfter?: number) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.field = field;
    this.retryAfter = retryAfter;
  }
}

/** A 429 telling the client how long to wait (`ms`, rounded up to whole seconds). */
export function rateLimited(message: string, ms: number): AppError {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return new AppError('rate_limited', `${message}; try again in ${seconds} s`, undefined, seconds);
}

/**
 * True for the 503 of a database that cannot be reached or written: its store logs when that starts and
 * when it ends, so whoever meets it again need not.
 */
export function isUnavailable(err: unknown): boolean {
  return err instanceof AppError && err.code === 'unavailable';
}

/** A message as a page shows it: a sentence, its first letter upper-case (the API keeps its messages as they are). */
export function asSentence(message: string): string {
  return message.charAt(0).toUpperCase() + message.slice(1);
}
