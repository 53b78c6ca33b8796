import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { Config } from './config.ts';
import type { Services, WebServices } from './context.ts';
import type { Deps } from './deps.ts';
import { isUnavailable } from './core/errors.ts';
import { createEdge } from './edge/edge.ts';
import { createAccessLog } from './http/access-log.ts';
import { createPipeline, refuseWaitingClients, type Pipeline } from './http/pipeline.ts';
import { createRenderer } from './http/respond.ts';
import { createServices } from './services.ts';
import { writeFirstPassword } from './auth/first-password.ts';
import type { Storage } from './store/ports.ts';
import type { VisitEvents } from './visits/visit-events.ts';
import { scheduleBackups } from './store/scheduled-backups.ts';
import { openStorage } from './store/open.ts';
import { startBackgroundWriter } from './cluster/background-writer.ts';
import { lineFormat } from './core/log.ts';
import { handleErrors } from './web/errors.ts';
import { shlinkEdge } from './web/shlink/shlink-edge.ts';
import { createMetrics, type Metrics } from './web/metrics.ts';
import { checkMethod } from './web/methods.ts';
import { authenticate } from './web/middleware/authenticate.ts';
import { countReviews } from './web/middleware/review-count.ts';
import { createRouter } from './web/routes.ts';
import type { CreatedLink, CreationWrite } from './links/create.ts';

/** How often a server that writes its own visits deletes raw visits past the retention period. */
const PRUNE_INTERVAL_MS = 3_600_000;

/** Days a webhook delivery stays in the delivery log once it is delivered or given up. */
const WEBHOOK_LOG_DAYS = 7;

/**
 * How often a process reads (and, unless a SQLite worker, makes ahead) today's and tomorrow's visitor salts:
 * tomorrow's exists a day early, so no redirect waits for one at midnight.
 */
const SALT_INTERVAL_MS = 600_000;

/**
 * How often a server looks for links that another process on the same database changed (a worker, a CLI
 * command, another node): the longest an edit takes to reach this process's cache, plus the read.
 */
const CHANGE_POLL_MS = 250;

export interface AppOptions {
  /** Write visits (and SQLite's checkpoints) from a separate process (what `serve` does); off in tests. Default on. */
  backgroundWriter?: boolean;
  /**
   * Hands every flush of visits to another process instead (a worker to its primary, which writes and
   * prunes them): false when it cannot, and this process writes them itself.
   */
  offloadVisits?: (events: VisitEvents, giveBack: (events: VisitEvents) => void) => boolean;
  /**
   * Hands each creation's write to another process instead (a SQLite worker to its primary, whose one group
   * commit takes every worker's creations).
   */
  storeCreation?: (write: CreationWrite) => Promise<CreatedLink>;
  /** Adapts the storage before the app uses it (tests: to take a capability away). */
  adaptStorage?: (storage: Storage) => Storage;
  /** What /metrics answers instead of this process's metrics (a worker's: every process's, from its primary). */
  scrapeMetrics?: () => Promise<string>;
  /**
   * Watch the blocklist files and screen the links against them (default on). A worker leaves it to its
   * primary, which has it reload the files (`services.screening.reload`) before each scan.
   */
  screenLinks?: boolean;
  /** Runs after each reload of the blocklist, before the links are screened (the primary: its workers reload). */
  beforeScreen?: () => Promise<void>;
}

/**
 * Shows the generated first password where only the admin sees it: on the terminal, or else (a journal keeps
 * what it is sent) in a file readable by kurz's user alone, whose path is logged instead.
 */
function showFirstPassword(config: Config, deps: Deps, file: string | undefined, password: string): void {
  const change = 'the first login with it asks for a new one (or set one with "kurz admin password")';
  if (deps.terminal) {
    deps.log.info(`first start: the admin account has a generated password, shown this once; ${change}`, {
      user: config.adminUser,
      password,
    });
    return;
  }
  if (file === undefined) {
    deps.log.warn('first start on an in-memory database: its generated admin password is shown on a terminal only', {
      user: config.adminUser,
    });
    return;
  }
  try {
    writeFirstPassword(file, password);
    deps.log.info(`first start: the admin account has a generated password, written to a file only kurz's user can read; ${change}`, {
      user: config.adminUser,
      file,
    });
  } catch (err) {
    deps.log.error('first start: could not write the generated admin password to its file; set one with "kurz admin password"', {
      file,
      reason: (err as NodeJS.ErrnoException).code ?? (err as Error).message,
    });
  }
}

/** The whole server, ready to be handed to http.createServer. */
export interface Kurz {
  /** The request listener: the edge, with Koa behind it. */
  callback: RequestListener;
  services: Services;
  pipeline: Pipeline;
  storage: Storage;
  /** This process's metrics (what /metrics shows, unless AppOptions.scrapeMetrics says otherwise). */
  metrics: Metrics;
  /** Tells the app where the server listens (the URL rules refuse targets there). */
  listeningOn(address: AddressInfo): void;
  /** Stops the timers, hands on buffered visits, waits for pending writes and closes the database. */
  close(): Promise<void>;
}

/**
 * The composition root: opens the storage named in `config`, builds the use cases, the edge and Koa
 * behind it, and starts the visit timer, the change-log poll, (unless told not to) the background
 * writer and (unless a worker) the scheduled backups. Never listens. Rejects if the database cannot be
 * opened or migrated.
 */
