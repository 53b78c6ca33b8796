import { BASE62_ALPHABET } from './base62.ts';

/** 248, the largest multiple of 62 a byte can reach: bytes from it up are drawn again, so that every character is equally likely. */
const BYTE_LIMIT = 62 * 4;

/**
 * A code of `length` base62 characters, each drawn uniformly from `random`'s bytes (a CSPRNG outside tests):
 * for a code whose length no id's code has (links/create.ts tries another on a clash).
 */
export function randomCode(length: number, random: (size: number) => Buffer): string {
  let code = '';
  while (code.length < length) {
    for (const byte of random(length - code.length)) {
      if (byte < BYTE_LIMIT) code += BASE62_ALPHABET[byte % BASE62_ALPHABET.length];
    }
  }
  return code;
}
