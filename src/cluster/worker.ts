import cluster from 'node:cluster';
import type { Logger } from '../core/log.ts';
import type { VisitEvents } from '../visits/visit-events.ts';
import type { Metrics } from '../web/metrics.ts';
import { blocklistReloaded, reloadBlocklist } from './blocklist-channel.ts';
import { AppError } from '../core/errors.ts';
import type { CreatedLink, CreationWrite } from '../links/create.ts';
import { receive, send } from './channel.ts';
import { creationFromPrimary, creationToPrimary } from './creation-channel.ts';
import { metricsFromWorker, metricsToWorker } from './metrics-channel.ts';
import { listenOn, workerStarted } from './start-channel.ts';
import { handedVisits } from './visits-channel.ts';

/** Whether this process is one of a primary's workers (`serve --workers N`), not the primary or the only server. */
export function isWorker(): boolean {
  return cluster.isWorker;
}

/** A worker's side: says it is ready, and resolves with the port its primary tells it to listen on. */
export function portFromPrimary(log: Logger): Promise<number> {
  return new Promise((resolve) => {
    const stop = receive(process, listenOn, log, (message) => {
      stop();
      resolve(message.listen);
    });
    send(process, workerStarted, { ready: true });
  });
}

/**
 * A worker's side, before it says it is ready: reloads the blocklist whenever the primary asks and tells it
 * when done. Requests that come before `start` (the app is still being built) are answered after it.
 */
export function followPrimaryBlocklist(log: Logger): { start(reload: () => Promise<void>): void } {
  let reload: (() => Promise<void>) | undefined;
  let waiting = 0;
  const run = (r: () => Promise<void>): void => void r().then(() => send(process, blocklistReloaded, { reloaded: true }));
  receive(process, reloadBlocklist, log, () => {
    if (reload) run(reload);
    else waiting++;
  });
  return {
    start(r) {
      reload = r;
      for (; waiting > 0; waiting--) run(r);
    },
  };
}

/** A worker's side: tells the primary it listens, on `port`. */
export function tellPrimaryListening(port: number): void {
  send(process, workerStarted, { listening: port });
}

/**
 * A worker's side of /metrics: `scrape` is what its /metrics answers, every process's metrics added up by
 * the primary; `report` names this worker's own, which the primary asks for (none until then).
 */
export function metricsThroughPrimary(log: Logger): { scrape(): Promise<string>; report(metrics: Metrics): void } {
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();
  let scrapes = 0;
  let own: Metrics | undefined;
  receive(process, metricsToWorker, log, (message) => {
    if ('report' in message) {
      const report = message.report;
      (own ? own.json() : Promise.resolve([])).then((metrics) => send(process, metricsFromWorker, { report, metrics }));
      return;
    }
    const scrape = waiting.get(message.scraped);
    waiting.delete(message.scraped);
    if ('text' in message) scrape?.resolve(message.text);
    else scrape?.reject(new Error(`the primary could not gather the metrics: ${message.error}`));
  });
  return {
    scrape: () =>
      new Promise((resolve, reject) => {
        const scrape = ++scrapes;
        waiting.set(scrape, { resolve, reject });
        if (send(process, metricsFromWorker, { scrape })) return;
        waiting.delete(scrape);
        reject(new Error('the primary is gone'));
      }),
    report(metrics) {
      own = metrics;
    },
  };
}

/**
 * A worker's side: hands each flush of visits to the primary over IPC (false once the primary is gone:
 * the worker then writes them itself). `done` waits for the sends in flight, then lets go of the channel
 * so the worker can exit.
 */
export function relayVisitsToPrimary(): {
  offload: (events: VisitEvents, giveBack: (events: VisitEvents) => void) => boolean;
  done(): Promise<void>;
} {
  let inFlight = 0;
  let drained: (() => void) | undefined;
  return {
    offload(events, giveBack) {
      inFlight++;
      const sent = send(process, handedVisits, { visits: events }, (err) => {
        inFlight--;
        if (err) giveBack(events);
        if (inFlight === 0) drained?.();
      });
      if (!sent) inFlight--;
      return sent;
    },
    async done() {
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      if (process.connected) process.disconnect();
    },
  };
}

/**
 * A SQLite worker's side of creation: hands each creation's write to the primary, which stores every
 * worker's in its one group commit (one writer: the workers no longer take SQLite's write lock in turn), and
 * resolves with what it answers. When the primary is gone, or goes before it answers, the creation fails
 * with 'unavailable' and is never tried again here: the primary may have stored it, and a retry here could
 * store it twice.
 */
export function creationsThroughPrimary(log: Logger): (write: CreationWrite) => Promise<CreatedLink> {
  const waiting = new Map<number, { resolve: (result: CreatedLink) => void; reject: (err: Error) => void }>();
  let creations = 0;
  const gone = (): AppError => new AppError('unavailable', 'kurz is restarting: the link may not be stored; try again');
  receive(process, creationFromPrimary, log, (message) => {
    const id = 'created' in message ? message.created : 'refused' in message ? message.refused : message.failed;
    const creation = waiting.get(id);
    waiting.delete(id);
    if (creation === undefined) return;
    if ('created' in message) creation.resolve(message.result);
    else if ('refused' in message) creation.reject(new AppError(message.code, message.message, message.field, message.retryAfter));
    else creation.reject(new Error(`the primary could not store the link: ${message.message}`));
  });
  process.once('disconnect', () => {
    for (const creation of waiting.values()) creation.reject(gone());
    waiting.clear();
  });
  return (write) =>
    new Promise((resolve, reject) => {
      const id = ++creations;
      waiting.set(id, { resolve, reject });
      const sent = send(process, creationToPrimary, { creation: id, write }, (err) => {
        if (err === null || !waiting.delete(id)) return;
        reject(gone());
      });
      if (sent) return;
      waiting.delete(id);
      reject(gone());
    });
}
