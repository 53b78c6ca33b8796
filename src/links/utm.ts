import { AppError } from '../core/errors.ts';
import { textProblem } from './text-rules.ts';

// The UTM builder: campaign parameters added to a target's query before it is validated and saved. The
// forms use it; the API takes the target as the client built it. views/kurz.js previews the same result.

/** The parameters, in the order they are added. */
export const UTM_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;
export type UtmField = (typeof UTM_FIELDS)[number];
export type Utm = Partial<Record<UtmField, string>>;

/** Characters a value may have, trimmed. */
export const UTM_MAX_LENGTH = 200;

/** A value as it goes into the query, trimmed; '' when empty. Throws AppError('invalid', …, field). */
function utmValue(field: UtmField, value: string | undefined): string {
  const trimmed = (value ?? '').trim();
  if (trimmed.length > UTM_MAX_LENGTH) throw new AppError('invalid', `${field} must be at most ${UTM_MAX_LENGTH} characters`, field);
  const problem = textProblem(trimmed, false);
  if (problem) throw new AppError('invalid', `${field} ${problem}`, field);
  return trimmed;
}

/** A query pair's name, decoded as a form decodes it (an undecodable name is taken as written). */
function pairName(pair: string): string {
  const name = pair.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}

/**
 * `url` (trimmed) with the non-empty UTM values appended to its query, percent-encoded; a parameter of the
 * same name already there is dropped, the rest of the query and the fragment are kept as written. Without
 * a value, or when `url` is no URL, `url` is returned as given for the URL rules (url-rules.ts) to judge.
 * Throws AppError('invalid', …, field) for a value that is too long or holds a control character.
 */
export function withUtm(url: string, utm: Utm): string {
  const added = UTM_FIELDS.map((field) => [field, utmValue(field, utm[field])] as const).filter(([, value]) => value !== '');
  const trimmed = url.trim();
  if (added.length === 0 || !URL.canParse(trimmed)) return url;
  const hash = trimmed.indexOf('#');
  const [beforeHash, fragment] = hash === -1 ? [trimmed, ''] : [trimmed.slice(0, hash), trimmed.slice(hash)];
  const mark = beforeHash.indexOf('?');
  const [base, query] = mark === -1 ? [beforeHash, ''] : [beforeHash.slice(0, mark), beforeHash.slice(mark + 1)];
  const names = new Set<string>(added.map(([field]) => field));
  const kept = query.split('&').filter((pair) => pair !== '' && !names.has(pairName(pair)));
  const pairs = [...kept, ...added.map(([field, value]) => `${field}=${encodeURIComponent(value)}`)];
  return `${base}?${pairs.join('&')}${fragment}`;
}
