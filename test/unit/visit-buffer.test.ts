import test, { type ExecutionContext } from 'ava';
import { VisitBuffer } from '../../src/visits/visit-buffer.ts';
import { FIELDS, stringsOf, VisitLog, type VisitEvents, type VisitStrings } from '../../src/visits/visit-events.ts';
import { waitFor } from '../helpers.ts';

/** A buffer that keeps what it writes here; stopped when the test ends. */
function buffer(t: ExecutionContext, options: { flushSize?: number; flushInterval?: number } = {}) {
  const written: VisitEvents[] = [];
  const visits = new VisitBuffer({
    write: (events) => written.push(events),
    flushSize: options.flushSize ?? 1000,
    flushInterval: options.flushInterval ?? 60_000,
  });
  t.teardown(() => visits.stop());
  return { visits, written };
}

const HEADERS = ['User-Agent', 'ua', 'Referer', 'https://example.com/', 'Accept-Language', 'de'];

/** Every event of a batch: link, time and strings. */
function rows(events: VisitEvents): Array<{ linkId: number; at: number } & VisitStrings> {
  return Array.from({ length: events.length }, (_, i) => ({ linkId: events.linkIds[i]!, at: events.times[i]!, ...stringsOf(events, i) }));
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test('the timer hands pending visits on, every interval', async (t) => {
  const { visits, written } = buffer(t, { flushInterval: 20 });
  visits.start();
  visits.record(1, 1000, '192.0.2.1', HEADERS);
  visits.record(2, 1001, '192.0.2.2', HEADERS);
  t.is(visits.pending, 2);
  t.deepEqual(written, [], 'nothing is written inside record()');
  await waitFor(() => written.length === 1);
  t.deepEqual(
    rows(written[0]!).map((r) => [r.linkId, r.at, r.client]),
    [
      [1, 1000, '192.0.2.1'],
      [2, 1001, '192.0.2.2'],
    ],
  );
  t.is(visits.pending, 0);
  visits.record(3, 1002, '192.0.2.3', HEADERS);
  await waitFor(() => written.length === 2);
  t.deepEqual(
    rows(written[1]!).map((r) => r.linkId),
    [3],
  );
});

test('as many distinct links as the flush size trigger a flush soon after, not inside record()', async (t) => {
  const { visits, written } = buffer(t, { flushSize: 3 });
  for (let i = 0; i < 10; i++) visits.record(1, i, '192.0.2.1', HEADERS);
  visits.record(2, 20, '192.0.2.1', HEADERS);
  await nextTurn();
  t.deepEqual(written, [], 'repeat visits to few links trigger nothing');
  visits.record(3, 30, '192.0.2.1', HEADERS);
  t.deepEqual(written, [], 'not inside record()');
  await waitFor(() => written.length === 1);
  t.deepEqual(
    rows(written[0]!).map((r) => r.linkId),
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3],
  );
  t.is(visits.pending, 0);
  // The count of distinct links starts again after a flush.
  visits.record(1, 40, '192.0.2.1', HEADERS);
  visits.record(2, 41, '192.0.2.1', HEADERS);
  await nextTurn();
  t.is(written.length, 1);
  t.is(visits.pending, 2);
});

test('stop() hands on what is pending at once and stops the timer', async (t) => {
  const { visits, written } = buffer(t, { flushInterval: 20 });
  visits.start();
  visits.record(3, 5, '192.0.2.1', HEADERS);
  visits.stop();
  t.deepEqual(
    rows(written[0]!).map((r) => [r.linkId, r.at]),
    [[3, 5]],
  );
  visits.record(4, 6, '192.0.2.1', HEADERS);
  // A second buffer on the same interval shows when the first one's timer would have fired, several times over.
  const witness = buffer(t, { flushInterval: 20 });
  witness.visits.start();
  for (let i = 0; i < 3; i++) {
    witness.visits.record(1, i, '', []);
    await waitFor(() => witness.written.length === i + 1);
  }
  t.is(written.length, 1, 'no timer flush after stop()');
  t.is(visits.pending, 1);
  visits.stop();
  t.is(written.length, 2, 'stop() again hands on what came since');
});

test('an empty buffer hands on nothing', (t) => {
  const { visits, written } = buffer(t);
  let offloads = 0;
  visits.offloadTo(() => ++offloads > 0);
  visits.flush();
  visits.stop();
  t.deepEqual(written, []);
  t.is(offloads, 0);
});

