import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { defuse } from './format.ts';

/** One part of a stats CSV: its name and rows of (item, metric, value). */
export interface CsvSection {
  name: string;
  rows: ReadonlyArray<readonly [string, string, number]>;
}

/** The columns of a stats CSV: one figure a row, so that a spreadsheet can pivot it whatever the page. */
export const STATS_CSV_COLUMNS = ['section', 'item', 'metric', 'value'] as const;

/**
 * A stats page's figures as CSV, one figure a row: `series_day,2026-11-23T00:00:00.000Z,humans,12`,
 * `referrers,news.example,visits,3`. Every text cell is defused (a leading ' before = + - @), as every kurz export's.
 */
export function statsCsv(sections: readonly CsvSection[]): string {
  const rows = sections.flatMap((s) => s.rows.map(([item, metric, value]) => [defuse(s.name), defuse(item), metric, String(value)]));
  return stringifyCsv([[...STATS_CSV_COLUMNS], ...rows]);
}