export async function createApp(config: Config, deps: Deps, options: AppOptions = {}): Promise<Kurz> {
  const writerFlags = [
    '--visit-retention-days',
    String(config.visitRetentionDays),
    '--log-level',
    config.logLevel,
    '--log-format',
    config.logFormat,
  ];
  if (config.geoipDatabase !== '') writerFlags.push('--geoip-database', config.geoipDatabase);
  const writer = options.offloadVisits === undefined && (options.backgroundWriter ?? true);
  const opened = await openStorage(config, {
    log: deps.log,
    backgroundWriter: writer ? (host) => startBackgroundWriter(host, writerFlags, deps.log, config.visitBacklog) : undefined,
  });
  const relayed = options.offloadVisits;
  const adapted = options.adaptStorage?.(opened) ?? opened;
  const storage = relayed ? { ...adapted, visits: { ...adapted.visits, offload: relayed } } : adapted;
  let services: Services;
  try {
    // A SQLite worker reads the salts its primary makes (it leaves the writes to it); every other process may make them.
    services = await createServices(config, deps, storage, relayed === undefined || config.databaseUrl !== '', options.storeCreation);
    // A blocklist file that cannot be read stops the start, naming it.
    services.screening.load();
    // A provider that is down only delays single sign-on: its discovery is logged and tried again.
    services.sso?.warmUp();
  } catch (err) {
    await storage.close();
    throw err;
  }
  const web: WebServices = {
    ...services,
    render: createRenderer(),
    pipeline: createPipeline(config, [refuseWaitingClients(services.limits.notFound)]),
    scrapeMetrics: () => (options.scrapeMetrics ?? metrics.text)(),
  };
  const metrics = createMetrics(web);
  const logStream = deps.logStream ?? process.stderr;
  const accessLog = config.accessLog ? createAccessLog(logStream, lineFormat(config.logFormat, logStream), web.pipeline) : undefined;
  const koa = new Koa({ keys: services.access.cookieKeys });
  // What reaches Koa's own error event is a response that failed under way, mostly a client that hung up
  // or a slow client cut off (every thrown error is answered by handleErrors); Koa's default would print a
  // stack to stderr.
  koa.on('error', (err: Error, ctx?: Koa.Context) => {
    const requestId = ctx ? web.pipeline.contextOf(ctx.req).id : undefined;
    deps.log.debug('the connection ended before the answer was sent', { requestId, reason: err.message });
  });
  const router = createRouter(web);
  koa.use(handleErrors(web));
  koa.use(shlinkEdge(router));
  koa.use(checkMethod(router));
  koa.use(authenticate(web));
  // An admin's pages show how many links wait for review.
  koa.use(countReviews(web));
  koa.use(router.routes());
  koa.use(router.allowedMethods());

  // On the thread pool while the server starts: a first start does not wait for the slow hash.
  const firstPassword = services.access.ensureAdminPassword().then(
    (password) => password !== undefined && showFirstPassword(config, deps, services.access.passwordFile, password),
    (err: unknown) => deps.log.error('could not set the first admin password', { err }),
  );

  services.visits.start();
  // The store logs when the database becomes unavailable and when it is back: the timers need not, each time.
  const logUnlessUnavailable = (message: string) => (err: unknown) => {
    if (!isUnavailable(err)) deps.log.error(message, { err });
  };
  if (options.screenLinks ?? true) services.screening.start({ beforeScreen: options.beforeScreen });
  // The process that writes the visits prunes them: here, unless a background writer or a primary does.
  // The audit trail is pruned on the same schedule by one process: this one, unless it is a worker.
  const writesItsVisits = relayed === undefined && !writer;
  const prune = () => {
    if (writesItsVisits) services.recorder.prune().catch(logUnlessUnavailable('could not prune visits'));
    services.deliveries.prune(WEBHOOK_LOG_DAYS).catch(logUnlessUnavailable('could not prune the webhook deliveries'));
    services.audit
      .prune()
      .then((deleted) => deleted > 0 && deps.log.info('pruned audit entries past the retention period', { entries: deleted }))
      .catch(logUnlessUnavailable('could not prune the audit trail'));
  };
  const pruning = relayed === undefined ? setInterval(prune, PRUNE_INTERVAL_MS).unref() : undefined;
  const keepSalts = () => services.salts.keepAhead().catch(logUnlessUnavailable('could not read the visitor salts'));
  await keepSalts();
  const salting = setInterval(keepSalts, SALT_INTERVAL_MS).unref();
  const poll = setInterval(() => {
    services.changes.poll().catch(logUnlessUnavailable('could not read the change log'));
  }, CHANGE_POLL_MS).unref();
  // One process backs the file up: this one, unless it is a worker (its primary does).
  const backups = relayed === undefined ? scheduleBackups(config, deps) : undefined;
  // One process delivers the webhooks: this one, unless it is a worker (its primary does).
  if (relayed === undefined) services.deliveries.start();

  let closed: Promise<void> | undefined;
  return {
    callback: createEdge(web, koa.callback(), accessLog?.log),
    services,
    pipeline: web.pipeline,
    storage,
    metrics,
    listeningOn(address) {
      // A wildcard address stands for every interface's (the URL rules expand it).
      services.listening.port = address.port;
      services.listening.addresses = [address.address];
    },
    close() {
      closed ??= (async () => {
        clearInterval(poll);
        clearInterval(pruning);
        clearInterval(salting);
        await backups?.stop();
        await services.deliveries.stop();
        await services.screening.stop();
        await firstPassword;
        services.visits.stop();
        await services.recorder.idle();
        const lost = services.recorder.pending;
        if (lost > 0) deps.log.error('stopping with visits the database did not take; they are lost', { visits: lost });
        await storage.close();
        await accessLog?.drained();
      })();
      return closed;
    },
  };
}
