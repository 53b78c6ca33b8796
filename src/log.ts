export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Writes one `time level message key=value…` line per event: grep-able, and journald adds nothing odd to it. */
export function createLogger(out: { write(line: string): unknown }): Logger {
  const write = (level: string, message: string, fields?: Record<string, unknown>): void => {
    let line = `${new Date().toISOString()} ${level} ${message}`;
    for (const [key, value] of Object.entries(fields ?? {})) {
      const s = value instanceof Error ? (value.stack ?? value.message) : typeof value === 'string' ? value : JSON.stringify(value);
      line += ` ${key}=${/[\s"]/.test(s ?? '') ? JSON.stringify(s) : s}`;
    }
    out.write(line + '\n');
  };
  return { info: (m, f) => write('info', m, f), error: (m, f) => write('error', m, f) };
}

/** A logger that keeps lines in memory, for tests that assert on what was logged. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, ...createLogger({ write: (l: string) => lines.push(l.trimEnd()) }) };
}
