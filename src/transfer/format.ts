import type { Variant } from '../rules/rule.ts';
import { variantJson } from '../rules/stored.ts';
import { parse as parseCsv } from 'csv-parse/sync';
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { hashProblem } from '../auth/passwords.ts';
import { AppError } from '../core/errors.ts';
import { parseJson } from '../core/strict-json.ts';
import type { LinkRecord } from '../links/link.ts';
import { LIMITS, parseOptions } from '../links/link-options.ts';
import type { PeerLink, PeerSkip } from './sources/peer-link.ts';
import type { ExportedLink, NumberedRecord } from './records.ts';
import { checkAlias } from '../links/alias-rules.ts';
import { timeOf } from '../links/times.ts';
import { parsePages, storedPages, type PageSettings } from '../rules/page-settings.ts';

export type TransferFormat = 'csv' | 'ndjson';
export const FORMATS: readonly TransferFormat[] = ['csv', 'ndjson'];

/**
 * Column order of both formats; NDJSON objects carry the same keys. The link options came later: a file
 * without them imports with the defaults. In CSV, `tags` are joined with ";" (a tag cannot hold one) and an
 * empty cell is null; in NDJSON they are a list. `passwordHash` is the slow hash, so a password link stays
 * locked after a move; the password itself is never known. `domain` is the link's host, empty (null) for
 * the default domain, so that a file moves between instances with different publicUrls. `split` (the link's
 * own A/B split, a list), `preview` (the social preview, an object) and `rules` (the redirect rules as the API sets them, a list) and `pages` (the pages before the redirect as the API
 * sets them, an object; null for none) are JSON in a CSV cell. `startsAt` and `crawlable` came last: a file without them imports
 * links live from their creation and disallowed by robots.txt.
 */
const COLUMNS = [
  'code',
  'url',
  'isAlias',
  'createdAt',
  'updatedAt',
  'visitCount',
  'lastVisitAt',
  'deletedAt',
  'title',
  'note',
  'tags',
  'expiresAt',
  'maxVisits',
  'claimedVisits',
  'passwordHash',
  'redirectStatus',
  'forwardQuery',
  'enabled',
  'domain',
  'split',
  'preview',
  'rules',
  'pages',
  'startsAt',
  'crawlable',
] as const;

/** The columns whose CSV cell holds JSON. */
const CSV_JSON = ['split', 'preview', 'rules', 'pages'];

const CSV_TAG_SEPARATOR = ';';
const CSV_BOOLEANS = ['isAlias', 'forwardQuery', 'enabled', 'hasPassword', 'crawlable'];
const CSV_NUMBERS = ['visitCount', 'maxVisits', 'claimedVisits', 'redirectStatus'];

// A spreadsheet treats a cell starting with one of these as a formula; a leading ' makes it text.
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * Whether an export carries the links' password hashes: a backup (`kurz export` on the server) does, so
 * that a password link stays locked after a move; whatever leaves over the API does not, and says only
 * `hasPassword` instead. A file without the hashes does not import its password links back (see toRecord).
 */
export type Secrets = 'with-hashes' | 'without-hashes';

/** The columns of an export, in order. */
function columnsOf(secrets: Secrets): readonly string[] {
  return secrets === 'with-hashes' ? COLUMNS : COLUMNS.map((c) => (c === 'passwordHash' ? 'hasPassword' : c));
}

/** The header line of a CSV export. */
export function csvHeader(secrets: Secrets): string {
  return stringifyCsv([[...columnsOf(secrets)]]);
}

/** One exported link as a line of the format (with its newline); `domain` its host, null on the default domain. */
export function formatRecord(record: ExportedLink, format: TransferFormat, secrets: Secrets, domain: string | null): string {
  const row = {
    code: record.code,
    url: record.url,
    isAlias: record.isAlias,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    visitCount: record.visitCount,
    lastVisitAt: record.lastVisitAt?.toISOString() ?? null,
    deletedAt: record.deletedAt?.toISOString() ?? null,
    title: record.title,
    note: record.note,
    tags: record.tags,
    expiresAt: record.expiresAt?.toISOString() ?? null,
    maxVisits: record.maxVisits,
    claimedVisits: record.claimedVisits,
    ...(secrets === 'with-hashes' ? { passwordHash: record.passwordHash } : { hasPassword: record.passwordHash !== null }),
    redirectStatus: record.redirectStatus,
    forwardQuery: record.forwardQuery,
    enabled: record.enabled,
    domain,
    // The link's own A/B split: a list in NDJSON, its JSON text in a CSV cell.
    split: record.split && record.split.map(variantJson),
    preview: record.preview,
    rules: record.rules,
    pages: record.pages === undefined || storedPages(record.pages) === null ? null : record.pages,
    startsAt: record.startsAt?.toISOString() ?? null,
    crawlable: record.crawlable,
  };
  if (format === 'ndjson') return JSON.stringify(row) + '\n';
  const cell = (column: string, value: unknown) =>
    value === null
      ? ''
      : CSV_JSON.includes(column)
        ? JSON.stringify(value)
        : Array.isArray(value)
          ? value.join(CSV_TAG_SEPARATOR)
          : String(value);
  return stringifyCsv([columnsOf(secrets).map((c) => defuse(cell(c, row[c as keyof typeof row])))]);
}