test('with somewhere to offload to, a flush is handed over whole and nothing is written here', async (t) => {
  const { visits, written } = buffer(t, { flushSize: 600 });
  const offloaded: VisitEvents[] = [];
  visits.offloadTo((events) => offloaded.push(events) > 0);
  for (let id = 1; id <= 600; id++) visits.record(id, id, `192.0.2.${id % 256}`, HEADERS);
  await waitFor(() => visits.pending === 0);
  t.deepEqual(
    offloaded.map((b) => b.length),
    [600],
  );
  t.deepEqual(
    rows(offloaded[0]!).map((r) => r.linkId),
    Array.from({ length: 600 }, (_, i) => i + 1),
  );
  t.deepEqual(written, []);
});

test('when the offload refuses (the writer is gone), the flush is written here, whole', (t) => {
  const { visits, written } = buffer(t);
  const refused: number[] = [];
  visits.offloadTo((events) => {
    refused.push(events.length);
    return false;
  });
  for (let id = 1; id <= 120; id++) visits.record(id, id, '192.0.2.1', HEADERS);
  visits.flush();
  t.deepEqual(refused, [120], 'offered to the writer first');
  t.deepEqual(
    written.map((b) => b.length),
    [120],
  );
  t.deepEqual(
    rows(written[0]!).map((r) => r.linkId),
    Array.from({ length: 120 }, (_, i) => i + 1),
  );
  t.is(visits.pending, 0);
});

test('a hand-over that fails after it was taken comes back and goes with the next flush', (t) => {
  const { visits, written } = buffer(t);
  const offloaded: VisitEvents[] = [];
  let giveBackFirst: (() => void) | undefined;
  visits.offloadTo((events, giveBack) => {
    giveBackFirst ??= () => giveBack(events);
    offloaded.push(events);
    return true;
  });
  visits.record(3, 10, '192.0.2.1', ['User-Agent', 'first']);
  visits.record(4, 20, '192.0.2.2', ['User-Agent', 'second']);
  visits.flush();
  t.deepEqual(written, [], 'taken by the writer');
  t.is(visits.pending, 0);
  giveBackFirst?.();
  t.is(visits.pending, 2, 'the failed hand-over is pending again');
  visits.record(5, 30, '192.0.2.3', ['User-Agent', 'third']);
  visits.flush();
  t.is(offloaded.length, 2);
  t.deepEqual(
    rows(offloaded[1]!).map((r) => [r.linkId, r.at, r.client, r.userAgent]),
    [
      [3, 10, '192.0.2.1', 'first'],
      [4, 20, '192.0.2.2', 'second'],
      [5, 30, '192.0.2.3', 'third'],
    ],
  );
  t.deepEqual(written, []);
});

test('events given back do not trigger a flush of their own', async (t) => {
  const { visits, written } = buffer(t, { flushSize: 1 });
  const log = new VisitLog();
  log.record(5, 10, '192.0.2.1', 'ua', '', '');
  log.record(6, 20, '192.0.2.1', 'ua', '', '');
  visits.addEvents(log.take());
  await nextTurn();
  t.deepEqual(written, []);
  t.is(visits.pending, 2);
  visits.flush();
  t.deepEqual(
    rows(written[0]!).map((r) => r.linkId),
    [5, 6],
  );
});

test('with somewhere to offload to, 1024 pending events are handed over on the next turn without waiting for the timer', async (t) => {
  const { visits, written } = buffer(t);
  const offloaded: number[] = [];
  visits.offloadTo((events) => offloaded.push(events.length) > 0);
  // Ten turns of the event loop with 1000 visits each, all to one link.
  for (let turn = 0; turn < 10; turn++) {
    for (let i = 0; i < 1000; i++) visits.record(7, turn * 1000 + i, '192.0.2.1', HEADERS);
    if (turn === 1) t.deepEqual(offloaded, [], 'not inside record()');
    await nextTurn();
  }
  t.deepEqual(offloaded, [2000, 2000, 2000, 2000, 2000], 'handed over once 1024 were pending, on the next turn');
  t.deepEqual(written, []);
});

test('without a writer to offload to, repeat visits wait for the timer however many there are', async (t) => {
  const { visits, written } = buffer(t);
  for (let i = 0; i < 10_000; i++) visits.record(7, i, '192.0.2.1', HEADERS);
  await nextTurn();
  t.deepEqual(written, []);
  visits.flush();
  t.deepEqual(
    written.map((b) => b.length),
    [10_000],
  );
});

