/** Who a use case acts for: every use case that reads or changes what a user owns takes one. */

/** `admin`: everything, users, domains, settings. `member`: their own links, keys and figures. */
export const ROLES = ['admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

/**
 * How the actor came: a login session (by password or single sign-on), an API key, a user name and password
 * sent with the request itself (YOURLS' API), the CLI on the server, or the anonymous form on / (anonymousShortening).
 */
export type Via = { kind: 'session' } | { kind: 'key'; key: string } | { kind: 'password' } | { kind: 'cli' } | { kind: 'anonymous' };

export interface Actor {
  /** The user's id; 1 is the first admin, the owner of every link made before there were users. */
  userId: number;
  /** The user's name, as the audit trail records it. */
  name: string;
  role: Role;
  via: Via;
  /** The client's address (as the pipeline found it); undefined for the CLI. */
  client?: string;
}

/** The first admin's id: the owner of everything made before there were several users. */
export const FIRST_ADMIN = 1;

/** The CLI on the server acting as the first admin (whatever their name), until a command names another user (`--as`). */
export const SERVER_ADMIN: Actor = Object.freeze<Actor>({ userId: FIRST_ADMIN, name: 'admin', role: 'admin', via: { kind: 'cli' } });

/** Someone shortening on / without an account: their links belong to the first admin, and they see none. */
export function anonymous(client: string): Actor {
  return { userId: FIRST_ADMIN, name: 'anonymous', role: 'member', via: { kind: 'anonymous' }, client };
}

/** True when the actor may see and change everything (users, domains, settings, every link). */
export function isAdmin(actor: Actor): boolean {
  return actor.role === 'admin';
}
