import { existsSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { Server } from 'node:net';
import { createApp } from '../app.ts';
import { describeConfig, proxyWarning, type Config } from '../config.ts';
import { defaultDeps, type Deps } from '../deps.ts';
import { exposedFiles } from '../core/file-modes.ts';
import { createHttpServer } from '../http/server.ts';
import { superviseWorkers } from '../cluster/primary.ts';
import {
  creationsThroughPrimary,
  followPrimaryBlocklist,
  isWorker,
  metricsThroughPrimary,
  portFromPrimary,
  relayVisitsToPrimary,
  tellPrimaryListening,
} from '../cluster/worker.ts';
import type { Command } from './command.ts';

/** How long shutdown waits for open requests before cutting connections. */
const SHUTDOWN_GRACE_MS = 10_000;

/** At shutdown, a keep-alive connection without a request for this long is closed. */
const SHUTDOWN_IDLE_MS = 1000;

export const serve: Command = {
  summary: 'Start the web server (the default command), in --workers processes. Stops cleanly on SIGTERM/SIGINT.',
  usage: 'serve [--host ADDR] [--port N] [--db FILE | --database-url URL] [--workers N|auto] [--public-url URL] [--config FILE]',
  examples: ['kurz serve --host 0.0.0.0 --port 8080 --public-url https://s.example.com'],
  flags: {},
  positionals: [0, 0],
  async run({ config }) {
    const deps = defaultDeps(config);
    if (isWorker()) {
      await serveHttp(config, deps, true);
      return undefined;
    }
    deps.log.info('starting kurz', { config: describeConfig(config) });
    const warning = proxyWarning(config);
    if (warning !== undefined) deps.log.warn(warning);
    if (config.workers > 1) {
      const port = await superviseWorkers(config, deps);
      warnExposed(config, deps);
      announce(config, deps, port);
      return undefined;
    }
    const port = await serveHttp(config, deps, false);
    warnExposed(config, deps);
    announce(config, deps, port);
    return undefined;
  },
};

/** Warns of the database's files that others may read; kurz leaves the mode of an existing file to its owner. */
function warnExposed(config: Config, deps: Deps): void {
  if (config.databaseUrl !== '' || config.db === ':memory:') return;
  for (const file of exposedFiles(config.db)) {
    deps.log.warn('a file of kurz is open to other users of this machine', {
      file: file.path,
      mode: file.mode,
      openTo: file.openTo,
      fix: file.fix,
    });
  }
}

/**
 * Serves HTTP in this process until SIGTERM or SIGINT: the only server, or one of the primary's workers
 * (which hands its visits to the primary and shares its port). Resolves with the port once listening.
 */
async function serveHttp(config: Config, deps: Deps, worker: boolean): Promise<number> {
  const isNew = !worker && config.databaseUrl === '' && config.db !== ':memory:' && !existsSync(config.db);
  const relay = worker ? relayVisitsToPrimary() : undefined;
  const metrics = worker ? metricsThroughPrimary(deps.log) : undefined;
  const blocklist = worker ? followPrimaryBlocklist(deps.log) : undefined;
  // On SQLite one process writes the links: a worker's creations go to its primary's group commit.
  const storeCreation = worker && config.databaseUrl === '' ? creationsThroughPrimary(deps.log) : undefined;
  const port = worker ? await portFromPrimary(deps.log) : config.port;
  const kurz = await createApp(
    config,
    deps,
    relay && metrics ? { offloadVisits: relay.offload, scrapeMetrics: metrics.scrape, screenLinks: false, storeCreation } : {},
  );
  metrics?.report(kurz.metrics);
  blocklist?.start(() => kurz.services.screening.reload({ screen: false }));
  const server = createHttpServer(config, kurz.callback);
  // Workers each listen on the port (SO_REUSEPORT), which node:cluster then leaves to them.
  server.listen({ port, host: config.host, reusePort: worker });
  try {
    await once(server, 'listening');
  } catch (err) {
    await kurz.close();
    // A start that failed leaves no empty database behind, for the next attempt to mistake for a real one.
    if (isNew) for (const suffix of ['', '-wal', '-shm']) rmSync(config.db + suffix, { force: true });
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(`cannot listen on ${config.host}:${port}: ${reason}`, { cause: err });
  }
  const address = server.address();
  if (typeof address === 'object' && address) kurz.listeningOn(address);
  const listening = typeof address === 'object' && address ? address.port : port;
  if (worker) tellPrimaryListening(listening);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    if (!worker) deps.log.info('shutting down', { signal });
    // Every request read from now on is answered with `Connection: close`; a connection between requests
    // is closed once it has been idle for SHUTDOWN_IDLE_MS, one still busy after the grace is cut.
    server.prependListener('request', closeAfterAnswer);
    server.keepAliveTimeout = SHUTDOWN_IDLE_MS;
    const idle = setTimeout(() => server.closeIdleConnections(), SHUTDOWN_IDLE_MS).unref();
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
    // net.Server's close only stops accepting: http.Server's would also drop the connections that look
    // idle at once, resetting requests their clients have sent and the server has not read yet.
    Server.prototype.close.call(server, async () => {
      clearTimeout(idle);
      clearTimeout(force);
      // Writes whose clients hung up are still queued; they are written before the database closes, and
      // the background writer (or the primary) writes the visits it holds.
      await kurz.close();
      await relay?.done();
      if (!worker) deps.log.info('stopped; visits flushed and database closed');
    });
  };
  // `on`, not `once`: a worker gets the signal from its terminal or systemd and again from its primary.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return listening;
}

/** Makes this answer the connection's last. */
function closeAfterAnswer(_req: IncomingMessage, res: ServerResponse): void {
  res.shouldKeepAlive = false;
}

function announce(config: Config, deps: Deps, port: number): void {
  deps.log.info('listening', { address: `${config.host}:${port}`, publicUrl: config.publicUrl, workers: config.workers });
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  process.stdout.write(`kurz is running: open http://${host}:${port}/ (short links use ${config.publicUrl})\n`);
}
