/** What a hidden secret is shown as. */
export const HIDDEN = '***';

/** Query parameters that carry a password in a connection URL (libpq's `password`, `sslpassword`, …). */
const PASSWORD_PARAMETER = /pass/i;

/**
 * A URL as logs, errors and `/settings` may show it: the password of `user:password@` and of any
 * `?password=` parameter as ***. A URL that does not parse shows its scheme and host only (or only its
 * scheme), since where its password starts cannot be known.
 */
export function redactUrl(value: string): string {
  const url = URL.parse(value);
  // Without a host (`postgres:user:pw@host`), what the parser took for a path may hold a password.
  if (!url || (url.host === '' && (value.includes('@') || !/^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim())))) return unparsable(value);
  if (url.password !== '') url.password = HIDDEN;
  for (const key of new Set(url.searchParams.keys())) {
    if (PASSWORD_PARAMETER.test(key)) url.searchParams.set(key, HIDDEN);
  }
  return url.href;
}

/** Whether `value`, a URL, may carry a password: one redactUrl hides, or, in what does not parse, an `@` or a `pass`. */
export function hasPassword(value: string): boolean {
  const url = URL.parse(value);
  if (!url || url.host === '') return value.includes('@') || PASSWORD_PARAMETER.test(value);
  return url.password !== '' || [...url.searchParams.keys()].some((key) => PASSWORD_PARAMETER.test(key));
}

/**
 * `text` (a driver's error message, say) with every spelling of `url` and of its password replaced: a
 * message may quote the connection string, or the password alone.
 */
export function withoutUrlSecrets(text: string, url: string): string {
  let out = url === '' ? text : text.replaceAll(url, redactUrl(url));
  const parsed = URL.parse(url);
  const passwords = [
    parsed?.password ?? '',
    ...[...(parsed?.searchParams ?? [])].filter(([k]) => PASSWORD_PARAMETER.test(k)).map(([, v]) => v),
  ];
  for (const password of passwords.filter((p) => p.length > 0)) {
    for (const spelling of new Set([password, safeDecode(password)])) out = out.replaceAll(spelling, HIDDEN);
  }
  return out;
}

function unparsable(value: string): string {
  const m = /^([a-z][a-z0-9+.-]*:)(\/\/)?/i.exec(value.trim());
  if (!m) return '(not a URL)';
  const scheme = (m[1] ?? '').toLowerCase();
  const rest = value.trim().slice(m[0].length);
  const authority = rest.split(/[/?#]/, 1)[0] ?? '';
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  // An @ past the authority: a password holding / ? or # may have ended it early, and "host" be part of it.
  const clear = m[2] !== undefined && !rest.slice(authority.length).includes('@') && /^[\w.:[\]-]+$/.test(host);
  return clear ? `${scheme}//${host}/…` : `${scheme}…`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
