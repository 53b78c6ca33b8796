import { AppError } from '../core/errors.ts';

/** Every code a link can have, generated (base62) or chosen (an alias), and nothing else. */
export const CODE = /^[A-Za-z0-9_-]{1,64}$/;

/** The longest code: an alias, or a generated code of a length asked for. */
export const MAX_CODE_CHARS = 64;

/** The shortest generated code a length may be asked for (as Shlink's `shortCodeLength`). */
export const MIN_ASKED_LENGTH = 4;

/**
 * Checks a custom alias and returns it. `reserved` holds the top-level paths kurz serves itself,
 * compared case-insensitively so that no alias shadows them in any spelling. Throws AppError('invalid').
 */
export function checkAlias(input: unknown, reserved: ReadonlySet<string>): string {
  if (typeof input !== 'string') throw invalid(`alias must be a string, got ${input === null ? 'null' : typeof input}`);
  if (input.length === 0 || input.length > MAX_CODE_CHARS) throw invalid(`alias must be 1 to ${MAX_CODE_CHARS} characters long`);
  if (!CODE.test(input)) throw invalid('alias may only contain letters, digits, "-" and "_"');
  if (reserved.has(input.toLowerCase())) throw invalid(`alias "${input}" is reserved for kurz's own pages`);
  return input;
}

/**
 * Checks the length asked for a generated code and returns it: a whole number from MIN_ASKED_LENGTH to
 * MAX_CODE_CHARS. Throws AppError('invalid') naming `codeLength`.
 */
export function checkCodeLength(input: unknown): number {
  if (typeof input !== 'number' || !Number.isInteger(input) || input < MIN_ASKED_LENGTH || input > MAX_CODE_CHARS)
    throw new AppError('invalid', `codeLength must be a whole number from ${MIN_ASKED_LENGTH} to ${MAX_CODE_CHARS}`, 'codeLength');
  return input;
}

function invalid(message: string): AppError {
  return new AppError('invalid', message, 'alias');
}
