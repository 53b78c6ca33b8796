import test from 'ava';
import { memoryLogger } from '../../src/log.ts';
import { VisitBuffer } from '../../src/visits/visit-buffer.ts';
import type { VisitCount } from '../../src/visits/visit.ts';
import type { VisitEvents } from '../../src/visits/visit-events.ts';
import { waitFor } from '../helpers.ts';

function buffer(flushSize: number, write: (c: VisitCount[]) => void) {
  const log = memoryLogger();
  return { log, visits: new VisitBuffer({ write, flushSize, flushInterval: 60_000, log }) };
}

test('visits to the same link are merged into one count with the latest time', (t) => {
  const batches: VisitCount[][] = [];
  const { visits } = buffer(100, (c) => batches.push(c));
  visits.record(1, 1000);
  visits.record(2, 1500);
  visits.record(1, 3000);
  visits.record(1, 2000);
  t.is(visits.pending, 4);
  visits.flush();
  t.deepEqual(batches, [
    [
      { id: 1, count: 3, lastVisitAt: 3000 },
      { id: 2, count: 1, lastVisitAt: 1500 },
    ],
  ]);
  t.is(visits.pending, 0);
  visits.flush();
  t.is(batches.length, 1, 'an empty buffer writes nothing');
});

test('as many distinct links as the flush size trigger a write soon after, off the request path', async (t) => {
  const batches: VisitCount[][] = [];
  const { visits } = buffer(3, (c) => batches.push(c));
  for (let i = 0; i < 10; i++) visits.record(1, i);
  visits.record(2, 20);
  await new Promise((resolve) => setImmediate(resolve));
  t.is(batches.length, 0, 'repeat visits to few links do not trigger a write');
  visits.record(3, 30);
  t.is(batches.length, 0, 'not inside record()');
  await waitFor(() => batches.length === 1);
  t.deepEqual(batches[0], [
    { id: 1, count: 10, lastVisitAt: 9 },
    { id: 2, count: 1, lastVisitAt: 20 },
    { id: 3, count: 1, lastVisitAt: 30 },
  ]);
  t.is(visits.pending, 0);
});

test('a large flush is written in chunks, one per turn of the event loop', async (t) => {
  const batches: VisitCount[][] = [];
  const { visits } = buffer(600, (c) => batches.push(c));
  for (let id = 1; id <= 600; id++) visits.record(id, id);
  await waitFor(() => visits.pending === 0);
  t.deepEqual(
    batches.map((b) => b.length),
    Array.from({ length: 12 }, () => 50),
  );
});

test('a failed write keeps the visits and the next flush writes them', (t) => {
  const batches: VisitCount[][] = [];
  let fail = true;
  const { visits, log } = buffer(100, (c) => {
    if (fail) throw new Error('SQLITE_BUSY');
    batches.push(c);
  });
  visits.record(7, 10);
  visits.record(7, 20);
  visits.flush();
  t.is(visits.pending, 2);
  t.true(log.lines.some((l) => l.includes('could not write visits') && l.includes('links=1')));
  visits.record(7, 30);
  fail = false;
  visits.flush();
  t.deepEqual(batches, [[{ id: 7, count: 3, lastVisitAt: 30 }]]);
});

test('stop() writes what is pending', (t) => {
  const batches: VisitCount[][] = [];
  const { visits } = buffer(100, (c) => batches.push(c));
  visits.start();
  visits.record(3, 5);
  visits.stop();
  t.deepEqual(batches, [[{ id: 3, count: 1, lastVisitAt: 5 }]]);
});

test('stop() during a chunked flush writes the rest at once and nothing afterwards', async (t) => {
  const batches: VisitCount[][] = [];
  let closed = false;
  const { visits, log } = buffer(100, (c) => {
    if (closed) throw new Error('The database connection is not open');
    batches.push(c);
  });
  for (let id = 1; id <= 100; id++) visits.record(id, id);
  await new Promise((resolve) => setImmediate(resolve));
  t.is(batches.length, 1, 'the flush has started and is not done');
  visits.stop();
  closed = true;
  // Each chunk is written on its own turn of the event loop: a step still scheduled would run within these.
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  t.is(batches.flat().length, 100);
  t.deepEqual(log.lines, [], 'no write after stop');
});

test('with somewhere to offload to, a flush is handed over whole and nothing is written here', async (t) => {
  const written: VisitCount[][] = [];
  const offloaded: VisitEvents[] = [];
  const { visits } = buffer(600, (c) => written.push(c));
  visits.offloadTo((c) => offloaded.push(c) > 0);
  for (let id = 1; id <= 600; id++) visits.record(id, id);
  await waitFor(() => visits.pending === 0);
  t.deepEqual(
    offloaded.map((b) => b.length),
    [600],
  );
  t.deepEqual(written, []);
});

