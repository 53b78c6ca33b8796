import { AppError } from '../errors.ts';
import { single } from '../links/list-query.ts';
import type { TransferFormat } from '../links/transfer-format.ts';
import { DASHBOARD_DAYS, MAX_DASHBOARD_DAYS, type StatsPeriod } from './stats.ts';

const GRANULARITIES = ['hour', 'day'] as const;
const EXPORTS = ['links', 'visits'] as const;
const FORMATS = ['csv', 'ndjson'] as const;

const TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A time as a query gives it: an ISO 8601 date (UTC midnight) or date and time; without an offset the
 * time is UTC, whatever the machine's time zone. A day or hour that does not exist is refused, not rolled
 * over. Throws AppError('invalid') naming `name`.
 */
export function parseTime(text: string, name: string): Date {
  const invalid = () =>
    new AppError('invalid', `${name} must be an ISO 8601 date or date and time, such as 2026-11-23 or 2026-11-23T14:00:00Z`, name);
  const m = TIME.exec(text);
  if (!m) throw invalid();
  const [, y, mo, d, h = '0', mi = '0', sec = '0', ms = '0', offset = 'Z'] = m;
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec), Number(ms.padEnd(3, '0')));
  const check = new Date(utc);
  if (
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    check.getUTCHours() !== Number(h) ||
    check.getUTCMinutes() !== Number(mi) ||
    check.getUTCSeconds() !== Number(sec)
  )
    throw invalid();
  if (offset === 'Z') return check;
  const sign = offset.startsWith('-') ? -1 : 1;
  const [oh, om] = [Number(offset.slice(1, 3)), Number(offset.slice(-2))];
  if (oh > 23 || om > 59) throw invalid();
  return new Date(utc - sign * (oh * 60 + om) * 60_000);
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
