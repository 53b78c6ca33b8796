import * as z from 'zod';
import { AppError } from '../core/errors.ts';
import type { QuerySchema } from '../core/request-schema.ts';
import { single } from '../links/list-query.ts';
import { FORMATS, type TransferFormat } from '../transfer/format.ts';
import { timeOf } from '../links/times.ts';
import { DASHBOARD_DAYS, MAX_DASHBOARD_DAYS, type Granularity, type StatsPeriod } from './stats.ts';
import { DAY, dayOf, HOUR, hourOf } from './visit.ts';

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

/** The periods a stats page offers besides a custom one, with the span each covers. */
export const PRESETS = { '24h': 24 * HOUR, '7d': 7 * DAY, '14d': 14 * DAY, '30d': 30 * DAY, '90d': 90 * DAY } as const;
export type Preset = keyof typeof PRESETS;
/** The longest custom period a page shows, in days. */
export const MAX_PAGE_DAYS = 366;
/** Up to this many days, a page's chart shows hours; beyond, days. */
export const HOURLY_DAYS = 3;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The period a stats page shows: the choice as the picker names it, its bounds, and its series' step. */
export interface PagePeriod {
  choice: Preset | 'custom';
  from: Date;
  /** Exclusive: the end of the last hour or day. */
  to: Date;
  granularity: Granularity;
  /** The first and last UTC day it covers (YYYY-MM-DD), as the custom fields show them. */
  firstDay: string;
  lastDay: string;
  /** "last 7 days", "2026-11-01 to 2026-11-05" (UTC days). */
  label: string;
}

/** What a page accepts: its default preset. */
export interface PeriodChoices {
  fallback: Preset;
}

/**
 * `period` (a preset, or `custom` with `from` and `to`, UTC days as YYYY-MM-DD, both included) of a stats page,
 * at `now`. Without `period`, dates alone mean custom, and nothing means the page's default. Throws
 * AppError('invalid') naming the parameter at fault.
 */
export function parsePagePeriod(params: Record<string, unknown>, now: number, choices: PeriodChoices): PagePeriod {
  const fromText = single(params, 'from')?.trim() || undefined;
  const toText = single(params, 'to')?.trim() || undefined;
  const choice = single(params, 'period')?.trim() || (fromText || toText ? 'custom' : choices.fallback);
  const presets = Object.keys(PRESETS);
  if (choice !== 'custom' && !presets.includes(choice))
    throw new AppError('invalid', `period must be one of ${presets.join(', ')} or custom`, 'period');
  if (choice !== 'custom') {
    const preset = choice as Preset;
    const hourly = preset === '24h';
    const to = hourly ? hourOf(now) + HOUR : dayOf(now) + DAY;
    const from = to - PRESETS[preset];
    const count = Number(preset.slice(0, -1));
    const label = hourly ? 'last 24 hours' : `last ${count} days`;
    return period(preset, from, to, hourly ? 'hour' : 'day', label);
  }
  if (fromText === undefined) throw new AppError('invalid', 'a custom period needs its first day: from, as YYYY-MM-DD', 'from');
  if (toText === undefined) throw new AppError('invalid', 'a custom period needs its last day: to, as YYYY-MM-DD', 'to');
  const from = dayAt(fromText, 'from');
  const to = dayAt(toText, 'to') + DAY;
  if (to <= from) throw new AppError('invalid', `to (${toText}) must not be before from (${fromText})`, 'to');
  if (from > dayOf(now)) throw new AppError('invalid', `from (${fromText}) is after today (UTC): there are no visits yet`, 'from');
  const days = (to - from) / DAY;
  if (days > MAX_PAGE_DAYS)
    throw new AppError('invalid', `the period is too long: ${days.toLocaleString('en-US')} days, at most ${MAX_PAGE_DAYS}`, 'to');
  const granularity = days <= HOURLY_DAYS ? 'hour' : 'day';
  return period('custom', from, to, granularity, `${fromText} to ${toText}`);
}

function period(choice: PagePeriod['choice'], from: number, to: number, granularity: Granularity, label: string): PagePeriod {
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  return { choice, from: new Date(from), to: new Date(to), granularity, firstDay: day(from), lastDay: day(to - 1), label };
}

/** The start of the UTC day `text` (YYYY-MM-DD) names; throws AppError('invalid') naming `name`. */
function dayAt(text: string, name: string): number {
  const match = DATE.exec(text);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : NaN;
  if (!match || new Date(ms).toISOString().slice(0, 10) !== text)
    throw new AppError(
      'invalid',
      `${name} must be a day as YYYY-MM-DD, such as 2026-11-23 (got ${JSON.stringify(text.slice(0, 40))})`,
      name,
    );
  return ms;
}

/** A stats page's query: its period. */
export const PAGE_PERIOD_QUERY: QuerySchema<Record<string, unknown>> = {
  params: z.object({
    period: z
      .enum([...(Object.keys(PRESETS) as Preset[]), 'custom'])
      .describe('The period shown; custom takes from and to')
      .optional(),
    from: z.string().describe("A custom period's first UTC day, YYYY-MM-DD").optional(),
    to: z.string().describe("A custom period's last UTC day (included), YYYY-MM-DD; at most 366 days after from").optional(),
  }),
  parse: (params) => params,
};
