import test from 'ava';
import { timeOf } from '../../src/links/times.ts';

const READ: Array<[string, string, boolean, boolean]> = [
  ['2026-11-23', '2026-11-23T00:00:00.000Z', true, false],
  ['2026-11-23T14:05', '2026-11-23T14:05:00.000Z', false, false],
  ['2026-11-23 14:05:06.7', '2026-11-23T14:05:06.700Z', false, false],
  ['2026-11-23T14:05:06.123456Z', '2026-11-23T14:05:06.123Z', false, true],
  ['2026-11-23t14:05:06z', '2026-11-23T14:05:06.000Z', false, true],
  ['2026-11-23T14:05:06+02:00', '2026-11-23T12:05:06.000Z', false, true],
  ['2026-11-23T01:00:00-0130', '2026-11-23T02:30:00.000Z', false, true],
  ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59.000Z', false, true],
];
for (const [text, iso, dateOnly, hasOffset] of READ) {
  test(`reads ${text}`, (t) => {
    const time = timeOf(text);
    t.deepEqual(time && { iso: new Date(time.ms).toISOString(), dateOnly: time.dateOnly, hasOffset: time.hasOffset }, {
      iso,
      dateOnly,
      hasOffset,
    });
  });
}

// Date.parse rolls these over to another day or time; they are refused instead.
const REFUSED = [
  '2026-02-30',
  '2025-02-29T10:00:00Z',
  '2026-04-31T10:00:00Z',
  '2026-11-23T24:00:00Z',
  '2026-11-23T12:60:00Z',
  '2026-11-23T12:00:00+24:00',
  '2026-13-01',
  '26-11-23',
  '2026-11-23T',
  'tomorrow',
  '',
];
for (const text of REFUSED) {
  test(`refuses ${JSON.stringify(text)}`, (t) => {
    t.is(timeOf(text), undefined);
  });
}
