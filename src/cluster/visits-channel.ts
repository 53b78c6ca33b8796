import type { VisitEvents } from '../visits/visit-events.ts';
import { isRecord, isVisitEvents, type Channel } from './channel.ts';

/** Worker to primary: a flush of the worker's visits, for the primary to write. */
export interface HandedVisits {
  visits: VisitEvents;
}

export const handedVisits: Channel<HandedVisits> = {
  name: 'visits',
  parse: (body) => (isRecord(body) && isVisitEvents(body['visits']) ? { visits: body['visits'] } : undefined),
};
