import { parse as parseCsv } from 'csv-parse/sync';
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { AppError } from '../errors.ts';
import type { LinkRecord } from './link.ts';
import type { NumberedRecord } from './transfer.ts';
import { checkAlias } from './alias-rules.ts';

export type TransferFormat = 'csv' | 'ndjson';
export const FORMATS: readonly TransferFormat[] = ['csv', 'ndjson'];

/** Column order of both formats; NDJSON objects carry the same keys. */
const COLUMNS = ['code', 'url', 'isAlias', 'createdAt', 'updatedAt', 'visitCount', 'lastVisitAt', 'deletedAt'] as const;

// A spreadsheet treats a cell starting with one of these as a formula; a leading ' makes it text.
const FORMULA_START = /^[=+\-@\t\r]/;

/** The header line of a CSV export. */
export function csvHeader(): string {
  return stringifyCsv([[...COLUMNS]]);
}

/** One exported link as a line of the format (with its newline). */
export function formatRecord(record: LinkRecord, format: TransferFormat): string {
  const row = {
    code: record.code,
    url: record.url,
    isAlias: record.isAlias,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    visitCount: record.visitCount,
    lastVisitAt: record.lastVisitAt?.toISOString() ?? null,
    deletedAt: record.deletedAt?.toISOString() ?? null,
  };
  if (format === 'ndjson') return JSON.stringify(row) + '\n';
  return stringifyCsv([COLUMNS.map((c) => defuse(row[c] === null ? '' : String(row[c])))]);
}

/**
 * Reads a whole export back into records, validating every field. Throws AppError('invalid') naming the
 * line and field of the first problem, so nothing half-read is ever imported.
 */
export function parseRecords(text: string, format: TransferFormat, reserved: ReadonlySet<string>): NumberedRecord[] {
  const rows = format === 'ndjson' ? ndjsonRows(text) : csvRows(text);
  return rows.map(({ line, row }) => ({ line, record: toRecord(row, line, reserved) }));
}

function ndjsonRows(text: string): Array<{ line: number; row: Record<string, unknown> }> {
  const rows: Array<{ line: number; row: Record<string, unknown> }> = [];
  for (const [i, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(raw);
    } catch (err) {
      throw new AppError('invalid', `line ${i + 1}: not valid JSON: ${(err as Error).message}`);
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row))
      throw new AppError('invalid', `line ${i + 1}: must be a JSON object`);
    rows.push({ line: i + 1, row: row as Record<string, unknown> });
  }
  return rows;
}

function csvRows(text: string): Array<{ line: number; row: Record<string, unknown> }> {
  let records: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    records = parseCsv(text, { columns: true, skip_empty_lines: true, bom: true, info: true }) as typeof records;
  } catch (err) {
    throw new AppError('invalid', `not valid CSV: ${(err as Error).message}`);
  }
  return records.map(({ record, info }) => {
    const row: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) row[key] = value === '' ? null : restore(value);
    row['isAlias'] = row['isAlias'] === 'true' ? true : row['isAlias'] === 'false' ? false : row['isAlias'];
    row['visitCount'] =
      typeof row['visitCount'] === 'string' && /^\d+$/.test(row['visitCount']) ? Number(row['visitCount']) : row['visitCount'];
    return { line: info.lines, row };
  });
}

function toRecord(row: Record<string, unknown>, line: number, reserved: ReadonlySet<string>): LinkRecord {
  const fail = (field: string, message: string): never => {
    throw new AppError('invalid', `line ${line}: ${field} ${message}`, field);
  };
  for (const key of Object.keys(row)) if (!(COLUMNS as readonly string[]).includes(key)) fail(key, 'is not a known field');
  let code = '';
  try {
    code = checkAlias(row['code'], reserved);
  } catch (err) {
    fail('code', `is not usable: ${(err as Error).message.replace(/^alias /, '')}`);
  }
  if (typeof row['url'] !== 'string') fail('url', 'is missing');
  if (typeof row['isAlias'] !== 'boolean') fail('isAlias', 'must be true or false');
  const visitCount = row['visitCount'];
  if (typeof visitCount !== 'number' || !Number.isSafeInteger(visitCount) || visitCount < 0)
    fail('visitCount', 'must be a whole number ≥ 0');
  const time = (field: string, optional: boolean): Date | null => {
    const value = row[field];
    if (value === null || value === undefined) return optional ? null : fail(field, 'is missing');
    const ms = typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value) ? Date.parse(value) : Number.NaN;
    return Number.isNaN(ms) ? fail(field, `must be an ISO 8601 UTC time, got ${JSON.stringify(value)}`) : new Date(ms);
  };
  return {
    code,
    url: row['url'] as string,
    isAlias: row['isAlias'] as boolean,
    createdAt: time('createdAt', false) as Date,
    updatedAt: time('updatedAt', false) as Date,
    visitCount: visitCount as number,
    lastVisitAt: time('lastVisitAt', true),
    deletedAt: time('deletedAt', true),
  };
}

function defuse(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

/** Undoes `defuse`: no exported value starts with ' otherwise (codes and URLs cannot). */
function restore(cell: string): string {
  return cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}
