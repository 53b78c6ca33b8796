import type { VisitEvents } from '../visits/visit-events.ts';
import { isCount, isRecord, isVisitEvents, type Channel } from './channel.ts';

/** Server to background writer: a flush of visit events to write, or finish (write the rest and exit). */
export type ToWriter = { events: VisitEvents } | { finish: true };

export const toWriter: Channel<ToWriter> = {
  name: 'writer',
  parse(body) {
    if (!isRecord(body)) return undefined;
    if (isVisitEvents(body['events'])) return { events: body['events'] };
    if (body['finish'] === true) return { finish: true };
    return undefined;
  },
};

/**
 * Background writer to server: after each chunk it commits, every visit before `written` in what it was
 * sent is written; `alive` once it has opened the database and when it starts to finish (progress, at
 * shutdown); and whenever it changes, the fault its writes fail with (null when they succeed again).
 */
export type FromWriter = { written: number } | { alive: true } | { fault: string | null };

export const fromWriter: Channel<FromWriter> = {
  name: 'writer',
  parse(body) {
    if (!isRecord(body)) return undefined;
    if (isCount(body['written'])) return { written: body['written'] };
    if (body['alive'] === true) return { alive: true };
    if (body['fault'] === null || typeof body['fault'] === 'string') return { fault: body['fault'] };
    return undefined;
  },
};
