import test from 'ava';
import { isBot } from '../../src/visits/classify.ts';
import { rollUp } from '../../src/visits/rollup.ts';
import { HOUR } from '../../src/visits/visit.ts';
import { stringsOf, VisitLog, visitsIn, type VisitEvents } from '../../src/visits/visit-events.ts';
import { VisitBacklog } from '../../src/visits/visit-backlog.ts';

const T = Date.UTC(2026, 10, 28, 5);
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const BOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';

/** A flush of visits: [link, ms after T, user agent]. */
function flush(...visits: Array<[number, number, string]>): VisitEvents {
  const log = new VisitLog();
  for (const [linkId, after, userAgent] of visits) log.record(linkId, T + after, '192.0.2.1', userAgent, 'https://news.example/', 'de');
  return log.take();
}

/** Everything the backlog hands on, in order. */
function drain(backlog: VisitBacklog): VisitEvents[] {
  const out: VisitEvents[] = [];
  for (let events = backlog.shift(); events !== undefined; events = backlog.shift()) out.push(events);
  return out;
}

test('within the limit every flush waits whole, with its detail, in order', (t) => {
  const backlog = new VisitBacklog(4, isBot);
  const first = flush([1, 0, BROWSER], [2, 1, BROWSER]);
  const second = flush([1, 2, BOT]);
  backlog.add(first, 0);
  backlog.add(second, 1);
  t.is(backlog.length, 3);
  t.deepEqual(drain(backlog), [first, second]);
  t.is(backlog.dropped, 0);
});

test('past the limit a flush becomes exact counts per link, hour and bot, and goes first', (t) => {
  const backlog = new VisitBacklog(4, isBot);
  const kept = flush([1, 0, BROWSER], [1, 1, BROWSER]);
  backlog.add(kept, 0);
  // Two waiting here and two sent elsewhere: a third would pass the limit of 4.
  backlog.add(flush([1, 5, BROWSER], [1, 9, BROWSER], [2, 3, BOT], [1, HOUR, BROWSER], [2, 4, BROWSER]), 2);
  t.is(backlog.dropped, 5);
  const [counts, rest] = drain(backlog);
  t.is(rest, kept);
  const rows = Array.from({ length: counts!.length }, (_, i) => ({
    linkId: counts!.linkIds[i],
    at: counts!.times[i]! - T,
    visits: counts!.undetailed?.[i],
    ...stringsOf(counts!, i),
  }));
  const none = { client: '', referrer: '', language: '', variant: '', rule: '' };
  t.deepEqual(rows, [
    { linkId: 1, at: 9, visits: 2, userAgent: BROWSER, ...none },
    { linkId: 2, at: 3, visits: 1, userAgent: BOT, ...none },
    { linkId: 2, at: 4, visits: 1, userAgent: BROWSER, ...none },
    { linkId: 1, at: HOUR, visits: 1, userAgent: BROWSER, ...none },
  ]);
  t.is(visitsIn(counts!), 5, 'every visit counted once');
});

test('counts taken a few at a time: the rest stay first, and visits counted meanwhile add to them', (t) => {
  const backlog = new VisitBacklog(0, isBot);
  // Links 1-3 this hour, link 4 the next: four counts over two hours.
  backlog.add(flush([1, 0, BROWSER], [2, 1, BROWSER], [3, 2, BROWSER], [4, HOUR, BROWSER]), 0);
  t.is(backlog.length, 4);
  const first = backlog.shift(2)!;
  t.deepEqual([...first.linkIds], [1, 2]);
  t.is(backlog.length, 2);
  // Link 3 visited again in its hour: still one count, of two visits; link 5 is a new count.
  backlog.add(flush([3, 5, BROWSER], [5, 6, BROWSER]), 0);
  t.is(backlog.length, 3);
  const rest = drain(backlog);
  t.is(rest.length, 1, 'the counts left go as one');
  t.deepEqual([...rest[0]!.linkIds], [3, 5, 4]);
  t.deepEqual([...rest[0]!.undetailed!], [2, 1, 1]);
  t.is(backlog.length, 0);
  t.is(visitsIn(first) + visitsIn(rest[0]!), 6, 'every visit counted once');
});

test('counting everything at shutdown keeps every visit, and counts counted again stay what they were', (t) => {
  const backlog = new VisitBacklog(100, isBot);
  backlog.add(flush([7, 0, BROWSER], [7, 1, BROWSER], [8, 2, BOT]), 0);
  backlog.add(flush([7, 3, BROWSER]), 0);
  backlog.countAll();
  t.is(backlog.dropped, 4);
  const [counts] = drain(backlog);
  t.is(visitsIn(counts!), 4);
  // A writer that died with the counts unwritten hands them back; counted again, nothing changes.
  backlog.unshift(counts!);
  backlog.countAll();
  t.is(backlog.dropped, 4);
  const [again] = drain(backlog);
  t.is(visitsIn(again!), 4);
  t.deepEqual([...again!.undetailed!], [...counts!.undetailed!]);
});

test('a copied log keeps which events are counts', (t) => {
  const log = new VisitLog();
  log.record(1, T, 'c', BROWSER, '', '');
  log.recordUndetailed(2, T, BOT, 40);
  const copy = new VisitLog();
  copy.append(log.take());
  for (let i = 0; i < 3000; i++) copy.record(3, T, 'c', BROWSER, '', '');
  const events = copy.take();
  t.is(events.length, 3002);
  t.deepEqual([events.undetailed![0], events.undetailed![1], events.undetailed![3001]], [0, 40, 0]);
  t.is(visitsIn(events), 3041);
});

test('counts add to the hours, days and link counts and to their own counts of visits only counted, and to no breakdown', (t) => {
  const batch = rollUp([], true, [
    { linkId: 1, at: T + 10, bot: false, visits: 30 },
    { linkId: 1, at: T + HOUR, bot: true, visits: 4 },
  ]);
  t.deepEqual(batch.visits, []);
  t.deepEqual(
    batch.hours.map((h) => [h.t - T, h.humans, h.bots, h.undetailedHumans, h.undetailedBots]),
    [
      [0, 30, 0, 30, 0],
      [HOUR, 0, 4, 0, 4],
    ],
  );
  t.deepEqual(
    batch.days.map((d) => [d.humans, d.bots, d.undetailedHumans, d.undetailedBots]),
    [[30, 4, 30, 4]],
  );
  t.deepEqual(batch.links, [{ id: 1, count: 30, lastVisitAt: T + 10 }]);
  t.deepEqual(batch.dimensions, []);
  t.deepEqual(batch.dimensionDays, []);
  t.deepEqual(batch.visitors, []);
});
