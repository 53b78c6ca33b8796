import { isIP } from 'node:net';
import { AppError } from '../core/errors.ts';
import { normaliseUrl, type UrlRules } from '../links/url-rules.ts';
import { refusedRange } from './addresses.ts';

/**
 * Validates a hook's URL as a link's target is validated (links/url-rules.ts: scheme, length, no credentials,
 * not this instance, the domain lists, the blocklist) and, unless `allowPrivate`, refuses a host that is a
 * loopback, private, link-local, CGNAT or metadata address or a `localhost` name. A name that resolves to
 * such an address is refused at each delivery (send.ts), where the address is known. Returns the normalised
 * URL; throws AppError('invalid', …, 'url').
 */
export function webhookUrl(input: unknown, rules: UrlRules, allowPrivate: boolean): string {
  const href = normaliseUrl(input, rules, { loopback: allowPrivate });
  if (allowPrivate) return href;
  const host = new URL(href).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const range = refusedRange(host);
    if (range !== undefined) throw invalid(`url is a ${range} address (${host}); webhookAllowPrivate lets hooks reach one`);
  }
  return href;
}

function invalid(message: string): AppError {
  return new AppError('invalid', message, 'url');
}