/**
 * Reads a whole export back into records, validating every field; `domainOf` gives the id of a line's
 * domain (a host; null or absent for the default domain) or throws AppError for one this instance lacks.
 * Throws AppError('invalid') naming the line and field of the first problem, so nothing half-read is ever imported.
 */
export function parseRecords(
  text: string,
  format: TransferFormat,
  reserved: ReadonlySet<string>,
  domainOf: (host: unknown) => number,
): NumberedRecord[] {
  const rows = format === 'ndjson' ? ndjsonRows(text) : csvRows(text);
  return rows.map(({ line, row }) => ({ line, record: toRecord(row, line, reserved, domainOf), rules: row['rules'] ?? null }));
}

function ndjsonRows(text: string): Array<{ line: number; row: Record<string, unknown> }> {
  const rows: Array<{ line: number; row: Record<string, unknown> }> = [];
  for (const [i, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue;
    let row: unknown;
    try {
      row = parseJson(raw);
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
    records = parseCsv(text, { columns: headerColumns, skip_empty_lines: true, bom: true, info: true }) as typeof records;
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('invalid', `not valid CSV: ${(err as Error).message}`);
  }
  return records.map(({ record, info }) => {
    const row: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) row[key] = value === '' ? null : restore(value);
    for (const key of CSV_BOOLEANS) row[key] = row[key] === 'true' ? true : row[key] === 'false' ? false : row[key];
    for (const key of CSV_NUMBERS) {
      const value = row[key];
      if (typeof value === 'string' && /^\d{1,15}$/.test(value)) row[key] = Number(value);
    }
    if (typeof row['tags'] === 'string') row['tags'] = row['tags'].split(CSV_TAG_SEPARATOR);
    for (const key of CSV_JSON) {
      const value = row[key];
      if (typeof value !== 'string') continue;
      try {
        row[key] = parseJson(value);
      } catch (err) {
        throw new AppError('invalid', `line ${info.lines}: ${key} is not valid JSON: ${(err as Error).message}`, key);
      }
    }
    return { line: info.lines, row };
  });
}

/** The header line's column names; one named twice is refused, not read as the last of them. */
function headerColumns(names: string[]): string[] {
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new AppError('invalid', `line 1: the column "${twice}" is named twice`, twice);
  return names;
}

/**
 * Another shortener's link as a record, checked as an export's line is (naming its line). A link without a
 * code gets code '' and `generated`; a title longer than kurz keeps is cut; no creation time is `now`.
 */
export function peerRecord(
  link: PeerLink,
  reserved: ReadonlySet<string>,
  domainOf: (host: unknown) => number,
  now: Date,
): NumberedRecord | PeerSkip {
  // A code kurz cannot have (one of its own paths, a character it does not allow) cannot move: that line is skipped.
  if (link.code !== null) {
    try {
      checkAlias(link.code, reserved);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return {
        line: link.line,
        code: link.code,
        url: link.url,
        domain: link.domain,
        reason: `cannot be a code here: ${err.message.replace(/^alias /, '')}`,
      };
    }
  }
  const createdAt = (link.createdAt ?? now).toISOString();
  // A title is one line here: another shortener's may hold line breaks or be longer than kurz keeps.
  const line = link.title?.replace(/[\s\p{Cc}]+/gu, ' ').trim() || null;
  const title = line !== null && line.length > LIMITS.title ? `${line.slice(0, LIMITS.title - 1)}…` : line;
  const row = {
    code: link.code,
    url: link.url,
    isAlias: link.code !== null,
    createdAt,
    updatedAt: createdAt,
    visitCount: link.visitCount,
    lastVisitAt: link.lastVisitAt?.toISOString() ?? null,
    title,
    tags: link.tags,
    expiresAt: link.expiresAt?.toISOString() ?? null,
    domain: link.domain,
  };
  const generated = link.code === null;
  try {
    const record = toRecord(row, link.line, reserved, domainOf, generated);
    return { line: link.line, record, rules: null, generated, ...(link.visits.length > 0 ? { visits: link.visits } : {}) };
  } catch (err) {
    // Tags kurz cannot keep (a character it does not allow, too many) would lose part of the link: it stays behind, with why.
    if (!(err instanceof AppError) || err.field !== 'tags') throw err;
    const reason = err.message.replace(/^line \d+: /, '');
    return { line: link.line, code: link.code, url: link.url, domain: link.domain, reason };
  }
}

function toRecord(
  row: Record<string, unknown>,
  line: number,
  reserved: ReadonlySet<string>,
  domainOf: (host: unknown) => number,
  generated = false,
): LinkRecord {
  const fail = (field: string, message: string): never => {
    throw new AppError('invalid', `line ${line}: ${field} ${message}`, field);
  };
  for (const key of Object.keys(row))
    if (!(COLUMNS as readonly string[]).includes(key) && key !== 'hasPassword') fail(key, 'is not a known field');
  let code = '';
  try {
    if (!generated) code = checkAlias(row['code'], reserved);
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
    const read = typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value) ? timeOf(value) : undefined;
    return read ? new Date(read.ms) : fail(field, `must be an ISO 8601 UTC time, got ${JSON.stringify(value)}`);
  };
  const claimedVisits = row['claimedVisits'] ?? 0;
  if (typeof claimedVisits !== 'number' || !Number.isSafeInteger(claimedVisits) || claimedVisits < 0)
    fail('claimedVisits', 'must be a whole number ≥ 0');
  const passwordHash = row['passwordHash'] ?? null;
  const hasPassword = row['hasPassword'] ?? null;
  if (hasPassword !== null && typeof hasPassword !== 'boolean') fail('hasPassword', 'must be true or false');
  // An export made over the API names a password link without its hash: imported, it would lose its lock.
  if (hasPassword === true && passwordHash === null)
    fail('passwordHash', 'is missing: the link has a password, and an export over the API leaves its hash out; move it with `kurz export`');
  if (passwordHash !== null) {
    const problem = typeof passwordHash === 'string' ? hashProblem(passwordHash) : hashProblem('');
    if (problem !== undefined) fail('passwordHash', problem);
  }
  const expiresAt = time('expiresAt', true);
  const startsAt = time('startsAt', true);
  if (startsAt && expiresAt && startsAt.getTime() >= expiresAt.getTime()) fail('startsAt', 'must be before expiresAt');
  const options = linkOptions(row, line);
  let domain = 0;
  try {
    domain = domainOf(row['domain'] ?? null);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    fail('domain', `${JSON.stringify(row['domain'])} is not one of this kurz's domains: add it first (kurz domains add HOST)`);
  }
  return {
    domain,
    code,
    url: row['url'] as string,
    isAlias: row['isAlias'] as boolean,
    createdAt: time('createdAt', false) as Date,
    updatedAt: time('updatedAt', false) as Date,
    visitCount: visitCount as number,
    lastVisitAt: time('lastVisitAt', true),
    deletedAt: time('deletedAt', true),
    ...options,
    startsAt,
    expiresAt,
    claimedVisits: claimedVisits as number,
    passwordHash: passwordHash as string | null,
    split: splitCell(row['split'], fail),
    pages: pagesOf(row, line),
  };
}

