import type { RedirectStatus } from '../config.ts';
import { AppError } from '../core/errors.ts';
import type { LinkOptions } from './link.ts';
import { codePoint, controlCharacter, textProblem, unicodeProblem } from './text-rules.ts';
import { timeOf } from './times.ts';
import { parsePreview, type Preview } from './preview.ts';

/** `passwordMin`: a link's password can only be guessed online, against the unlock limits; 8 characters keep that out of reach. */
export const LIMITS = { title: 200, note: 2000, tag: 50, tags: 20, passwordMin: 8, password: 1024, maxVisits: 1_000_000_000 } as const;

export const REDIRECT_STATUSES: readonly RedirectStatus[] = [301, 302, 307, 308];
const TAG = /^[\p{L}\p{N}][\p{L}\p{N} _.:/+-]*$/u;
/** RFC 3339: a date, a time, and an offset (Z or ±hh:mm). */
const RFC3339 = /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d(:\d\d(\.\d+)?)?([Zz]|[+-]\d\d:\d\d)$/;

/** Options as given: each field present is set; null clears it (back to the default). */
export interface OptionsInput {
  options: Partial<LinkOptions>;
  /** A new password (hashed by the caller), null to remove it, undefined to leave it. */
  password?: string | null;
}

function invalid(field: string, message: string): AppError {
  return new AppError('invalid', `${field} ${message}`, field);
}

/** A title (one line) or a note (lines allowed), trimmed; empty is none. */
function text(field: 'title' | 'note', value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  const trimmed = value.trim();
  if (trimmed.length > LIMITS[field]) throw invalid(field, `must be at most ${LIMITS[field]} characters`);
  const problem = textProblem(trimmed, field === 'note');
  if (problem) throw invalid(field, problem);
  return trimmed === '' ? null : trimmed;
}

/** Tags: a list of strings (or one comma-separated string, as a form sends them), trimmed, unique, sorted. */
export function parseTags(value: unknown): string[] {
  if (value === null) return [];
  const list = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(list)) throw invalid('tags', 'must be a list of strings');
  const tags = new Set<string>();
  for (const tag of list) {
    if (typeof tag !== 'string') throw invalid('tags', 'must be a list of strings');
    const t = tag.trim();
    if (t === '' && typeof value === 'string') continue;
    if (t.length === 0 || t.length > LIMITS.tag) throw invalid('tags', `must each be 1 to ${LIMITS.tag} characters`);
    if (!TAG.test(t)) throw invalid('tags', `${JSON.stringify(t)} ${TAG_RULE}`);
    tags.add(t);
  }
  if (tags.size > LIMITS.tags) throw invalid('tags', `must be at most ${LIMITS.tags} tags, got ${tags.size}`);
  return [...tags].sort();
}

const TAG_RULE = 'may only hold letters, digits, spaces and _ . : / + -, starting with a letter or digit';

/** One tag, given as `field` (a tag's new name), trimmed: as each of parseTags'. */
export function parseTag(field: string, value: unknown): string {
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  const tag = value.trim();
  if (tag.length === 0 || tag.length > LIMITS.tag) throw invalid(field, `must be 1 to ${LIMITS.tag} characters`);
  if (!TAG.test(tag)) throw invalid(field, TAG_RULE);
  return tag;
}

/** An RFC 3339 time with an offset, e.g. 2026-12-31T23:59:59Z. */
export function parseTime(field: string, value: unknown): Date {
  if (typeof value !== 'string' || !RFC3339.test(value.trim()))
    throw invalid(field, 'must be an RFC 3339 time with an offset, like 2026-12-31T23:59:59Z');
  const time = timeOf(value.trim());
  if (!time) throw invalid(field, `is not a real time: ${JSON.stringify(value)}`);
  return new Date(time.ms);
}

function flag(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalid(field, 'must be true or false');
  return value;
}

