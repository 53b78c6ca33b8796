import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import sea from 'node:sea';
import { createApp } from '../app.ts';
import type { Config } from '../config.ts';
import type { Deps } from '../deps.ts';
import { aggregateMetrics, type MetricsJson } from '../web/metrics.ts';
import { blocklistReloaded, reloadBlocklist } from './blocklist-channel.ts';
import { AppError } from '../core/errors.ts';
import { receive, send } from './channel.ts';
import { creationFromPrimary, creationToPrimary } from './creation-channel.ts';
import { metricsFromWorker, metricsToWorker } from './metrics-channel.ts';
import { listenOn, workerStarted } from './start-channel.ts';
import { handedVisits } from './visits-channel.ts';

/** How long the primary waits for a worker's metrics; one that does not answer is left out of that scrape. */
const REPORT_TIMEOUT_MS = 2000;

/** Waits before restarting a worker that died, by how many died in a row soon after starting. */
const RESTART_DELAYS_MS = [0, 1000, 5000, 30_000];

/** A worker that lived this long before dying is restarted at once: it was not crash-looping. */
const STABLE_MS = 30_000;

/** How long the primary waits for its workers to stop before killing them (theirs is 10 s, then the visits). */
const WORKERS_STOP_MS = 60_000;

/** How long the primary waits for a worker to reload the blocklist before it screens the links without it. */
const BLOCKLIST_RELOAD_WAIT_MS = 60_000;

/**
 * `serve --workers N`: this process is the primary. It opens the database (migrations, the first admin
 * password, and on SQLite the one background writer), forks N workers with node:cluster, each listening on
 * the same port with SO_REUSEPORT (the kernel spreads connections over them, and resets those queued at a
 * worker that dies), writes the visits they hand it, restarts a worker that dies, and on SIGTERM or SIGINT
 * stops the workers, then writes the last visits and closes. Resolves with the port once every worker
 * listens; rejects (everything stopped) if one cannot start.
 */
