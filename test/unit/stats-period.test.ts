import test from 'ava';
import { AppError } from '../../src/core/errors.ts';
import { parsePagePeriod, type PeriodChoices } from '../../src/visits/stats-query.ts';

// A stats page's period: presets end with the current hour or day; custom days are whole UTC days, both
// included; the step is the hour up to 3 days on the pages that can show hours.

const NOW = Date.UTC(2026, 10, 27, 19, 30);
const LINK: PeriodChoices = { fallback: '30d' };
const DASHBOARD: PeriodChoices = { fallback: '14d' };

const GOOD: Array<[string, Record<string, string>, PeriodChoices, string, string, 'hour' | 'day', string]> = [
  ['nothing: the default', {}, LINK, '2026-10-29T00:00:00.000Z', '2026-11-28T00:00:00.000Z', 'day', 'last 30 days'],
  ['the dashboard default', {}, DASHBOARD, '2026-11-14T00:00:00.000Z', '2026-11-28T00:00:00.000Z', 'day', 'last 14 days'],
  ['24h ends with this hour', { period: '24h' }, LINK, '2026-11-26T20:00:00.000Z', '2026-11-27T20:00:00.000Z', 'hour', 'last 24 hours'],
  ['7d', { period: '7d' }, LINK, '2026-11-21T00:00:00.000Z', '2026-11-28T00:00:00.000Z', 'day', 'last 7 days'],
  ['90d', { period: '90d' }, DASHBOARD, '2026-08-30T00:00:00.000Z', '2026-11-28T00:00:00.000Z', 'day', 'last 90 days'],
  [
    'a preset ignores dates',
    { period: '7d', from: '2026-01-01', to: '2026-01-02' },
    LINK,
    '2026-11-21T00:00:00.000Z',
    '2026-11-28T00:00:00.000Z',
    'day',
    'last 7 days',
  ],
  [
    '3 custom days by the hour',
    { period: 'custom', from: '2026-11-01', to: '2026-11-03' },
    LINK,
    '2026-11-01T00:00:00.000Z',
    '2026-11-04T00:00:00.000Z',
    'hour',
    '2026-11-01 to 2026-11-03',
  ],
  [
    '4 custom days by the day',
    { period: 'custom', from: '2026-11-01', to: '2026-11-04' },
    LINK,
    '2026-11-01T00:00:00.000Z',
    '2026-11-05T00:00:00.000Z',
    'day',
    '2026-11-01 to 2026-11-04',
  ],
  [
    'one day on the dashboard: by the hour, as on a link',
    { from: '2026-11-27', to: '2026-11-27' },
    DASHBOARD,
    '2026-11-27T00:00:00.000Z',
    '2026-11-28T00:00:00.000Z',
    'hour',
    '2026-11-27 to 2026-11-27',
  ],
  [
    'dates alone mean custom; 366 days at most',
    { from: '2025-11-27', to: '2026-11-27' },
    LINK,
    '2025-11-27T00:00:00.000Z',
    '2026-11-28T00:00:00.000Z',
    'day',
    '2025-11-27 to 2026-11-27',
  ],
  [
    'empty dates are no dates',
    { period: '', from: ' ', to: '' },
    LINK,
    '2026-10-29T00:00:00.000Z',
    '2026-11-28T00:00:00.000Z',
    'day',
    'last 30 days',
  ],
];

for (const [name, query, choices, from, to, granularity, label] of GOOD) {
  test(`period: ${name}`, (t) => {
    const p = parsePagePeriod(query, NOW, choices);
    t.deepEqual([p.from.toISOString(), p.to.toISOString(), p.granularity, p.label], [from, to, granularity, label]);
  });
}

const BAD: Array<[Record<string, string>, PeriodChoices, string, string]> = [
  [{ period: 'week' }, LINK, 'period', 'period must be one of 24h, 7d, 14d, 30d, 90d or custom'],
  [{ period: 'hour' }, DASHBOARD, 'period', 'period must be one of 24h, 7d, 14d, 30d, 90d or custom'],
  [{ period: 'custom' }, LINK, 'from', 'a custom period needs its first day: from, as YYYY-MM-DD'],
  [{ period: 'custom', from: '2026-11-01' }, LINK, 'to', 'a custom period needs its last day: to, as YYYY-MM-DD'],
  [{ from: '2026-02-30', to: '2026-03-01' }, LINK, 'from', 'from must be a day as YYYY-MM-DD, such as 2026-11-23 (got "2026-02-30")'],
  [{ from: '2026-11-01T00:00', to: '2026-11-02' }, LINK, 'from', 'from must be a day as YYYY-MM-DD'],
  [{ from: '2026-11-02', to: '2026-11-01' }, LINK, 'to', 'to (2026-11-01) must not be before from (2026-11-02)'],
  [{ from: '2026-11-28', to: '2026-11-29' }, LINK, 'from', 'from (2026-11-28) is after today (UTC): there are no visits yet'],
  [{ from: '2025-11-26', to: '2026-11-27' }, LINK, 'to', 'the period is too long: 367 days, at most 366'],
];

for (const [query, choices, field, message] of BAD) {
  test(`period refused: ${JSON.stringify(query)}${choices === DASHBOARD ? ' on the dashboard' : ''}`, (t) => {
    const error = t.throws(() => parsePagePeriod(query, NOW, choices), { instanceOf: AppError });
    t.is(error?.code, 'invalid');
    t.is(error?.field, field);
    t.true(error?.message.startsWith(message), error?.message);
  });
}
