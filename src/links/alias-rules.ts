import { AppError } from '../core/errors.ts';

/** Every code a link can have, generated (base62) or chosen (an alias), and nothing else. */
export const CODE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Checks a custom alias and returns it. `reserved` holds the top-level paths kurz serves itself,
 * compared case-insensitively so that no alias shadows them in any spelling. Throws AppError('invalid').
 */
export function checkAlias(input: unknown, reserved: ReadonlySet<string>): string {
  if (typeof input !== 'string') throw invalid(`alias must be a string, got ${input === null ? 'null' : typeof input}`);
  if (input.length === 0 || input.length > 64) throw invalid('alias must be 1 to 64 characters long');
  if (!CODE.test(input)) throw invalid('alias may only contain letters, digits, "-" and "_"');
  if (reserved.has(input.toLowerCase())) throw invalid(`alias "${input}" is reserved for kurz's own pages`);
  return input;
}

function invalid(message: string): AppError {
  return new AppError('invalid', message, 'alias');
}