const HEADER_CASES: Array<[string, string[], Omit<VisitStrings, 'client' | 'variant' | 'rule'>]> = [
  ['canonical case', HEADERS, { userAgent: 'ua', referrer: 'https://example.com/', language: 'de' }],
  ['any case', ['USER-AGENT', 'a', 'REFERER', 'r', 'accept-language', 'fr'], { userAgent: 'a', referrer: 'r', language: 'fr' }],
  [
    'mixed case, other headers between',
    ['Host', 'kurz.test', 'uSeR-aGeNt', 'b', 'Accept', '*/*', 'ReFeReR', 'r2', 'Accept-LANGUAGE', 'it'],
    { userAgent: 'b', referrer: 'r2', language: 'it' },
  ],
  [
    'the first of repeated headers wins',
    ['user-agent', 'first', 'User-Agent', 'second', 'Referer', 'one', 'referer', 'two', 'Accept-Language', 'en', 'accept-language', 'nl'],
    { userAgent: 'first', referrer: 'one', language: 'en' },
  ],
  ['none of them', ['Host', 'kurz.test', 'Accept', '*/*'], { userAgent: '', referrer: '', language: '' }],
  ['no headers at all', [], { userAgent: '', referrer: '', language: '' }],
  [
    'names of the same length that are other headers',
    ['User-Agenx', 'no', 'Referrr', 'no', 'Accept-Encoding', 'gzip', 'Accept-Languagf', 'no'],
    { userAgent: '', referrer: '', language: '' },
  ],
  [
    'longer names that start alike',
    ['User-Agent-X', 'no', 'Referrer', 'no', 'Accept-Language2', 'no', 'X-User-Agent', 'no'],
    { userAgent: '', referrer: '', language: '' },
  ],
];
for (const [name, rawHeaders, expected] of HEADER_CASES) {
  test(`headers are picked from rawHeaders: ${name}`, (t) => {
    const { visits, written } = buffer(t);
    visits.record(1, 1, '198.51.100.4', rawHeaders);
    visits.flush();
    t.deepEqual(stringsOf(written[0]!, 0), { client: '198.51.100.4', ...expected, variant: '', rule: '' });
  });
}

test("a visit's A/B variant travels with its event", (t) => {
  const { visits, written } = buffer(t);
  visits.record(1, 1, '198.51.100.4', HEADERS, 'https://example.com/b');
  visits.record(2, 2, '198.51.100.4', HEADERS);
  visits.flush();
  t.is(stringsOf(written[0]!, 0).variant, 'https://example.com/b');
  t.is(stringsOf(written[0]!, 1).variant, '');
});

test('take() keeps each distinct string once and empties the log', (t) => {
  const log = new VisitLog();
  const ua = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0';
  for (let i = 0; i < 100; i++) {
    // Equal strings that are not the same object, as each request's headers are.
    log.record(i % 3, i, ['192.0.2', String(i % 2)].join('.'), [ua.slice(0, 10), ua.slice(10)].join(''), '', 'de');
  }
  t.is(log.length, 100);
  const events = log.take();
  t.is(log.length, 0);
  t.is(events.length, 100);
  t.deepEqual([...events.strings].sort(), ['', '192.0.2.0', '192.0.2.1', 'de', ua].sort());
  t.is(events.fields.length, 100 * FIELDS.length);
  t.is(new Set(Array.from({ length: 100 }, (_, i) => events.fields[i * FIELDS.length + 1])).size, 1, 'one index for the user agent');
  for (let i = 0; i < 100; i++) {
    t.deepEqual(stringsOf(events, i), { client: `192.0.2.${i % 2}`, userAgent: ua, referrer: '', language: 'de', variant: '', rule: '' });
    t.is(events.linkIds[i], i % 3);
    t.is(events.times[i], i);
  }
  t.is(log.take().length, 0, 'nothing twice');
});

test('the log grows past its first capacity and keeps every event in order', (t) => {
  const log = new VisitLog();
  for (let i = 0; i < 5000; i++) log.record(i, i * 2, `c${i}`, 'ua', 'r', 'l');
  const events = log.take();
  t.is(events.length, 5000);
  t.deepEqual(stringsOf(events, 4999), { client: 'c4999', userAgent: 'ua', referrer: 'r', language: 'l', variant: '', rule: '' });
  t.is(events.linkIds[1024], 1024);
  t.is(events.times[4999], 9998);
  t.is(events.strings.length, 5004, "each client, the three headers' values and no variant's ''");
  // A log used again after take() starts empty.
  log.record(1, 1, 'x', '', '', '');
  t.deepEqual(stringsOf(log.take(), 0), { client: 'x', userAgent: '', referrer: '', language: '', variant: '', rule: '' });
});
