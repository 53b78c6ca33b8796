import { deepStrictEqual } from 'node:assert';
import test from 'ava';
import fc from 'fast-check';
import { memoryLogger } from '../../src/core/log.ts';
import type { VisitStore } from '../../src/store/ports.ts';
import { classifyUserAgent } from '../../src/visits/classify.ts';
import { noCountry } from '../../src/visits/geo.ts';
import { stringsOf, VisitLog, type VisitEvents } from '../../src/visits/visit-events.ts';
import { passOrder, VisitHandover, writtenThrough, type VisitReceipt } from '../../src/visits/visit-handover.ts';
import { createVisitRecorder } from '../../src/visits/visit-recorder.ts';
import { BROWSER_UA } from '../helpers.ts';

/** A flush of visits to the given links; each visit's time is its serial number, so every visit is told apart. */
function flushOf(linkIds: readonly number[], serial: { next: number }): VisitEvents {
  const log = new VisitLog();
  for (const linkId of linkIds) log.record(linkId, serial.next++, '192.0.2.1', BROWSER_UA, '', '');
  return log.take();
}

const timesOf = (events: VisitEvents): number[] => [...events.times];

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('the pass order is by link, then by position in the stream', (t) => {
  t.deepEqual([...passOrder(Float64Array.from([3, 1, 2, 1, 3]))], [1, 3, 2, 0, 4]);
});

test('a receipt gives the position everything before is written up to: the pass start mid-pass, its end once whole', (t) => {
  t.is(writtenThrough({ from: 10, to: 20, written: 0 }), 10);
  t.is(writtenThrough({ from: 10, to: 20, written: 9 }), 10);
  t.is(writtenThrough({ from: 10, to: 20, written: 10 }), 20);
});

test('without a receipt nothing was written: every flush not confirmed is handed on, in order', (t) => {
  const serial = { next: 0 };
  const handover = new VisitHandover();
  for (const links of [[1, 2], [3], [1]]) handover.sent(flushOf(links, serial));
  t.is(handover.unconfirmed, 4);
  handover.confirm(2);
  t.is(handover.unconfirmed, 2, 'the first flush is confirmed');
  t.deepEqual(timesOf(handover.unwritten({ from: 2, to: 2, written: 0 })), [2, 3]);
  t.is(handover.unconfirmed, 0, 'a new stream starts for the next writer');
  handover.sent(flushOf([5], serial));
  t.deepEqual(timesOf(handover.unwritten(undefined)), [4]);
});

test('of a pass written in part, the rest in pass order is handed on, with the flushes after it', (t) => {
  const serial = { next: 0 };
  const handover = new VisitHandover();
  // The pass is the first two flushes: links 2, 1, 2 | 1; in pass order times 1, 3 (link 1), then 0, 2 (link 2).
  for (const links of [[2, 1, 2], [1], [7]]) handover.sent(flushOf(links, serial));
  t.deepEqual(timesOf(handover.unwritten({ from: 0, to: 4, written: 3 })), [2, 4]);
});

test('a visit handed on keeps every field: its headers, its variant and its rule', (t) => {
  const handover = new VisitHandover();
  const log = new VisitLog();
  log.record(2, 0, '192.0.2.1', BROWSER_UA, 'https://news.example/', 'de', 'https://example.com/b', 'language is de');
  log.record(1, 1, '192.0.2.2', 'curl/8', '', 'fr', '', '');
  handover.sent(log.take());
  // The pass was written up to its first visit in link order (link 1's): link 2's visit is handed on, then link 1's of the next flush.
  const next = new VisitLog();
  next.record(1, 2, '192.0.2.3', BROWSER_UA, '', '', 'https://example.com/a', 'no rule matched');
  handover.sent(next.take());
  const left = handover.unwritten({ from: 0, to: 2, written: 1 });
  t.deepEqual(
    [0, 1].map((i) => stringsOf(left, i)),
    [
      {
        client: '192.0.2.1',
        userAgent: BROWSER_UA,
        referrer: 'https://news.example/',
        language: 'de',
        variant: 'https://example.com/b',
        rule: 'language is de',
      },
      { client: '192.0.2.3', userAgent: BROWSER_UA, referrer: '', language: '', variant: 'https://example.com/a', rule: 'no rule matched' },
    ],
  );
});

test('a receipt that splits a flush is refused: the writer and the server disagree', (t) => {
  const serial = { next: 0 };
  const handover = new VisitHandover();
  handover.sent(flushOf([1, 2, 3], serial));
  t.throws(() => handover.unwritten({ from: 0, to: 2, written: 1 }), { message: 'a receipt [0, 2) splits the flush [0, 3)' });
});

test('a writer stopped after any chunk has written, with what is handed on, every visit exactly once', async (t) => {
  const scenario = fc.record({
    // Flushes as the server sends them; consecutive ones reach the recorder together, as the writer's buffer merges them.
    flushes: fc.array(fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 12 }),
    merges: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 12, maxLength: 12 }),
    pauses: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 12, maxLength: 12 }),
    chunk: fc.integer({ min: 1, max: 7 }),
    chunksBeforeKill: fc.integer({ min: 0, max: 40 }),
  });
  await fc.assert(
    fc.asyncProperty(scenario, async ({ flushes, merges, pauses, chunk, chunksBeforeKill }) => {
      const serial = { next: 0 };
      const handover = new VisitHandover();
      const written: number[] = [];
      let receipt: VisitReceipt | undefined;
      const sent: number[] = [];
      let chunks = 0;
      let dead = false;
      let killed!: () => void;
      const kill = new Promise<void>((resolve) => (killed = resolve));
      const store = {
        async addVisits(batch, r) {
          if (chunks++ === chunksBeforeKill) {
            dead = true;
            killed();
            // Killed before this chunk commits: it never does.
            await new Promise(() => undefined);
          }
          written.push(...batch.visits.map((v) => v.at));
          receipt = r;
          handover.confirm(writtenThrough(r!));
        },
      } as Pick<VisitStore, 'addVisits'> as VisitStore;
      const recorder = createVisitRecorder({
        store,
        classify: classifyUserAgent,
        countryOf: noCountry,
        retentionDays: 90,
        now: () => 0,
        salts: { saltOf: () => Buffer.alloc(32), load: async () => Buffer.alloc(32), keepAhead: async () => undefined },
        log: memoryLogger(),
        chunk,
      });
      const all = flushes.map((links) => flushOf(links, serial));
      const adding = (async () => {
        for (let at = 0, step = 0; at < all.length && !dead; step++) {
          const together = new VisitLog();
          for (const events of all.slice(at, at + merges[step]!)) {
            handover.sent(events);
            sent.push(...timesOf(events));
            together.append(events);
          }
          at += merges[step]!;
          recorder.add(together.take());
          for (let i = 0; i < pauses[step]!; i++) await turn();
        }
        await recorder.idle();
      })();
      await Promise.race([kill, adding]);
      const handedOn = timesOf(handover.unwritten(receipt));
      deepStrictEqual(
        [...written, ...handedOn].sort((a, b) => a - b),
        sent.sort((a, b) => a - b),
      );
    }),
    { numRuns: 300 },
  );
  t.pass();
});
