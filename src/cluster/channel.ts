import type { EventEmitter } from 'node:events';
import type { Logger } from '../core/log.ts';
import { FIELDS, type VisitEvents } from '../visits/visit-events.ts';

/**
 * One concern's messages over a process's IPC pipe (visits, metrics, the blocklist, a worker's start, the
 * background writer): its name tags each message, and `parse` checks what arrives, because IPC input is
 * input too. `M` is what goes one way; a concern with answers has a channel each way.
 */
export interface Channel<M> {
  readonly name: string;
  /** The message, or undefined when `body` is not one of this channel's. */
  parse(body: unknown): M | undefined;
}

/** What travels on the pipe: a channel's name and one of its messages. */
interface Envelope {
  channel: string;
  body: unknown;
}

/** Where a message goes: a cluster worker, a child process, or (from a child) `process`. */
export interface Sender {
  readonly connected?: boolean;
  send?(message: Envelope, sendHandle?: undefined, options?: object, callback?: (error: Error | null) => void): boolean;
}

/**
 * Sends `message` on `channel`: true once it is on the pipe (queued, if the pipe is busy), false when the
 * other side is gone and nothing was sent. `done` then hears whether it left (an error when the pipe
 * closed first).
 */
export function send<M>(to: Sender, channel: Channel<M>, message: M, done: (error: Error | null) => void = () => undefined): boolean {
  if (to.connected === false || !to.send) return false;
  to.send({ channel: channel.name, body: message }, undefined, {}, done);
  return true;
}

/** The channels listened to on one pipe, and the log of the messages none of them takes. */
interface Inbox {
  handlers: Map<string, Array<(body: unknown) => void>>;
}

const inboxes = new WeakMap<EventEmitter, Inbox>();

/**
 * Hands every message on `channel` that arrives at `from` (a worker, a child process, `process`) to
 * `handle`. A message that is not a channel's envelope, names a channel nobody here listens to, or does
 * not parse is dropped and logged: a malformed message never throws in the receiver. Returns what stops
 * listening.
 */
export function receive<M>(from: EventEmitter, channel: Channel<M>, log: Logger, handle: (message: M) => void): () => void {
  let inbox = inboxes.get(from);
  if (inbox === undefined) {
    const created: Inbox = { handlers: new Map() };
    inbox = created;
    inboxes.set(from, created);
    from.on('message', (message: unknown) => {
      const envelope = envelopeOf(message);
      const handlers = envelope && created.handlers.get(envelope.channel);
      if (!envelope || !handlers || handlers.length === 0) {
        log.error('dropped a malformed message from another process', { channel: envelope?.channel ?? 'none' });
        return;
      }
      for (const handler of handlers) handler(envelope.body);
    });
  }
  const handler = (body: unknown): void => {
    const message = channel.parse(body);
    if (message === undefined) log.error('dropped a malformed message from another process', { channel: channel.name });
    else handle(message);
  };
  const handlers = inbox.handlers.get(channel.name) ?? [];
  handlers.push(handler);
  inbox.handlers.set(channel.name, handlers);
  return () => handlers.splice(handlers.indexOf(handler), 1);
}

function envelopeOf(message: unknown): Envelope | undefined {
  if (!isRecord(message) || typeof message['channel'] !== 'string' || !('body' in message)) return undefined;
  return { channel: message['channel'], body: message['body'] };
}

/** An object whose properties can be read by name (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A whole number at least 0, as counters and ports are. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Whether `value` is a batch of visit events as VisitLog.take makes them: columns of the same length,
 * each field an index into `strings`. The receiver writes them, so one that would throw or write
 * nonsense is refused whole.
 */
export function isVisitEvents(value: unknown): value is VisitEvents {
  if (!isRecord(value)) return false;
  const { length, linkIds, times, strings, fields, undetailed } = value;
  if (!isCount(length) || !(linkIds instanceof Float64Array) || !(times instanceof Float64Array)) return false;
  if (undetailed !== undefined && !(undetailed instanceof Uint32Array && undetailed.length >= length)) return false;
  if (!(fields instanceof Uint32Array) || !Array.isArray(strings) || !strings.every((s) => typeof s === 'string')) return false;
  if (linkIds.length < length || times.length < length || fields.length < length * FIELDS.length) return false;
  return fields.subarray(0, length * FIELDS.length).every((at) => at < strings.length);
}
