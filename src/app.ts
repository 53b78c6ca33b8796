import type { RequestListener } from 'node:http';
import type { Database } from 'better-sqlite3';
import Koa from 'koa';
import { RedirectCache } from './cache.ts';
import { createCodeGenerator } from './codes/code-generator.ts';
import type { Config } from './config.ts';
import type { Deps } from './deps.ts';
import { handleErrors } from './http/errors.ts';
import { createRenderer, type Renderer } from './http/respond.ts';
import { fastPathsFirst } from './http/fast-paths.ts';
import { createRouter, RESERVED_PATHS } from './http/routes.ts';
import { createBatcher, type CreateBatcher } from './links/create-batcher.ts';
import { createLinkService, type LinkService } from './links/service.ts';
import type { Logger } from './log.ts';
import { VisitBuffer } from './stats/visit-buffer.ts';
import { openDatabase, type OpenOptions } from './store/database.ts';
import { createLinkStore } from './store/link-store.ts';
import { createSettingsStore } from './store/settings-store.ts';

/** What handlers work with: the services, plus the config and clock they were built with. */
export interface Services {
  config: Config;
  now: () => number;
  log: Logger;
  links: LinkService;
  /** Link creation through the API and the form, grouped into one transaction per turn (group commit). */
  creations: CreateBatcher;
  visits: VisitBuffer;
  render: Renderer;
  isDatabaseReachable: () => boolean;
}

/** kurz without HTTP: what the CLI commands work with. */
export interface Core {
  services: Services;
  db: Database;
  /** Writes buffered visits and closes the database. */
  close(): void;
}

export interface Kurz extends Core {
  /** The request listener to hand to http.createServer: the fast paths, then Koa. */
  callback: RequestListener;
  /** Koa alone, without the fast paths in front (tests compare the two). */
  koa: RequestListener;
}

/** How often a server looks for links that another process on the same file changed. */
const CHANGE_POLL_MS = 1000;

/** Key of the setting that holds the FF1 key, generated at first start. */
const CODE_KEY = 'code_key';

/**
 * Opens the database named in `config` and builds the stores and services on it.
 * Throws if the database cannot be opened or migrated.
 */
export function createCore(config: Config, deps: Deps, openOptions: OpenOptions = {}): Core {
  const db = openDatabase(config.db, openOptions);
  const links = createLinkStore(db);
  const settings = createSettingsStore(db);
  const key = Buffer.from(
    settings.settingOrInit(CODE_KEY, () => deps.random(32).toString('hex')),
    'hex',
  );
  const codes = createCodeGenerator({ mode: config.codeMode, length: config.codeLength, key, offset: config.codeOffset });
  const cache = new RedirectCache({ size: config.cacheSize, negativeTtl: config.negativeCacheTtl, now: deps.now });
  const visits = new VisitBuffer({
    write: (counts) => links.addVisits(counts),
    flushSize: config.visitFlushSize,
    flushInterval: config.visitFlushInterval,
    log: deps.log,
  });
  const linkService = createLinkService({ config, now: deps.now, db, links, codes, cache, reserved: RESERVED_PATHS });
  const services: Services = {
    config,
    now: deps.now,
    log: deps.log,
    links: linkService,
    creations: createBatcher(linkService.createLinks, linkService.synced),
    visits,
    render: createRenderer(),
    isDatabaseReachable: settings.isReachable,
  };

  return {
    services,
    db,
    close() {
      visits.stop();
      links.close();
      db.close();
    },
  };
}

/**
 * Builds the whole server on the database named in `config`: the core, the Koa app, the visit timer and
 * the poll for changes made by other processes. Never listens. Throws like createCore.
 */
export function createApp(config: Config, deps: Deps, openOptions: OpenOptions = {}): Kurz {
  const core = createCore(config, deps, openOptions);
  const { services } = core;
  const app = new Koa();
  const router = createRouter(services);
  app.use(handleErrors(services.render, deps.log));
  app.use(router.routes());
  app.use(router.allowedMethods());
  services.visits.start();
  const poll = setInterval(() => {
    try {
      services.links.syncChanges();
    } catch (err) {
      deps.log.error('could not read the change log', { err });
    }
  }, CHANGE_POLL_MS).unref();

  const koa = app.callback();
  return {
    ...core,
    callback: fastPathsFirst(services, koa, RESERVED_PATHS),
    koa,
    close() {
      clearInterval(poll);
      core.close();
    },
  };
}
