/** An ISO 8601 / RFC 3339 date, or date and time with an optional offset. */
const TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/** What `timeOf` read. */
export interface ReadTime {
  ms: number;
  /** Only a date was given (its UTC midnight). */
  dateOnly: boolean;
  /** The text carried an offset (Z or ±hh:mm); without one the time was read as UTC. */
  hasOffset: boolean;
}

/**
 * Reads a date or a date and time; without an offset it is UTC, whatever the machine's time zone. A day or
 * time that does not exist (2026-02-30, 24:00) is undefined, not rolled over as Date.parse does.
 */
export function timeOf(text: string): ReadTime | undefined {
  const m = TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', sec = '0', fraction = '0', offset] = m;
  const parts = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)] as const;
  const utc = Date.UTC(...parts, Number(fraction.slice(0, 3).padEnd(3, '0')));
  const check = new Date(utc);
  const read = [
    check.getUTCFullYear(),
    check.getUTCMonth(),
    check.getUTCDate(),
    check.getUTCHours(),
    check.getUTCMinutes(),
    check.getUTCSeconds(),
  ];
  if (read.some((value, i) => value !== parts[i])) return undefined;
  const dateOnly = m[4] === undefined;
  if (offset === undefined || offset === 'Z' || offset === 'z') return { ms: utc, dateOnly, hasOffset: offset !== undefined };
  const [oh, om] = [Number(offset.slice(1, 3)), Number(offset.slice(-2))];
  if (oh > 23 || om > 59) return undefined;
  return { ms: utc - (offset.startsWith('-') ? -1 : 1) * (oh * 60 + om) * 60_000, dateOnly, hasOffset: true };
}
