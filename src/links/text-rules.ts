// What text kurz stores: the checks every text field shares (url-rules.ts, link-options.ts, list-query.ts).

/** C0 and C1 control characters and DEL. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** The same, but for the tab and line feeds a text of several lines holds. */
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/** Line and paragraph separators: line breaks that are not control characters. */
const SEPARATOR = /[\u2028\u2029]/;
/** Embeddings, overrides and isolates: they reorder how the text around them reads (Trojan Source, CVE-2021-42574). */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;

/** A character as messages name it: U+000D. */
export function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The first lone surrogate in `text` (what bytes that are no UTF-8 would have to become), or undefined. */
function loneSurrogate(text: string): string | undefined {
  if (text.isWellFormed()) return undefined;
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.exec(text)?.[0];
}

/** Why `text` cannot be stored as it is: a lone surrogate, which storage would turn into U+FFFD. Undefined when it can. */
export function unicodeProblem(text: string): string | undefined {
  const lone = loneSurrogate(text);
  return lone === undefined ? undefined : `must be valid Unicode text (found a lone surrogate ${codePoint(lone)})`;
}

/** The first control character in `text`, or undefined; `lines` lets tabs and line breaks through. */
export function controlCharacter(text: string, lines = false): string | undefined {
  return (lines ? CONTROL_BUT_LINES : CONTROL).exec(text)?.[0];
}

/**
 * Why `text` is no text a person means to store, or undefined: a lone surrogate, a control character
 * (`lines`: but tabs and line breaks), a line separator in one line, a character that reorders the text.
 */
export function textProblem(text: string, lines: boolean): string | undefined {
  const unicode = unicodeProblem(text);
  if (unicode) return unicode;
  const control = controlCharacter(text, lines);
  if (control !== undefined) return `must not contain control characters (found ${codePoint(control)})`;
  const separator = lines ? null : SEPARATOR.exec(text);
  if (separator) return `must be one line (found ${codePoint(separator[0])})`;
  const bidi = BIDI_CONTROL.exec(text);
  if (bidi) return `must not contain characters that reorder text (found ${codePoint(bidi[0])})`;
  return undefined;
}