test('when the offload refuses (its process is gone), the flush is written here in chunks', (t) => {
  const written: VisitCount[][] = [];
  const { visits } = buffer(1000, (c) => written.push(c));
  visits.offloadTo(() => false);
  for (let id = 1; id <= 120; id++) visits.record(id, id);
  visits.flush();
  t.deepEqual(
    written.map((b) => b.length),
    [50, 50, 20],
  );
  t.is(visits.pending, 0);
});

test('restore() takes back counts that could not be handed out, merged with newer visits', (t) => {
  const written: VisitCount[][] = [];
  const { visits } = buffer(1000, (c) => written.push(c));
  visits.record(1, 500);
  visits.restore([
    { id: 1, count: 3, lastVisitAt: 400 },
    { id: 2, count: 2, lastVisitAt: 300 },
  ]);
  t.is(visits.pending, 6);
  visits.flush();
  t.deepEqual(written, [
    [
      { id: 1, count: 4, lastVisitAt: 500 },
      { id: 2, count: 2, lastVisitAt: 300 },
    ],
  ]);
});

test('the chunk option sets the rows per transaction', (t) => {
  const written: VisitCount[][] = [];
  const visits = new VisitBuffer({
    write: (c) => written.push(c),
    flushSize: 1000,
    flushInterval: 60_000,
    chunk: 500,
    log: memoryLogger(),
  });
  for (let id = 1; id <= 1200; id++) visits.record(id, id);
  visits.flush();
  t.deepEqual(
    written.map((b) => b.length),
    [500, 500, 200],
  );
});

test('a flush written here goes in link order, so neighbouring rows share pages', (t) => {
  const written: number[] = [];
  const { visits } = buffer(1000, (c) => written.push(...c.map((v) => v.id)));
  for (const id of [42, 7, 1000, 3, 7, 99]) visits.record(id, 1);
  visits.flush();
  t.deepEqual(written, [3, 7, 42, 99, 1000]);
});

test('with somewhere to offload to, 4096 pending events are handed over without waiting for the timer', async (t) => {
  const offloaded: number[] = [];
  const { visits } = buffer(1000, () => undefined);
  visits.offloadTo((events) => offloaded.push(events.length) > 0);
  // Ten turns of the event loop with 1000 visits each, to one link.
  for (let turn = 0; turn < 10; turn++) {
    for (let i = 0; i < 1000; i++) visits.record(7, turn * 1000 + i);
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.deepEqual(offloaded, [5000, 5000], 'handed over once 4096 were pending, on the next turn');
  visits.flush();
  t.is(
    offloaded.reduce((a, b) => a + b, 0),
    10_000,
  );
});

test('without one, repeat visits wait for the timer however many there are', async (t) => {
  const written: VisitCount[][] = [];
  const { visits } = buffer(1000, (c) => written.push(c));
  for (let i = 0; i < 10_000; i++) visits.record(7, i);
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(written, []);
  visits.flush();
  t.deepEqual(written, [[{ id: 7, count: 10_000, lastVisitAt: 9999 }]]);
});

test('events from elsewhere are merged per link and written by the next flush, which they do not trigger', async (t) => {
  const written: VisitCount[][] = [];
  const { visits } = buffer(1, (c) => written.push(c));
  visits.addEvents({ length: 3, linkIds: Float64Array.of(5, 4, 5), times: Float64Array.of(10, 20, 30) });
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(written, []);
  t.is(visits.pending, 3);
  visits.flush();
  t.deepEqual(written, [
    [
      { id: 4, count: 1, lastVisitAt: 20 },
      { id: 5, count: 2, lastVisitAt: 30 },
    ],
  ]);
});

test('a hand-over that fails after it was taken comes back and is written here with the next flush', (t) => {
  const written: VisitCount[][] = [];
  const { visits } = buffer(1000, (c) => written.push(c));
  let sendFails: (() => void) | undefined;
  visits.offloadTo((events, giveBack) => {
    sendFails = () => giveBack(events);
    return true;
  });
  visits.record(3, 10);
  visits.record(3, 20);
  visits.flush();
  t.deepEqual(written, [], 'taken by the writer');
  sendFails?.();
  t.is(visits.pending, 2);
  visits.offloadTo(() => false);
  visits.flush();
  t.deepEqual(written, [[{ id: 3, count: 2, lastVisitAt: 20 }]]);
});
