import { isCount, isRecord, type Channel } from './channel.ts';

/**
 * A worker's start, worker to primary: ready to listen (it follows the primary's requests from then on),
 * then listening on a port (node:cluster does not report a socket a worker opens with SO_REUSEPORT).
 */
export type WorkerStarted = { ready: true } | { listening: number };

export const workerStarted: Channel<WorkerStarted> = {
  name: 'start',
  parse(body) {
    if (!isRecord(body)) return undefined;
    if (body['ready'] === true) return { ready: true };
    if (isCount(body['listening'])) return { listening: body['listening'] };
    return undefined;
  },
};

/** Primary to a worker that is ready: the port to listen on (the first worker's, when the setting is 0). */
export interface ListenOn {
  listen: number;
}

export const listenOn: Channel<ListenOn> = {
  name: 'listen',
  parse: (body) => (isRecord(body) && isCount(body['listen']) ? { listen: body['listen'] } : undefined),
};
