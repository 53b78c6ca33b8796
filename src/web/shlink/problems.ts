import { STATUS_CODES, type ServerResponse } from 'node:http';
import { AppError } from '../../core/errors.ts';
import { asClientError } from '../../http/problems.ts';
import { send } from '../../http/respond.ts';

// Shlink's problem+json (RFC 7807 as Shlink writes it): a `type` URL per kind of error, its fixed `title`,
// and extra fields its clients read (`invalidElements`, `customSlug`, `shortCode`, `domain`, `tag`).

const TYPE_BASE = 'https://shlink.io/api/error/';

/** An answer in Shlink's words: what the compatibility API's handlers throw when kurz's own error would not say it. */
export class ShlinkProblem extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(status: number, type: string, title: string, detail: string, extra: Record<string, unknown> = {}) {
    super(detail);
    this.name = 'ShlinkProblem';
    this.status = status;
    this.type = `${TYPE_BASE}${type}`;
    this.title = title;
    this.extra = extra;
  }
}

/** Shlink's 400 for input it refuses, naming the fields (Shlink's names) in `invalidElements`. */
export function invalidData(fields: readonly string[], reason?: string): ShlinkProblem {
  const detail = reason === undefined ? 'Provided data is not valid' : `Provided data is not valid: ${reason}`;
  return new ShlinkProblem(400, 'invalid-data', 'Invalid data', detail, { invalidElements: [...fields] });
}

/** Shlink's 404 for a short code (on a domain other than the default: `domain`, its host) that no short URL of the caller has. */
export function shortUrlNotFound(shortCode: string, domain: string | null): ShlinkProblem {
  const suffix = domain === null ? '' : ` for domain "${domain}"`;
  return new ShlinkProblem(404, 'short-url-not-found', 'Short URL not found', `No URL found with short code "${shortCode}"${suffix}`, {
    shortCode,
    ...(domain === null ? {} : { domain }),
  });
}

/** Shlink's 400 for a custom slug another short URL has (or had: kurz never reuses a code). */
export function nonUniqueSlug(customSlug: string, domain: string | null): ShlinkProblem {
  const suffix = domain === null ? '' : ` for domain "${domain}"`;
  return new ShlinkProblem(400, 'non-unique-slug', 'Invalid custom slug', `Provided slug "${customSlug}" is already in use${suffix}.`, {
    customSlug,
    ...(domain === null ? {} : { domain }),
  });
}

export function tagNotFound(tag: string): ShlinkProblem {
  return new ShlinkProblem(404, 'tag-not-found', 'Tag not found', `Tag with name "${tag}" could not be found`, { tag });
}

export function domainNotFound(authority: string): ShlinkProblem {
  return new ShlinkProblem(404, 'domain-not-found', 'Domain not found', `Domain with authority "${authority}" could not be found`, {
    authority,
  });
}

/** Shlink's 401 when no `X-Api-Key` was sent. */
export function missingAuthentication(): ShlinkProblem {
  const header = 'X-Api-Key';
  return new ShlinkProblem(
    401,
    'missing-authentication',
    'Invalid authorization',
    `Expected one of the following authentication headers, ["${header}"], but none were provided`,
    { expectedHeaders: [header] },
  );
}

/** Shlink's 501 of an instance without a Mercure hub: kurz has none, so the web client falls back to polling. */
export function mercureNotConfigured(): ShlinkProblem {
  return new ShlinkProblem(
    501,
    'mercure-not-configured',
    'Mercure integration not configured',
    'This Shlink instance is not integrated with a mercure hub.',
  );
}

/** Shlink's 404 of a path no route takes. */
export function routeNotFound(method: string, url: string): ShlinkProblem {
  return new ShlinkProblem(404, 'not-found', 'Not Found', `Cannot ${method} ${url}`);
}

/** The field names Shlink's clients send, by kurz's (links/link-fields.ts): what `invalidElements` lists. */
const SHLINK_FIELDS: Readonly<Record<string, string>> = {
  url: 'longUrl',
  alias: 'customSlug',
  codeLength: 'shortCodeLength',
  startsAt: 'validSince',
  expiresAt: 'validUntil',
  name: 'newName',
  rootRedirect: 'baseUrlRedirect',
  notFoundRedirect: 'invalidShortUrlRedirect',
};

/** The Shlink field a kurz field is sent as; fields of the same name pass through. */
export function shlinkField(field: string): string {
  const head = field.split(/[.[]/, 1)[0] ?? field;
  return SHLINK_FIELDS[head] ?? head;
}

/**
 * The Shlink problem of any error a compatibility route meets, or undefined for a server error (which the
 * caller leaves to kurz's error handling: logged, and a generic 500). kurz's client errors keep their status
 * and message, with the Shlink type closest to each: a refused field is `invalid-data`, a refused key
 * `invalid-api-key`; the others keep kurz's meaning under Shlink's shape (type, title, detail, status).
 */
export function asShlinkProblem(err: unknown): ShlinkProblem | undefined {
  if (err instanceof ShlinkProblem) return err;
  const problem = asClientError(err);
  if (!problem) return undefined;
  const { status, code, message, field } = problem;
  if (status === 400) return invalidData(field === undefined ? [] : [shlinkField(field)], message);
  if (status === 401) return new ShlinkProblem(401, 'invalid-api-key', 'Invalid API key', message);
  if (status === 404) return new ShlinkProblem(404, 'not-found', 'Not Found', message);
  const kind = err instanceof AppError ? err.code : code;
  return new ShlinkProblem(status, kind.replaceAll('_', '-'), STATUS_CODES[status] ?? 'Error', message);
}

/** Writes a Shlink problem+json (and its Retry-After, for a rate limit). */
export function sendShlinkProblem(res: ServerResponse, problem: ShlinkProblem, retryAfter?: number): void {
  const body = { type: problem.type, title: problem.title, detail: problem.message, status: problem.status, ...problem.extra };
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  send(res, problem.status, { 'Content-Type': 'application/problem+json', 'X-Content-Type-Options': 'nosniff' }, JSON.stringify(body));
}
