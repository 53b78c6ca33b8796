import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';
import { isAdmin, type Actor } from '../auth/actor.ts';
import { AppError } from '../core/errors.ts';

/**
 * The default domain's id: the publicUrl's host. Its row exists from the migration that made domains on,
 * with no host of its own, so that changing publicUrl moves nothing; every link made before domains is on it.
 */
export const DEFAULT_DOMAIN = 0;

export type Scheme = 'http' | 'https';

/** A short domain: a host whose paths are codes, with a code space of its own. */
export interface Domain {
  id: number;
  /** Lower case, no port, no trailing dot, IDN as punycode; '' for the default domain (the publicUrl's host). */
  host: string;
  /** What its short URLs start with; null: the default domain's (the publicUrl's) scheme. */
  scheme: Scheme | null;
  /** Where an unknown code on this domain is sent instead of the 404 page; null: the 404 page. */
  notFoundRedirect: string | null;
  /** Where a visitor's `/` on this domain is sent; null: kurz's home page. */
  rootRedirect: string | null;
  /**
   * The users who may create links on it (and move links to it), by name; null: every user. Admins may
   * always use every domain, so an empty list leaves it to them.
   */
  users: readonly DomainUser[] | null;
  createdAt: Date;
}

/** A user a domain is open to. */
export interface DomainUser {
  id: number;
  name: string;
}

/** A domain to store. */
export type NewDomain = Omit<Domain, 'id'>;

/** A change to a domain: the fields present are set (null clears; null users opens it to everyone). */
export type DomainEdit = Partial<Pick<Domain, 'scheme' | 'notFoundRedirect' | 'rootRedirect' | 'users'>>;

/** A domain with the live links on it, as lists show it. */
export interface DomainUse extends Domain {
  links: number;
}

/** Longest host name DNS allows. */
const MAX_HOST = 253;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A host as kurz stores and compares it: lower-cased, a trailing dot removed, an internationalised name as
 * punycode. Throws AppError('invalid', …, field) for what is not a host name: a port, a path, an IP
 * address (a short domain is a name people type), a bad label.
 */
export function normaliseHost(input: unknown, field = 'host'): string {
  if (typeof input !== 'string' || input.trim() === '')
    throw new AppError('invalid', `${field} must be a host name like s.example.com`, field);
  const typed = input.trim();
  if (/[/:@?#\s]/.test(typed))
    throw new AppError('invalid', `${field} must be a bare host name (no scheme, port or path): ${JSON.stringify(typed)}`, field);
  const bare = typed.endsWith('.') ? typed.slice(0, -1) : typed;
  if (isIP(bare) !== 0) throw new AppError('invalid', `${field} must be a host name, not an IP address`, field);
  const ascii = domainToASCII(bare.toLowerCase());
  if (ascii === '' || ascii.length > MAX_HOST || !ascii.split('.').every((label) => LABEL.test(label)) || !ascii.includes('.'))
    throw new AppError('invalid', `${field} is not a valid host name: ${JSON.stringify(typed)}`, field);
  return ascii;
}

/**
 * The host a Host header names, or undefined when it names none: lower-cased, port and trailing dot removed,
 * an internationalised name as punycode. An IP address (a request to the bare port) is kept as it is.
 */
export function hostOfHeader(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  let host = header.toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? undefined : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  if (colon !== -1) host = host.slice(0, colon);
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '') return undefined;
  // Only a name outside ASCII needs the (slower) conversion.
  return /^[\x21-\x7e]*$/.test(host) ? host : domainToASCII(host) || undefined;
}

/** The error for a host no domain has. */
export function unknownDomain(host: string, field = 'domain'): AppError {
  return new AppError('invalid', `${field} ${JSON.stringify(host)} is not one of kurz's domains (kurz domains list shows them)`, field);
}

/**
 * Whether the actor may create links on a domain open to `users` (ids; undefined or null: everyone), or
 * move a link there: an admin always, anyone else when it is open to everyone or names them. Someone
 * shortening without an account uses only the domains open to everyone.
 */
export function mayUse(actor: Actor, users: ReadonlySet<number> | null | undefined): boolean {
  if (!users || isAdmin(actor)) return true;
  return actor.via.kind !== 'anonymous' && users.has(actor.userId);
}

/** The error for a domain the actor may not use (`mayUse`). */
export function closedDomain(host: string, field = 'domain'): AppError {
  return new AppError(
    'forbidden',
    `${field} ${JSON.stringify(host)} is not open to you: an admin names the users who may create links on it`,
    field,
  );
}
