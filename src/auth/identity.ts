/** Who may act: login sessions and API keys, as the store keeps them and requests carry them. */

/** A login session, as stored: the id the browser holds is known only by its hash. */
export interface Session {
  idHash: string;
  user: string;
  createdAt: Date;
  seenAt: Date;
}

/** An API key, as listed; the key itself is shown once, at creation, and stored only as a hash. */
export interface ApiKey {
  id: number;
  name: string;
  /** The key's first characters, to tell keys apart. */
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** Who a request acts for. */
export type Principal = { kind: 'session'; session: Session; token: string } | { kind: 'key'; key: ApiKey };
