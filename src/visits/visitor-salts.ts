import { hash } from 'node:crypto';
import type { VisitStore } from '../store/ports.ts';
import { DAY, dayOf } from './visit.ts';

/**
 * The visitor hash's daily salts as this process knows them. A day's salt lives in the database
 * (`visitor_salts`), so that every process (the server, its workers, the background writer, every
 * PostgreSQL node) computes the same hash for one visitor: the unique-visitor count and an A/B split's
 * variant agree everywhere. It is made once per day by whoever needs it first (insert-if-absent, then read:
 * two processes racing end with one salt), kept here once read, and deleted with its day's visitor hashes
 * (VisitStore.pruneVisits, from the day after), after which the day's hashes cannot be made again.
 */
export interface VisitorSalts {
  /** The salt of `day` if this process holds it: what the redirect asks, without waiting. */
  saltOf(day: number): Buffer | undefined;
  /**
   * The salt of `day`, read from the store (and made there first when it has none and this process may
   * make salts). Rejects when the store cannot be read, or has none and this process may not make it.
   */
  load(day: number): Promise<Buffer>;
  /** Loads today's and tomorrow's salts (made ahead by a process that may), and forgets days before yesterday. */
  keepAhead(): Promise<void>;
}

export interface VisitorSaltsOptions {
  store: Pick<VisitStore, 'visitorSalt' | 'addVisitorSalt'>;
  now: () => number;
  random: (size: number) => Buffer;
  /**
   * Whether this process makes a salt the store does not have: every process that writes (the server, the
   * background writer, a PostgreSQL node), not a SQLite worker, which reads what its primary made ahead.
   */
  makes: boolean;
}

/** The salts of this process; see VisitorSalts. */
export function visitorSalts({ store, now, random, makes }: VisitorSaltsOptions): VisitorSalts {
  const held = new Map<number, Buffer>();
  const loading = new Map<number, Promise<Buffer>>();

  async function read(day: number): Promise<Buffer> {
    let salt = await store.visitorSalt(day);
    if (salt === undefined && makes) {
      await store.addVisitorSalt(day, random(32));
      salt = await store.visitorSalt(day);
    }
    if (salt === undefined) throw new Error(`no visitor salt for ${new Date(day).toISOString().slice(0, 10)} yet: the primary makes it`);
    const yesterday = dayOf(now()) - DAY;
    for (const kept of held.keys()) if (kept < yesterday) held.delete(kept);
    held.set(day, salt);
    return salt;
  }

  function load(day: number): Promise<Buffer> {
    const salt = held.get(day);
    if (salt !== undefined) return Promise.resolve(salt);
    let pending = loading.get(day);
    if (pending === undefined) {
      pending = read(day).finally(() => loading.delete(day));
      loading.set(day, pending);
    }
    return pending;
  }

  return {
    saltOf: (day) => held.get(day),
    load,
    async keepAhead() {
      const today = dayOf(now());
      await Promise.all([load(today), load(today + DAY)]);
    },
  };
}

/** The salt last hashed with, and its hex: a process hashes with one day's salt at a time, around midnight two. */
let lastSalt: Buffer | undefined;
let lastSaltHex = '';

/**
 * The visitor hash: 8 bytes of SHA-256 over the day's salt (hex), the client address, the user agent and the
 * link, NUL-separated (`visitorDigest`).
 */
export function visitorHash(salt: Buffer, client: string, userAgent: string, linkId: number): Buffer {
  return Buffer.from(visitorDigest(salt, client, userAgent, linkId).slice(0, 8), 'latin1');
}

/** The visitor hash's first 32 bits, what an A/B split draws from (rules/match.ts's drawVariant): the same visitor, link and day, the same number. */
export function visitorDraw(salt: Buffer, client: string, userAgent: string, linkId: number): number {
  const digest = visitorDigest(salt, client, userAgent, linkId);
  return ((digest.charCodeAt(0) << 24) | (digest.charCodeAt(1) << 16) | (digest.charCodeAt(2) << 8) | digest.charCodeAt(3)) >>> 0;
}

/**
 * The SHA-256 behind the visitor hash, its 32 bytes as a latin1 ('binary') string: one call of `crypto.hash` over one
 * string, which an A/B split's redirect pays far less for than a `createHash` object and its updates, and a
 * string answer rather than a Buffer, which costs more than the hash itself (measured: docs/ARCHITECTURE.md,
 * "A/B splits").
 */
function visitorDigest(salt: Buffer, client: string, userAgent: string, linkId: number): string {
  if (salt !== lastSalt) {
    lastSalt = salt;
    lastSaltHex = salt.toString('hex');
  }
  return hash('sha256', `${lastSaltHex}\0${client}\0${userAgent}\0${linkId}`, 'binary');
}
