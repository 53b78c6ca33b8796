import { scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { codePoint, controlCharacter, unicodeProblem } from '../links/text-rules.ts';

/** scrypt's cost: 2^15 rounds of 8-block mixing, 32 MiB of memory, about 50-100 ms per hash. */
const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const MAX_PASSWORD = 1024;

function derive(password: string, salt: Buffer, cost: typeof COST): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** A slow hash of `password`, with its parameters and salt: `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPassword(password: string, random: (size: number) => Buffer): Promise<string> {
  const salt = random(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** True when `password` hashes to `stored`; compared in constant time. False for a malformed `stored`. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash || password.length > MAX_PASSWORD) return false;
  // HMAC, inside scrypt, pads a short key with zero bytes: "pw" and "pw\0" hash alike. No password holds a NUL.
  if (password.includes('\0')) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
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