export async function superviseWorkers(config: Config, deps: Deps): Promise<number> {
  const started = new Map<Worker, number>();
  /** Workers that said they are ready: they follow the primary's requests from then on, and read the files after. */
  const ready = new Set<Worker>();
  const reloaded = new Map<Worker, () => void>();
  // A worker not ready yet reads the files at its start; the others read them again before the links are screened.
  const reloadWorkerBlocklists = async (): Promise<void> => {
    const waits = [...ready]
      .filter((worker) => !worker.isDead())
      .map(
        (worker) =>
          new Promise<void>((resolve) => {
            const done = (): void => {
              clearTimeout(timer);
              worker.off('exit', done);
              reloaded.delete(worker);
              resolve();
            };
            const timer = setTimeout(() => {
              deps.log.error('a worker did not reload the blocklist in time', { pid: worker.process.pid });
              done();
            }, BLOCKLIST_RELOAD_WAIT_MS);
            worker.once('exit', done);
            reloaded.set(worker, done);
            send(worker, reloadBlocklist, { reload: true });
          }),
      );
    await Promise.all(waits);
  };
  const kurz = await createApp(config, deps, { beforeScreen: reloadWorkerBlocklists });
  cluster.setupPrimary({ serialization: 'advanced', ...sameCommandLine() });
  let stopping = false;
  let diedSoon = 0;
  let port = config.port;
  const reports = new Map<string, (metrics: MetricsJson | undefined) => void>();
  let scrapes = 0;

  /** Every live worker's metrics and the primary's own, added up: what a scrape of any worker shows. */
  const gatherMetrics = async (): Promise<string> => {
    const id = ++scrapes;
    const asked = [...started.keys()]
      .filter((w) => w.isConnected())
      .map(
        (worker) =>
          new Promise<MetricsJson | undefined>((resolve) => {
            const key = `${worker.id} ${id}`;
            const timer = setTimeout(() => answer(undefined), REPORT_TIMEOUT_MS);
            const answer = (metrics: MetricsJson | undefined): void => {
              clearTimeout(timer);
              reports.delete(key);
              resolve(metrics);
            };
            reports.set(key, answer);
            send(worker, metricsToWorker, { report: id });
          }),
      );
    const all = await Promise.all([kurz.metrics.json(), ...asked]);
    return aggregateMetrics(all.filter((metrics) => metrics !== undefined));
  };

  /** A new worker, and its port once it listens (rejected if it exits first; its error is in the log). */
  const fork = (): { worker: Worker; listening: Promise<number> } => {
    const worker = cluster.fork();
    started.set(worker, Date.now());
    const listening = new Promise<number>((resolve, reject) => {
      receive(worker, handedVisits, deps.log, (message) => kurz.services.visits.addEvents(message.visits));
      // On SQLite, every worker's creations go to this process's one group commit: one writer, no lock taken in turn.
      if (config.databaseUrl === '')
        receive(worker, creationToPrimary, deps.log, (message) => {
          const creation = message.creation;
          if ('malformed' in message) {
            deps.log.error("dropped a worker's malformed creation", { pid: worker.process.pid });
            send(worker, creationFromPrimary, { failed: creation, message: 'the primary could not read the creation' });
            return;
          }
          kurz.services.creation.store(message.write).then(
            (result) => send(worker, creationFromPrimary, { created: creation, result }),
            (err: unknown) => {
              if (err instanceof AppError) {
                const { code, message, field, retryAfter } = err;
                send(worker, creationFromPrimary, { refused: creation, code, message, field, retryAfter });
                return;
              }
              deps.log.error("could not store a worker's link", { err });
              send(worker, creationFromPrimary, { failed: creation, message: (err as Error).message });
            },
          );
        });
      receive(worker, metricsFromWorker, deps.log, (message) => {
        if ('report' in message) return reports.get(`${worker.id} ${message.report}`)?.(message.metrics);
        const scraped = message.scrape;
        gatherMetrics().then(
          (text) => send(worker, metricsToWorker, { scraped, text }),
          (err: unknown) => send(worker, metricsToWorker, { scraped, error: (err as Error).message }),
        );
      });
      receive(worker, blocklistReloaded, deps.log, () => reloaded.get(worker)?.());
      receive(worker, workerStarted, deps.log, (message) => {
        if ('listening' in message) return resolve(message.listening);
        ready.add(worker);
        send(worker, listenOn, { listen: port });
      });
      worker.once('exit', (code, signal) => reject(new Error(`a worker could not start (exit code ${code}, signal ${signal})`)));
    });
    return { worker, listening };
  };

  const first: Worker[] = [];
  try {
    // The first worker picks the port when the setting is 0; the others join it.
    const one = fork();
    first.push(one.worker);
    port = await one.listening;
    const others = Array.from({ length: config.workers - 1 }, fork);
    first.push(...others.map((o) => o.worker));
    await Promise.all(others.map((o) => o.listening));
  } catch (err) {
    stopping = true;
    await stopWorkers([...started.keys()]);
    await kurz.close();
    throw err;
  }
  deps.log.info('workers started', { workers: config.workers, pids: first.map((w) => w.process.pid).join(',') });

  cluster.on('exit', (worker, code, signal) => {
    const at = started.get(worker) ?? 0;
    started.delete(worker);
    ready.delete(worker);
    if (stopping) return;
    diedSoon = Date.now() - at < STABLE_MS ? diedSoon + 1 : 0;
    const delay = RESTART_DELAYS_MS[Math.min(diedSoon, RESTART_DELAYS_MS.length - 1)] ?? 0;
    deps.log.error('a worker died; starting another', { pid: worker.process.pid, code, signal, inMs: delay });
    setTimeout(() => {
      if (stopping) return;
      const next = fork();
      next.listening.then(
        () => deps.log.info('worker started', { pid: next.worker.process.pid }),
        () => undefined, // its exit is logged and handled above
      );
    }, delay);
  });

  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    deps.log.info('shutting down', { signal, workers: started.size });
    void (async () => {
      await stopWorkers([...started.keys()]);
      // The visits the workers handed over are written (by the background writer, on SQLite) before it closes.
      await kurz.close();
      deps.log.info('stopped; visits flushed and database closed');
    })();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return port;
}

/**
 * Workers run this program with this command line. node:cluster runs `node [NODE_OPTIONS] [script] ARGS`;
 * the executable has no script (its runtime puts its own path in the script's place, so the first argument
 * goes where the script would) and embeds its Node options (it would take them for its own flags).
 */
function sameCommandLine(): { exec?: string; args?: string[]; execArgv?: string[] } {
  if (!sea.isSea()) return {};
  const [first = 'serve', ...rest] = process.argv.slice(2);
  return { exec: first, args: rest, execArgv: [] };
}

/** SIGTERM to each worker; waits for them to exit, killing those that take longer than WORKERS_STOP_MS. */
async function stopWorkers(workers: Worker[]): Promise<void> {
  const exits = workers.filter((w) => !w.isDead()).map((w) => once(w, 'exit'));
  for (const worker of workers) if (!worker.isDead()) worker.process.kill('SIGTERM');
  const killer = setTimeout(() => {
    for (const worker of workers) if (!worker.isDead()) worker.process.kill('SIGKILL');
  }, WORKERS_STOP_MS);
  await Promise.all(exits);
  clearTimeout(killer);
}