/** The page settings of an exported link, checked as the API's `pages` are; none when the file lacks them. */
function pagesOf(row: Record<string, unknown>, line: number): PageSettings {
  try {
    return parsePages(row['pages'] ?? null);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    throw new AppError('invalid', `line ${line}: ${err.message}`, err.field);
  }
}

/**
 * A line's `split`: a list (NDJSON) or its JSON text (CSV), null or absent for none. Its variants are checked
 * as a link's own split (rules/rule.ts's parseSplit) by the import, which knows the URL rules.
 */
function splitCell(value: unknown, fail: (field: string, message: string) => never): Variant[] | null {
  if (value === null || value === undefined || value === '') return null;
  let list = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      fail('split', 'must be a JSON list of variants {url, weight, paused}');
    }
  }
  if (!Array.isArray(list)) return fail('split', 'must be a list of variants {url, weight, paused}');
  return list as Variant[];
}

/**
 * The options of an exported link, checked as a new link's are (links/link-options.ts); a field the file
 * lacks takes its default. The start and the expiry are checked apart: an imported link may have expired already.
 */
function linkOptions(row: Record<string, unknown>, line: number) {
  const given = (field: string, fallback: unknown) => (row[field] === undefined ? fallback : row[field]);
  const fields = ['title', 'note', 'tags', 'maxVisits', 'redirectStatus', 'forwardQuery', 'preview'];
  const input: Record<string, unknown> = Object.fromEntries(fields.map((f) => [f, given(f, null)]));
  input['enabled'] = given('enabled', true);
  input['crawlable'] = given('crawlable', false);
  try {
    const { options } = parseOptions(input, 0);
    return {
      title: options.title ?? null,
      note: options.note ?? null,
      tags: options.tags ?? [],
      maxVisits: options.maxVisits ?? null,
      redirectStatus: options.redirectStatus ?? null,
      forwardQuery: options.forwardQuery ?? null,
      enabled: options.enabled ?? true,
      preview: options.preview ?? null,
      crawlable: options.crawlable ?? false,
    };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    throw new AppError('invalid', `line ${line}: ${err.message}`, err.field);
  }
}

/** Makes a cell text for a spreadsheet; a cell that starts with ' (a title may) gets one more, so `restore` is exact. */
export function defuse(cell: string): string {
  return FORMULA_START.test(cell) || cell.startsWith("'") ? `'${cell}` : cell;
}

/** Undoes `defuse`. */
function restore(cell: string): string {
  return cell.startsWith("'") ? cell.slice(1) : cell;
}
