import { scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { codePoint, controlCharacter, unicodeProblem } from '../links/text-rules.ts';

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
