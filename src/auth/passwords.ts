import { scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { rateLimited, type AppError } from '../core/errors.ts';
import { codePoint, controlCharacter, unicodeProblem } from '../links/text-rules.ts';
import type { RateLimit } from './rate-limits.ts';

/** scrypt's cost: 2^15 rounds of 8-block mixing, 32 MiB of memory, about 50-100 ms per hash. */
const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const MAX_PASSWORD = 1024;

function derive(password: string, salt: Buffer, cost: typeof COST): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** A slow hash of `password`, with its parameters and salt: `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPassword(password: string, random: (size: number) => Buffer): Promise<string> {
  const salt = random(SALT_LENGTH);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** The one spelling of a hash kurz writes: its own cost, a 16-byte salt, a 32-byte key, in base64url. */
const OWN_HASH = new RegExp(`^scrypt\\$${COST.N}\\$${COST.r}\\$${COST.p}\\$([\\w-]{22})\\$([\\w-]{43})$`);

/**
 * Why `stored` is not a hash as kurz writes it (`scrypt$N$r$p$salt$hash` with kurz's own N, r and p, a
 * 16-byte salt and a 32-byte hash), or undefined. Any other cost is refused, never run: a hash is a
 * price every anonymous unlock attempt makes kurz pay.
 */
export function hashProblem(stored: string): string | undefined {
  if (OWN_HASH.test(stored)) return undefined;
  const parts = stored.split('$');
  const [scheme, n, r, p, salt, hash] = parts;
  const own = `scrypt$N$r$p$salt$hash with N=${COST.N}, r=${COST.r}, p=${COST.p}, a ${SALT_LENGTH}-byte salt and a ${KEY_LENGTH}-byte hash`;
  if (scheme !== 'scrypt' || parts.length !== 6 || hash === undefined) return `must be a password hash as kurz exports it (${own})`;
  const foreign = [
    n !== String(COST.N) ? `N is ${n}` : '',
    r !== String(COST.r) ? `r is ${r}` : '',
    p !== String(COST.p) ? `p is ${p}` : '',
    !/^[\w-]{22}$/.test(salt ?? '') ? 'the salt is not 16 bytes' : '',
    !/^[\w-]{43}$/.test(hash) ? 'the hash is not 32 bytes' : '',
  ].filter((s) => s !== '');
  return `must be a password hash as kurz exports it (${own}): ${foreign.join(', ')}`;
}

/**
 * True when `password` hashes to `stored`; compared in constant time. False, without hashing, for a
 * `stored` that is not as kurz writes it (hashProblem).
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const own = OWN_HASH.exec(stored);
  if (!own || password.length > MAX_PASSWORD) return false;
  // HMAC, inside scrypt, pads a short key with zero bytes: "pw" and "pw\0" hash alike. No password holds a NUL.
  if (password.includes('\0')) return false;
  const expected = Buffer.from(own[2] ?? '', 'base64url');
  const key = await derive(password, Buffer.from(own[1] ?? '', 'base64url'), COST);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Refuses passwords nobody should use; the message names the rule. */
export function passwordProblem(password: string, what = 'password'): string | undefined {
  if (password.length < 8) return `${what} must have at least 8 characters`;
  if (password.length > MAX_PASSWORD) return `${what} must have at most ${MAX_PASSWORD} characters`;
  const control = controlCharacter(password);
  if (control !== undefined) return `${what} must not contain control characters (found ${codePoint(control)})`;
  const unicode = unicodeProblem(password);
  return unicode === undefined ? undefined : `${what} ${unicode}`;
}

/**
 * The slow hashes one process runs at once by default: half its CPUs (at least one), so that a burst of
 * logins or unlocks leaves the other half to the event loop, and at most three, so that one of libuv's four
 * threads, where scrypt runs beside file and DNS work, stays free.
 */
export function defaultHashConcurrency(cpus = availableParallelism()): number {
  return Math.min(3, Math.max(1, Math.floor(cpus / 2)));
}

/** How long a check refused for want of a free slot is told to wait: a hash takes far less. */
const BUSY_RETRY_MS = 1000;

/**
 * Bounds the slow hashes running at once in this process. A guess (a login, a link's password) is checked
 * only when one of `max` slots for guesses is free, else refused with a 429 at once: a burst of them costs
 * nothing more. Setting a password (someone already known: a link's author, the admin, the first start)
 * waits for one of `max` slots of its own instead, so that it never makes a guess wait, nor the reverse.
 */
export class PasswordHashing {
  readonly max: number;
  #checking = 0;
  #hashing = 0;
  readonly #waiting: Array<() => void> = [];
  #ran = 0;
  #refused = 0;

  constructor(max: number) {
    this.max = max;
  }

  /** Hashes run (or begun) so far. */
  get ran(): number {
    return this.#ran;
  }

  /** Checks refused for want of a free slot so far. */
  get refused(): number {
    return this.#refused;
  }

  /**
   * The 429 for a check asked for now, when no slot is free (counted as a refusal); else undefined. Asked
   * before a guess is counted against a rate limit, so that a guess never checked is never counted.
   */
  busy(): AppError | undefined {
    if (this.#checking < this.max) return undefined;
    this.#refused++;
    return rateLimited('too many password checks at once', BUSY_RETRY_MS);
  }

  /** verifyPassword in a free slot. Throws AppError('rate_limited') when none is free. */
  async verify(password: string, stored: string): Promise<boolean> {
    const busy = this.busy();
    if (busy) throw busy;
    this.#checking++;
    this.#ran++;
    try {
      return await verifyPassword(password, stored);
    } finally {
      this.#checking--;
    }
  }

  /**
   * Checks a guess (a login, a link's password) against `stored` under `limit`: a 429 at once while no slot
   * is free or any of `keys` must wait; else a failure of every key is counted before the hash runs (so that
   * guesses arriving meanwhile see it) and forgotten when the guess is right. Resolves whether it is.
   */
  async guess(password: string, stored: string, limit: RateLimit, keys: readonly string[]): Promise<boolean> {
    const refused = this.busy() ?? limit.attempt(...keys);
    if (refused) throw refused;
    // Nothing was awaited since busy(): the slot is still free.
    const right = await this.verify(password, stored);
    if (right) limit.succeeded(...keys);
    return right;
  }

  /** hashPassword once a slot for setting passwords is free. */
  async hash(password: string, random: (size: number) => Buffer): Promise<string> {
    while (this.#hashing >= this.max) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#hashing++;
    this.#ran++;
    try {
      return await hashPassword(password, random);
    } finally {
      this.#hashing--;
      this.#waiting.shift()?.();
    }
  }
}
