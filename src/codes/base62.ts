/** The 62 code characters; a character's index is its digit value. */
export const BASE62_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

const RADIX = 62;
const DIGIT_OF = new Map(Array.from(BASE62_ALPHABET, (ch, i) => [ch, i]));

/** Base62 of a non-negative safe integer, without leading zeros ("0" for zero). */
export function encodeBase62(value: number): string {
  assertValue(value);
  let text = '';
  do {
    const digit = value % RADIX;
    text = BASE62_ALPHABET[digit] + text;
    value = (value - digit) / RADIX;
  } while (value > 0);
  return text;
}

/** Base62 of `value` left-padded with "0" to exactly `width` characters; throws if it does not fit. */
export function encodeBase62Fixed(value: number, width: number): string {
  const text = encodeBase62(value);
  if (text.length > width) throw new RangeError(`${value} does not fit in ${width} base62 digits`);
  return text.padStart(width, '0');
}

/**
 * The value of a base62 string (leading zeros allowed), or undefined when it is empty, holds a
 * character outside the alphabet or exceeds Number.MAX_SAFE_INTEGER.
 */
export function decodeBase62(text: string): number | undefined {
  if (text.length === 0) return undefined;
  let value = 0;
  for (let k = 0; k < text.length; k++) {
    const digit = DIGIT_OF.get(text[k]!);
    if (digit === undefined) return undefined;
    // The first sum past the limit may round, but never back below it.
    value = value * RADIX + digit;
    if (value > Number.MAX_SAFE_INTEGER) return undefined;
  }
  return value;
}

/** Whether every character of `text` is in the base62 alphabet. */
export function isBase62(text: string): boolean {
  for (let k = 0; k < text.length; k++) {
    if (!DIGIT_OF.has(text[k]!)) return false;
  }
  return true;
}

function assertValue(value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`base62 encodes non-negative safe integers, got ${value}`);
  }
}
