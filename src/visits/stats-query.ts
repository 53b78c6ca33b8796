import * as z from 'zod';
import { AppError } from '../core/errors.ts';
import type { QuerySchema } from '../core/request-schema.ts';
import { single } from '../links/list-query.ts';
import { FORMATS, type TransferFormat } from '../transfer/format.ts';
import { timeOf } from '../links/times.ts';
import { DASHBOARD_DAYS, MAX_DASHBOARD_DAYS, type StatsPeriod } from './stats.ts';

export const GRANULARITIES = ['hour', 'day'] as const;
export const EXPORTS = ['links', 'visits'] as const;

/** A time as a query gives it: an ISO 8601 date (UTC midnight) or date and time (UTC without an offset). Throws AppError('invalid') naming `name`. */
export function parseTime(text: string, name: string): Date {
  const time = timeOf(text);
  if (!time)
    throw new AppError('invalid', `${name} must be an ISO 8601 date or date and time, such as 2026-11-23 or 2026-11-23T14:00:00Z`, name);
  return new Date(time.ms);
}

/** `from`, `to` and `granularity` (hour|day, default day) of a link's stats. Throws AppError('invalid'). */
export function parseStatsQuery(params: Record<string, unknown>): StatsPeriod {
  const granularity = single(params, 'granularity') ?? 'day';
  if (!(GRANULARITIES as readonly string[]).includes(granularity))
    throw new AppError('invalid', `granularity must be one of ${GRANULARITIES.join(', ')}`, 'granularity');
  const from = single(params, 'from');
  const to = single(params, 'to');
  return {
    granularity: granularity as StatsPeriod['granularity'],
    from: from === undefined ? undefined : parseTime(from, 'from'),
    to: to === undefined ? undefined : parseTime(to, 'to'),
  };
}

/** `days` of the instance's stats (default 14). Throws AppError('invalid'). */
export function parseDays(params: Record<string, unknown>): number {
  const text = single(params, 'days');
  if (text === undefined) return DASHBOARD_DAYS;
  const days = Number(text);
  if (!/^\d+$/.test(text) || days < 1 || days > MAX_DASHBOARD_DAYS)
    throw new AppError('invalid', `days must be a whole number from 1 to ${MAX_DASHBOARD_DAYS}`, 'days');
  return days;
}

export interface ExportQuery {
  what: (typeof EXPORTS)[number];
  format: TransferFormat;
  /** Visits only: the period exported (default: every visit kept). */
  from: Date;
  to: Date;
}

/** `what` (links|visits), `format` (csv|ndjson, default csv), and for visits `from`/`to`. Throws AppError('invalid'). */
export function parseExportQuery(params: Record<string, unknown>): ExportQuery {
  const what = single(params, 'what');
  if (what === undefined || !(EXPORTS as readonly string[]).includes(what))
    throw new AppError('invalid', `what must be one of ${EXPORTS.join(', ')}`, 'what');
  const format = single(params, 'format') ?? 'csv';
  if (!(FORMATS as readonly string[]).includes(format))
    throw new AppError('invalid', `format must be one of ${FORMATS.join(', ')}`, 'format');
  const from = single(params, 'from');
  const to = single(params, 'to');
  if (what === 'links' && (from !== undefined || to !== undefined))
    throw new AppError('invalid', 'from and to apply to what=visits only', from === undefined ? 'to' : 'from');
  return {
    what: what as ExportQuery['what'],
    format: format as TransferFormat,
    from: from === undefined ? new Date(0) : parseTime(from, 'from'),
    to: to === undefined ? new Date(8.64e15) : parseTime(to, 'to'),
  };
}

/** A link's stats query. */
export const STATS_QUERY: QuerySchema<StatsPeriod> = {
  params: z.object({
    from: z.string().describe('Start, ISO 8601 date or date-time (default: 48 hours or 90 days before `to`)').optional(),
    to: z.string().describe('End (exclusive), ISO 8601 (default: the end of the current hour or day)').optional(),
    granularity: z.enum(GRANULARITIES).default('day').describe('One series point per UTC hour (at most 31 days) or day'),
  }),
  parse: parseStatsQuery,
};

/** The instance's stats query. */
export const DAYS_QUERY: QuerySchema<{ days: number; ownerName: string | undefined }> = {
  params: z.object({
    days: z.int().min(1).max(MAX_DASHBOARD_DAYS).default(DASHBOARD_DAYS).describe('UTC days covered, today included'),
    owner: z.string().describe("Only this user's links (admins; a member's figures are their own anyway)").optional(),
  }),
  parse: (params) => ({ days: parseDays(params), ownerName: single(params, 'owner')?.trim() || undefined }),
};

/** The export's query. */
export const EXPORT_QUERY: QuerySchema<ExportQuery> = {
  params: z.object({
    what: z.enum(EXPORTS).describe('links or visits'),
    format: z.enum(FORMATS).default('csv').describe('Output format'),
    from: z.string().describe('Visits only: at or after, ISO 8601').optional(),
    to: z.string().describe('Visits only: before, ISO 8601').optional(),
  }),
  parse: parseExportQuery,
};
