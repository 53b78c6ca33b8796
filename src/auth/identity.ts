/** Who may act: login sessions and API keys, as the store keeps them and requests carry them. */

import type { Scope } from './scopes.ts';

/** A login session, as stored: the id the browser holds is known only by its hash. */
export interface Session {
  idHash: string;
  /** The user's name at login (what logs name); `userId` is who the session acts for. */
  user: string;
  userId: number;
  createdAt: Date;
  seenAt: Date;
}

/** An API key, as listed; the key itself is shown once, at creation, and stored only as a hash. */
export interface ApiKey {
  id: number;
  /** The user the key acts as. */
  userId: number;
  name: string;
  /** The key's first characters, to tell keys apart. */
  prefix: string;
  /** What the key may do (auth/scopes.ts). */
  scopes: Scope[];
  createdAt: Date;
  /** From this time on the key is refused; null: never. */
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  /** The client address of the last use recorded with lastUsedAt. */
  lastUsedFrom: string | null;
  revokedAt: Date | null;
}

/** Who a request acts for. */
export type Principal = { kind: 'session'; session: Session; token: string } | { kind: 'key'; key: ApiKey };
