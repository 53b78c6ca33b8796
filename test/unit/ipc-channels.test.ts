import { spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import test from 'ava';
import { blocklistReloaded, reloadBlocklist } from '../../src/cluster/blocklist-channel.ts';
import { isVisitEvents, receive, send, type Channel } from '../../src/cluster/channel.ts';
import { creationFromPrimary, creationToPrimary } from '../../src/cluster/creation-channel.ts';
import { metricsFromWorker, metricsToWorker } from '../../src/cluster/metrics-channel.ts';
import { listenOn, workerStarted } from '../../src/cluster/start-channel.ts';
import { handedVisits } from '../../src/cluster/visits-channel.ts';
import { fromWriter, toWriter } from '../../src/cluster/writer-channel.ts';
import { memoryLogger } from '../../src/core/log.ts';
import { FIELDS, NO_EVENTS, VisitLog } from '../../src/visits/visit-events.ts';
import { BROWSER_UA } from '../helpers.ts';

const events = (() => {
  const log = new VisitLog();
  log.record(1, Date.UTC(2026, 0, 1), '192.0.2.1', BROWSER_UA, '', 'en');
  log.record(2, Date.UTC(2026, 0, 2), '192.0.2.2', BROWSER_UA, 'https://example.com/', '');
  return log.take();
})();

/** A flush with one visit and a count of 40 visits whose detail was dropped. */
const counted = (() => {
  const log = new VisitLog();
  log.record(1, Date.UTC(2026, 0, 1), '192.0.2.1', BROWSER_UA, '', 'en');
  log.recordUndetailed(2, Date.UTC(2026, 0, 2), BROWSER_UA, 40);
  return log.take();
})();

/** A creation as a worker hands it over: a bare URL, looked up for dedupe. */
const write = {
  url: 'https://example.com/',
  domain: 0,
  options: {},
  passwordHash: null,
  review: null,
  createdBy: { userId: 1, name: 'admin', role: 'admin', via: { kind: 'key', key: 'tests' } },
  plain: true,
  lookUp: true,
  alias: null,
  length: null,
  split: null,
  pages: null,
};
const link = { id: 1, code: 'b', url: 'https://example.com/', createdAt: new Date(0) };

/** Values that are no channel's message. */
const NOT_MESSAGES: unknown[] = [undefined, null, 0, 'ready', [], [{ ready: true }], {}, { constructor: true }];

/** Each channel's messages as they are sent, and look-alikes that must be dropped. */
const CASES: Array<{ channel: Channel<unknown>; title: string; good: unknown[]; bad: unknown[] }> = [
  {
    channel: workerStarted as Channel<unknown>,
    title: "a worker's start",
    good: [{ ready: true }, { listening: 8080 }, { listening: 0 }],
    bad: [{ ready: 'yes' }, { listening: -1 }, { listening: 80.5 }, { listening: '8080' }],
  },
  {
    channel: listenOn as Channel<unknown>,
    title: 'the port to listen on',
    good: [{ listen: 8080 }],
    bad: [{ listen: null }, { listen: Number.NaN }, { port: 8080 }],
  },
  {
    channel: handedVisits as Channel<unknown>,
    title: 'visits handed to the primary',
    good: [{ visits: events }, { visits: NO_EVENTS }],
    bad: [
      { visits: null },
      { visits: { ...events, linkIds: [...events.linkIds] } },
      { visits: { ...events, length: events.length + 1 } },
      { visits: { ...events, strings: [] } },
      { visits: { ...events, strings: [1, 2] } },
    ],
  },
  {
    channel: metricsFromWorker as Channel<unknown>,
    title: "a worker's metrics",
    good: [
      { scrape: 1 },
      { report: 2, metrics: [] },
      { report: 3, metrics: [{ name: 'up', help: '', type: 'gauge', values: [{ value: 1, labels: {} }] }] },
    ],
    bad: [
      { scrape: 'all' },
      { report: 2 },
      { report: 2, metrics: {} },
      { report: 2, metrics: [{ name: 'up', type: 'gauge', values: [{ value: '1' }] }] },
    ],
  },
  {
    channel: metricsToWorker as Channel<unknown>,
    title: "the primary's metrics",
    good: [{ report: 1 }, { scraped: 1, text: '# HELP\n' }, { scraped: 1, error: 'timed out' }],
    bad: [{ scraped: 1 }, { scraped: 1, text: 7 }, { scraped: -1, text: '' }],
  },
  {
    channel: creationToPrimary as Channel<unknown>,
    title: "a worker's creation",
    good: [
      { creation: 1, write },
      {
        creation: 2,
        write: { ...write, alias: 'mine', plain: false, lookUp: false, split: [{ url: 'https://a.example/', weight: 1, paused: false }] },
      },
    ],
    bad: [{ creation: -1, write }, { creation: '1', write }, { write }],
  },
  {
    channel: creationFromPrimary as Channel<unknown>,
    title: "the primary's answer to a creation",
    good: [
      { created: 1, result: { link, created: true } },
      { refused: 2, code: 'conflict', message: 'alias "a" is already taken', field: 'alias', retryAfter: undefined },
      { refused: 3, code: 'unavailable', message: 'the disk is full', field: undefined, retryAfter: undefined },
      { failed: 4, message: 'disk I/O error' },
    ],
    bad: [
      { created: 1, result: { link: { ...link, createdAt: 0 }, created: true } },
      { created: 1, result: { link } },
      { refused: 2, code: 'teapot', message: 'no' },
      { refused: 2, code: 'conflict', message: 'taken', field: 3 },
      { failed: 4 },
    ],
  },
  {
    channel: reloadBlocklist as Channel<unknown>,
    title: 'a blocklist reload',
    good: [{ reload: true }],
    bad: [{ reload: 1 }, { reloadBlocklist: true }],
  },
  {
    channel: blocklistReloaded as Channel<unknown>,
    title: 'a blocklist reloaded',
    good: [{ reloaded: true }],
    bad: [{ reloaded: 'true' }],
  },
  {
    channel: toWriter as Channel<unknown>,
    title: 'the background writer’s orders',
    good: [{ events }, { events: counted }, { finish: true }],
    bad: [
      { events: { length: 1 } },
      { events: { ...counted, undetailed: [0, 40] } },
      { events: { ...counted, undetailed: new Uint32Array(1) } },
      { events: { ...counted, undetailed: new Float64Array(2) } },
      { finish: false },
    ],
  },
  {
    channel: fromWriter as Channel<unknown>,
    title: 'the background writer’s reports',
    good: [{ written: 10 }, { alive: true }, { fault: 'disk full' }, { fault: null }],
    bad: [{ written: -3 }, { alive: false }, { fault: 3 }],
  },
];

for (const { channel, title, good, bad } of CASES) {
  test(`${title} (${channel.name}): its messages parse as sent, anything else is refused`, (t) => {
    for (const message of good) t.deepEqual(channel.parse(message), message);
    for (const message of [...NOT_MESSAGES, ...bad]) t.is(channel.parse(message), undefined, JSON.stringify(message) ?? String(message));
  });
}

test("a creation whose write is malformed still names its number, so the primary can answer the worker's request", (t) => {
  for (const bad of [
    undefined,
    { ...write, url: 7 },
    { ...write, createdBy: { userId: 1 } },
    { ...write, review: 'approved' },
    { ...write, split: [{ url: 'https://a.example/' }] },
    { ...write, length: -6 },
  ])
    t.deepEqual(creationToPrimary.parse({ creation: 5, write: bad }), { creation: 5, malformed: true }, JSON.stringify(bad));
});

test('visit events whose string indexes point past their strings are refused: a writer would read undefined', (t) => {
  t.true(isVisitEvents(events));
  const fields = events.fields.slice();
  fields[0] = events.strings.length;
  t.false(isVisitEvents({ ...events, fields }));
});

test('a receiver drops and logs what is no envelope, names a channel nobody listens to, or does not parse; the rest arrives', (t) => {
  const pipe = new EventEmitter();
  const log = memoryLogger();
  const got: unknown[] = [];
  receive(pipe, workerStarted, log, (message) => got.push(message));
  for (const message of [
    null,
    'ready',
    { ready: true },
    { channel: 'start' },
    { channel: 'nobody', body: {} },
    { channel: 'start', body: { ready: 1 } },
  ])
    t.notThrows(() => pipe.emit('message', message));
  pipe.emit('message', { channel: 'start', body: { listening: 8080 } });
  t.deepEqual(got, [{ listening: 8080 }]);
  t.is(log.records.filter((r) => r.level === 'error' && r.message.startsWith('dropped a malformed message')).length, 6);
});

test('a stopped receiver no longer hears its channel, and another on the same pipe still does', (t) => {
  const pipe = new EventEmitter();
  const log = memoryLogger();
  const first: unknown[] = [];
  const second: unknown[] = [];
  const stop = receive(pipe, listenOn, log, (message) => first.push(message));
  receive(pipe, listenOn, log, (message) => second.push(message));
  pipe.emit('message', { channel: 'listen', body: { listen: 1 } });
  stop();
  pipe.emit('message', { channel: 'listen', body: { listen: 2 } });
  t.deepEqual(first, [{ listen: 1 }]);
  t.deepEqual(second, [{ listen: 1 }, { listen: 2 }]);
});

test('over a real IPC pipe, the parent drops what a child sends malformed and gets the visits it sends right', async (t) => {
  // The child sends garbage first, then a real batch of events with the advanced serialization, as kurz's processes do.
  const script = `
    process.send('garbage');
    process.send({ channel: 'visits', body: { visits: { length: 1, linkIds: [1], times: [1], strings: [], fields: [] } } });
    process.send({ channel: 'visits', body: { visits: {
      length: 1, linkIds: Float64Array.of(7), times: Float64Array.of(1e12), strings: ['192.0.2.9', ''], fields: Uint32Array.of(0${', 1'.repeat(FIELDS.length - 1)}) } } },
      () => process.disconnect());
  `;
  const child = spawn(process.execPath, ['-e', script], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const log = memoryLogger();
  const got: unknown[] = [];
  receive(child, handedVisits, log, ({ visits }) => got.push({ linkId: visits.linkIds[0], client: visits.strings[visits.fields[0]!] }));
  await once(child, 'exit');
  t.deepEqual(got, [{ linkId: 7, client: '192.0.2.9' }]);
  t.is(log.records.filter((r) => r.message.startsWith('dropped a malformed message')).length, 2);
});

test('send says false when the other side is gone, and sends nothing', (t) => {
  t.false(send({ connected: false, send: () => t.fail('sent') }, reloadBlocklist, { reload: true }));
  t.false(send({}, reloadBlocklist, { reload: true }));
});
