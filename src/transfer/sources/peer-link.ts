import { parse as parseCsv } from 'csv-parse/sync';
import { AppError } from '../../core/errors.ts';
import { timeOf } from '../../links/times.ts';
import type { PastVisit } from '../records.ts';

/** A link as another shortener's file gives it, before kurz checks it (format.ts's recordOf does). */
export interface PeerLink {
  /** The line of the file it starts on. */
  line: number;
  /** Its code; null when the file has none (a plain list of URLs): kurz generates one. */
  code: string | null;
  url: string;
  /** The host it answered on; null for the source's own default domain, which becomes kurz's. */
  domain: string | null;
  title: string | null;
  tags: string[];
  createdAt: Date | null;
  visitCount: number;
  lastVisitAt: Date | null;
  expiresAt: Date | null;
  /** The visits the source logged for it, for its figures by day (YOURLS' log); empty when it logs none. */
  visits: PastVisit[];
}

/** A line the source has that is not imported, and why. */
export interface PeerSkip {
  line: number;
  code: string | null;
  url: string | null;
  /** The host it answered on; null for the source's default domain. */
  domain: string | null;
  reason: string;
}

/** What a source's reader makes of a file. */
export interface PeerFile {
  links: PeerLink[];
  skips: PeerSkip[];
  /** What the reader could not carry for the whole file (a table missing, columns left unread). */
  notes: string[];
}

/** A PeerLink with only what every source has; the rest empty. */
export function peerLink(line: number, code: string | null, url: string): PeerLink {
  return {
    line,
    code,
    url,
    domain: null,
    title: null,
    tags: [],
    createdAt: null,
    visitCount: 0,
    lastVisitAt: null,
    expiresAt: null,
    visits: [],
  };
}

/** Throws AppError('invalid') naming the line. */
export function refuseLine(line: number, message: string): never {
  throw new AppError('invalid', `line ${line}: ${message}`);
}

/**
 * A date and time a source wrote: ISO 8601 or "YYYY-MM-DD HH:MM:SS" (UTC when it carries no offset), or
 * milliseconds since the epoch (what Kutt's SQLite file holds for the dates it sets); null for empty.
 */
export function peerTime(value: string | null | undefined, line: number, field: string): Date | null {
  if (value === null || value === undefined || value.trim() === '') return null;
  const text = value.trim();
  if (/^\d{12,15}$/.test(text)) return new Date(Number(text));
  // PostgreSQL writes an offset of whole hours as "+02".
  const read = timeOf(text.replace(/(:\d\d(\.\d+)?[+-]\d\d)$/, '$1:00'));
  if (read === undefined) refuseLine(line, `${field} is not a date and time: ${JSON.stringify(text.slice(0, 40))}`);
  return new Date(read.ms);
}

/** A whole number ≥ 0 a source wrote, 0 for empty. */
export function peerCount(value: string | null | undefined, line: number, field: string): number {
  if (value === null || value === undefined || value.trim() === '') return 0;
  if (!/^\d{1,15}$/.test(value.trim())) refuseLine(line, `${field} must be a whole number ≥ 0, got ${JSON.stringify(value.slice(0, 40))}`);
  return Number(value.trim());
}

/** Text a source wrote, null for empty. */
export function peerText(value: string | null | undefined): string | null {
  return value === null || value === undefined || value.trim() === '' ? null : value.trim();
}

/** The CSV rows under a header, each with the line it starts on; `header` names the columns (e.g. lower-cased). */
export function csvRecords(
  text: string,
  header: (name: string) => string,
  options: { delimiter?: string[] } = {},
): { columns: string[]; rows: Array<{ line: number; row: Record<string, string> }> } {
  let columns: string[] = [];
  let records: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    records = parseCsv(text, {
      columns: (names: string[]) => {
        columns = names.map(header);
        const twice = columns.find((name, i) => name !== '' && columns.indexOf(name) !== i);
        if (twice !== undefined) throw new AppError('invalid', `line 1: the column "${twice}" is named twice`);
        return columns;
      },
      skip_empty_lines: true,
      bom: true,
      info: true,
      relax_column_count_less: true,
      ...(options.delimiter ? { delimiter: options.delimiter } : {}),
    }) as typeof records;
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('invalid', `not valid CSV: ${(err as Error).message}`);
  }
  return { columns, rows: records.map(({ record, info }) => ({ line: info.lines, row: record })) };
}

/** The path of a short URL without its leading "/" (its code), and its host; undefined when it is no URL. */
export function shortUrlParts(value: string): { host: string; code: string } | undefined {
  if (!URL.canParse(value.includes('://') ? value : `https://${value}`)) return undefined;
  const url = new URL(value.includes('://') ? value : `https://${value}`);
  return { host: url.host, code: decodeURIComponent(url.pathname.slice(1)) };
}
