export type ErrorCode =
  'invalid' | 'not_found' | 'conflict' | 'gone' | 'unauthorized' | 'forbidden' | 'too_large' | 'rate_limited' | 'internal' | 'unavailable';

/** HTTP status for each kind of error: the single map the HTTP layer and the CLI's exit codes derive from. */
export const STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
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
  /** For `rate_limited`: which limit refused (kurz_rate_limited_total's `limit` label). */
  readonly limit: string | undefined;

  constructor(code: ErrorCode, message: string, field?: string, retryAfter?: number, limit?: string) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.field = field;
    this.retryAfter = retryAfter;
    this.limit = limit;
  }
}

/**
 * A 429 telling the client how long to wait (`ms`, rounded up to whole seconds). `limit` names the limit
 * in /metrics (kurz_rate_limited_total{limit}), where every refusal answered is counted.
 */
export function rateLimited(message: string, ms: number, limit = 'unnamed'): AppError {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return new AppError('rate_limited', `${message}; try again in ${seconds} s`, undefined, seconds, limit);
}