/**
 * The rule of each field a link takes besides `url` and `alias`, under the API's name, in the order they are
 * checked: it takes the value as given (never undefined), returns it as stored and throws AppError('invalid')
 * naming the field. Null clears an option. `expiresAt` is not compared with now here (parseOptions does); `startsAt`
 * may lie in the past (Shlink's clients send their own now as validSince).
 */
export const OPTION_RULES = {
  title: (value: unknown): string | null => text('title', value),
  note: (value: unknown): string | null => text('note', value),
  tags: parseTags,
  startsAt: (value: unknown): Date | null => (value === null ? null : parseTime('startsAt', value)),
  expiresAt: (value: unknown): Date | null => (value === null ? null : parseTime('expiresAt', value)),
  maxVisits(value: unknown): number | null {
    if (value !== null && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > LIMITS.maxVisits))
      throw invalid('maxVisits', `must be a whole number from 1 to ${LIMITS.maxVisits}`);
    return value;
  },
  /** A new password (hashed by the caller), or null to remove it. */
  password(value: unknown): string | null {
    const lengths = `must be a string of ${LIMITS.passwordMin} to ${LIMITS.password} characters`;
    if (value === null) return null;
    if (typeof value !== 'string') throw invalid('password', lengths);
    // A control character is never typed, and a NUL would not count (see auth/passwords.ts): said before the length.
    const control = controlCharacter(value);
    if (control !== undefined) throw invalid('password', `must not contain control characters (found ${codePoint(control)})`);
    const problem = unicodeProblem(value);
    if (problem) throw invalid('password', problem);
    if (value.length < LIMITS.passwordMin || value.length > LIMITS.password) throw invalid('password', lengths);
    return value;
  },
  redirectStatus(value: unknown): RedirectStatus | null {
    if (value !== null && !REDIRECT_STATUSES.includes(value as RedirectStatus))
      throw invalid('redirectStatus', `must be one of ${REDIRECT_STATUSES.join(', ')}`);
    return value as RedirectStatus | null;
  },
  forwardQuery: (value: unknown): boolean | null => (value === null ? null : flag('forwardQuery', value)),
  enabled: (value: unknown): boolean => flag('enabled', value),
  preview: (value: unknown): Preview | null => parsePreview(value),
  crawlable: (value: unknown): boolean => flag('crawlable', value),
} as const;

export type OptionField = keyof typeof OPTION_RULES;

/** The API's names of everything a link takes besides `url` and `alias`. */
export const OPTION_FIELDS = Object.keys(OPTION_RULES) as OptionField[];

/**
 * Validates the option fields present in `input` (the API's names and types). `at` is now: a new expiry must
 * lie after it. Throws AppError('invalid') naming the field.
 */
export function parseOptions(input: Record<string, unknown>, at: number): OptionsInput {
  const options: Partial<LinkOptions> = {};
  const result: OptionsInput = { options };
  for (const field of OPTION_FIELDS) {
    if (input[field] === undefined) continue;
    const value = OPTION_RULES[field](input[field]);
    if (field === 'expiresAt' && value instanceof Date && value.getTime() <= at) throw invalid(field, 'must be in the future');
    if (field === 'password') result.password = value as string | null;
    else (options as Record<string, unknown>)[field] = value;
  }
  const { startsAt, expiresAt } = options;
  if (startsAt && expiresAt && startsAt.getTime() >= expiresAt.getTime()) throw invalid('startsAt', 'must be before expiresAt');
  return result;
}

/** True when `options` leave a new link as an ordinary one (which a later identical URL may be deduplicated to). */
export function isPlain(input: OptionsInput): boolean {
  const o = input.options;
  return (
    input.password == null &&
    o.title == null &&
    o.note == null &&
    (o.tags?.length ?? 0) === 0 &&
    o.startsAt == null &&
    o.expiresAt == null &&
    o.maxVisits == null &&
    o.redirectStatus == null &&
    o.forwardQuery == null &&
    o.enabled !== false &&
    o.preview == null &&
    o.crawlable !== true
  );
}
