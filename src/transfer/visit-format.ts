import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { csvHeader, defuse, formatRecord, type Secrets, type TransferFormat } from './format.ts';
import type { StoredVisit } from '../visits/visit.ts';
import type { ExportQuery } from '../visits/stats-query.ts';
import type { ExportedLink } from './records.ts';

/** Column order of a visit export; NDJSON objects carry the same keys. An empty CSV cell is null. */
export const VISIT_COLUMNS = ['at', 'code', 'bot', 'referrer', 'browser', 'os', 'device', 'country', 'language'] as const;

/** The header line of a CSV visit export. */
export function visitCsvHeader(): string {
  return stringifyCsv([[...VISIT_COLUMNS]]);
}

/** One raw visit as a line of the format (with its newline); CSV cells are safe to open in a spreadsheet. */
export function formatVisit(visit: StoredVisit, format: TransferFormat): string {
  const row = {
    at: visit.at.toISOString(),
    code: visit.code,
    bot: visit.bot,
    referrer: visit.referrer,
    browser: visit.browser,
    os: visit.os,
    device: visit.device,
    country: visit.country,
    language: visit.language,
  };
  if (format === 'ndjson') return JSON.stringify(row) + '\n';
  return stringifyCsv([VISIT_COLUMNS.map((c) => defuse(row[c] ?? ''))]);
}

export interface ExportSources {
  links(): AsyncIterable<ExportedLink>;
  /** A link's domain as the file names it: its host, null for the default domain. */
  domainOf(domain: number): string | null;
  visits(from: Date, to: Date): AsyncIterable<StoredVisit>;
}

/**
 * The lines of an export, header first, read from the store a page at a time (constant memory); links with
 * their password hashes or without (transfer-format.ts's Secrets).
 */
export async function* exportLines(sources: ExportSources, query: ExportQuery, secrets: Secrets): AsyncGenerator<string> {
  if (query.what === 'links') {
    if (query.format === 'csv') yield csvHeader(secrets);
    for await (const record of sources.links()) yield formatRecord(record, query.format, secrets, sources.domainOf(record.domain));
    return;
  }
  if (query.format === 'csv') yield visitCsvHeader();
  for await (const visit of sources.visits(query.from, query.to)) yield formatVisit(visit, query.format);
}
