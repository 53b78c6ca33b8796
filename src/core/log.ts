export type Level = 'debug' | 'info' | 'warn' | 'error';

/** `auto`: JSON lines unless the log goes to a terminal, then text. */
export type LogFormat = 'auto' | 'json' | 'text';

export const LEVELS: readonly Level[] = ['debug', 'info', 'warn', 'error'];
export const LOG_FORMATS: readonly LogFormat[] = ['auto', 'json', 'text'];

export type Fields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: Fields): void;
  info(message: string, fields?: Fields): void;
  warn(message: string, fields?: Fields): void;
  error(message: string, fields?: Fields): void;
}

/** Where log lines go: process.stderr, or anything with `write` (a test's array). */
export interface LogStream {
  write(line: string): unknown;
  isTTY?: boolean;
  /** Its file descriptor, when it has one (process.stderr's is 2): the access log writes to it off the event loop. */
  fd?: number;
}

export interface LogOptions {
  /** Events below this level are dropped (their methods do nothing). Default info. */
  level?: Level;
  /** Default text. */
  format?: LogFormat;
}

/** One event as a line, ending in a newline. */
export type LineFormat = (time: number, level: Level, message: string, fields: Fields | undefined) => string;

/**
 * One line per event on `out`: a JSON object (`{"time","level","msg",…fields}`, what log collectors parse)
 * or, on a terminal, `time level message key=value…`. Methods below `level` do nothing.
 */
export function createLogger(out: LogStream, options: LogOptions = {}): Logger {
  const format = lineFormat(options.format ?? 'text', out);
  const least = LEVELS.indexOf(options.level ?? 'info');
  const method = (level: Level) =>
    LEVELS.indexOf(level) < least
      ? () => undefined
      : (message: string, fields?: Fields) => {
          out.write(format(Date.now(), level, message, fields));
        };
  return { debug: method('debug'), info: method('info'), warn: method('warn'), error: method('error') };
}

/** The line format a setting means on `out`: `auto` is text on a terminal, JSON otherwise. */
export function lineFormat(format: LogFormat, out: LogStream): LineFormat {
  return format === 'json' || (format === 'auto' && out.isTTY !== true) ? jsonLine : textLine;
}

/** `{"time":"…","level":"info","msg":"…",…fields}`; an Error field becomes `{name, message, stack}`. */
export const jsonLine: LineFormat = (time, level, message, fields) => {
  const record: Fields = { time: isoTime(time), level, msg: message };
  // A replacer slows JSON.stringify down by half: only a line with an object (an Error) or a bigint needs it.
  let plain = true;
  for (const key in fields) {
    const value = fields[key];
    if (key in record || value === undefined) continue;
    record[key] = value;
    if (typeof value === 'object' || typeof value === 'bigint') plain = false;
  }
  return (plain ? JSON.stringify(record) : JSON.stringify(record, jsonValue)) + '\n';
};

/** `time level message key=value…`: a value with a space or a quote is JSON-quoted, an Error is its stack. */
export const textLine: LineFormat = (time, level, message, fields) => {
  let line = `${isoTime(time)} ${level} ${message}`;
  for (const key in fields) {
    const value = fields[key];
    if (value === undefined) continue;
    const s =
      value instanceof Error ? (value.stack ?? value.message) : typeof value === 'string' ? value : JSON.stringify(value, jsonValue);
    line += ` ${key}=${/[\s"]/.test(s ?? '') ? JSON.stringify(s) : s}`;
  }
  return line + '\n';
};

let lastTime = NaN;
let lastIso = '';

/** `time` as an ISO 8601 string: the last one is kept, since a busy server logs many lines in a millisecond. */
export function isoTime(time: number): string {
  if (time !== lastTime) {
    lastIso = new Date(time).toISOString();
    lastTime = time;
  }
  return lastIso;
}

function jsonValue(this: unknown, _key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const code = (value as NodeJS.ErrnoException).code;
    return { name: value.name, message: value.message, ...(code === undefined ? {} : { code }), stack: value.stack };
  }
  return typeof value === 'bigint' ? value.toString() : value;
}

/** One event a memoryLogger kept. */
export interface LogRecord {
  level: Level;
  message: string;
  fields: Fields;
}

/**
 * A logger that keeps events in memory, for tests that assert on what was logged: `lines` in the text
 * format, `records` as they were given. Every level is kept unless `level` says otherwise.
 */
export function memoryLogger(level: Level = 'debug'): Logger & { lines: string[]; records: LogRecord[] } {
  const lines: string[] = [];
  const records: LogRecord[] = [];
  const least = LEVELS.indexOf(level);
  const method = (at: Level) => (message: string, fields?: Fields) => {
    if (LEVELS.indexOf(at) < least) return;
    records.push({ level: at, message, fields: { ...fields } });
    lines.push(textLine(Date.now(), at, message, fields).trimEnd());
  };
  return { lines, records, debug: method('debug'), info: method('info'), warn: method('warn'), error: method('error') };
}
