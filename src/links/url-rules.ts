import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';

export interface UrlRules {
  maxLength: number;
  /** kurz's own public host (host[:port]); targets there are refused so links cannot loop. */
  ownHost: string;
}

/** The rules for targets submitted to this instance. */
export function urlRules(config: Pick<Config, 'maxUrlLength' | 'publicUrl'>): UrlRules {
  return { maxLength: config.maxUrlLength, ownHost: new URL(config.publicUrl).host };
}

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:']);

/**
 * Validates a submitted target and returns its normalised form (WHATWG serialisation: lower-case
 * scheme and host, IDN as punycode, default port dropped). Throws AppError('invalid', …, 'url').
 */
export function normaliseUrl(input: unknown, rules: UrlRules): string {
  if (input === undefined || input === null) throw invalid('url is required');
  if (typeof input !== 'string') throw invalid(`url must be a string, got ${typeof input === 'object' ? 'an object' : typeof input}`);
  const trimmed = input.trim();
  if (trimmed === '') throw invalid('url is required');
  if (trimmed.length > rules.maxLength) throw invalid(`url is longer than ${rules.maxLength} characters`);
  const url = URL.parse(trimmed);
  if (!url) {
    throw invalid(
      /^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? 'url is not a valid URL' : 'url must be absolute, starting with http:// or https://',
    );
  }
  if (!ALLOWED_PROTOCOLS.has(url.protocol)) throw invalid(`url must use http or https, not ${url.protocol.slice(0, -1)}`);
  if (url.hostname === '') throw invalid('url has no host');
  if (url.username !== '' || url.password !== '') throw invalid('url must not contain a user name or password');
  if (url.host === rules.ownHost) throw invalid('url points at this kurz instance itself');
  const href = url.href;
  if (href.length > rules.maxLength) throw invalid(`url is longer than ${rules.maxLength} characters once normalised`);
  return href;
}

function invalid(message: string): AppError {
  return new AppError('invalid', message, 'url');
}
