import bourne from '@hapi/bourne';

/**
 * JSON.parse, refusing what it would let through silently: a key given twice in one object (JSON.parse keeps
 * the last, so a proxy that reads the first and kurz would disagree about what was sent) and `__proto__`
 * keys. Throws SyntaxError.
 */
export function parseJson(text: string): unknown {
  const value: unknown = bourne.parse(text, { protoAction: 'error' });
  const duplicate = typeof value === 'object' && value !== null ? duplicateKey(text) : undefined;
  if (duplicate !== undefined) throw new SyntaxError(`the key ${JSON.stringify(duplicate)} is given twice in one object`);
  return value;
}

/** The first key that one object of `text` (valid JSON) holds twice, decoded (`"\u0075rl"` is `url`); undefined if none. */
function duplicateKey(text: string): string | undefined {
  // The keys of each object open around the position; null for an array.
  const open: Array<Set<string> | null> = [];
  let keyNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c /* \ */ ? 2 : 1;
      const keys = open[open.length - 1];
      if (keyNext && keys) {
        const raw = text.slice(i, end + 1);
        const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (keys.has(key)) return key;
        keys.add(key);
        keyNext = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      open.push(new Set());
      keyNext = true;
    } else if (c === 0x5b /* [ */) {
      open.push(null);
      keyNext = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
      keyNext = false;
    } else if (c === 0x2c /* , */) {
      keyNext = open[open.length - 1] !== null;
    }
  }
  return undefined;
}
