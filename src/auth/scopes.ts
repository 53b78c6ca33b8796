import { AppError } from '../core/errors.ts';

/** What an API key may do; each API route needs one (web/routes.ts), a login session has them all. */
export const SCOPES = ['links:read', 'links:write', 'stats:read', 'export', 'domains', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** The scopes of a key made without any: its links and their figures, not a copy of everything nor the domains. */
export const DEFAULT_SCOPES: readonly Scope[] = ['links:read', 'links:write', 'stats:read'];

/** One line per scope, for the keys page, the CLI's help and the OpenAPI document. */
export const SCOPE_DOCS: Readonly<Record<Scope, string>> = {
  'links:read': 'list, read and search links, their tags and QR codes',
  'links:write': 'create, edit and delete links',
  'stats:read': "a link's and the instance's figures",
  export: 'every link and every raw visit kept, as CSV or NDJSON (never password hashes)',
  domains: 'add, edit and remove short domains (reading them needs links:read)',
  admin: 'every scope, and whatever is added to the API later',
};

/**
 * The scopes named in `given` (each item may be a comma-separated list), deduplicated in SCOPES's order;
 * DEFAULT_SCOPES when none is named. Throws AppError('invalid', field 'scope') naming an unknown one.
 */
export function parseScopes(given: readonly string[]): Scope[] {
  const names = given.flatMap((item) => item.split(',')).map((name) => name.trim());
  if (names.every((name) => name === '')) return [...DEFAULT_SCOPES];
  for (const name of names) {
    if (name !== '' && !(SCOPES as readonly string[]).includes(name))
      throw new AppError('invalid', `unknown scope ${JSON.stringify(name)}; the scopes are ${SCOPES.join(', ')}`, 'scope');
  }
  return SCOPES.filter((scope) => names.includes(scope));
}

/** True when a holder of `granted` may do what `needed` allows (`admin` allows everything). */
export function grants(granted: readonly Scope[], needed: Scope): boolean {
  return granted.includes(needed) || granted.includes('admin');
}
