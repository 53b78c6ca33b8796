import { auditTrail } from './audit/audit.ts';
import { linkSubject } from './links/link-subject.ts';
import { accessControl } from './auth/access.ts';
import { userManagement } from './auth/users.ts';
import { AppError } from './core/errors.ts';
import { singleSignOn } from './auth/sso.ts';
import { defaultHashConcurrency, PasswordHashing } from './auth/passwords.ts';
import { createRateLimits } from './auth/rate-limits.ts';
import { RedirectCache } from './cache/redirect-cache.ts';
import { CODE_KEY_SETTING, createCodeGenerator } from './codes/code-generator.ts';
import { readingAhead } from './codes/read-ahead.ts';
import type { Config } from './config.ts';
import type { Services } from './context.ts';
import type { Deps } from './deps.ts';
import { domainManagement } from './domains/manage.ts';
import { DomainRegistry } from './domains/registry.ts';
import { linkCreation, type CreateDeps } from './links/create.ts';
import { linkManagement } from './links/manage.ts';
import { linkReview } from './links/review.ts';
import { followChanges, linkResolver } from './links/resolve.ts';
import { linkScreening } from './blocklist/screening.ts';
import { linkTransfer } from './transfer/transfer.ts';
import { urlRules, type Listening } from './links/url-rules.ts';
import type { Storage, VisitStore } from './store/ports.ts';
import { foreignSqliteReader } from './store/open.ts';
import { cachedClassifier } from './visits/classify.ts';
import { noGeo, openGeoDatabase, type Geo } from './visits/geo.ts';
import { visitStats } from './visits/stats.ts';
import { VisitBuffer } from './visits/visit-buffer.ts';
import { createVisitRecorder, type VisitRecorder } from './visits/visit-recorder.ts';
import { visitorSalts, type VisitorSalts } from './visits/visitor-salts.ts';
import { webhookDeliveries } from './webhooks/deliver.ts';
import { webhookManagement } from './webhooks/manage.ts';

/** Codes computed together when a creation needs one: about what a busy turn of the event loop creates. */
const CODES_AHEAD = 64;

/** User agents whose classification is kept: far more than the browsers and bots a day brings. */
const USER_AGENTS_CACHED = 10_000;

/**
 * The visit recorder for `store`: built by the server, and by the background writer on its own
 * connection. Throws, naming the file, when the configured country database cannot be read.
 */
export function createVisitRecording(
  config: Config,
  deps: Deps,
  store: VisitStore,
  countryOf = geoLookup(config).country,
  salts: VisitorSalts = visitorSalts({ store, now: deps.now, random: deps.random, makes: true }),
): VisitRecorder {
  return createVisitRecorder({
    store,
    classify: cachedClassifier(USER_AGENTS_CACHED),
    countryOf,
    retentionDays: config.visitRetentionDays,
    now: deps.now,
    salts,
    log: deps.log,
  });
}

/**
 * The configured GeoIP database's lookups, country and city (none: every address of no known country or
 * city; a country database: no city). Throws, naming the file, when it cannot be read.
 */
function geoLookup(config: Config): Geo {
  return config.geoipDatabase === '' ? noGeo : openGeoDatabase(config.geoipDatabase);
}

/**
 * Builds the use cases on `storage`. Rejects if the storage cannot be read. `makesSalts` false (a SQLite
 * worker) reads the visitor salts its primary makes ahead rather than make one (visitor-salts.ts).
 * `storeCreation` runs creations' writes elsewhere (a SQLite worker's primary; links/create.ts).
 */
export async function createServices(
  config: Config,
  deps: Deps,
  storage: Storage,
  makesSalts = true,
  storeCreation?: CreateDeps['storeCreation'],
): Promise<Services> {
  const key = Buffer.from(await storage.settings.settingOrInit(CODE_KEY_SETTING, () => deps.random(32).toString('hex')), 'hex');
  const codes = readingAhead(
    createCodeGenerator({ mode: config.codeMode, length: config.codeLength, key, offset: config.codeOffset }),
    CODES_AHEAD,
  );
  const cache = new RedirectCache({ size: config.cacheSize, negativeTtl: config.negativeCacheTtl, now: deps.now });
  // One reader of the country database for the visits and the redirect rules.
  const geo = geoLookup(config);
  // One set of salts for the redirect's A/B splits and the visits this process records.
  const salts = visitorSalts({ store: storage.visits, now: deps.now, random: deps.random, makes: makesSalts });
  const recorder = createVisitRecording(config, deps, storage.visits, geo.country, salts);
  const visits = new VisitBuffer({
    write: (events) => recorder.add(events),
    flushSize: config.visitFlushSize,
    flushInterval: config.visitFlushInterval,
    log: deps.log,
  });
  visits.offloadTo((events, giveBack) => storage.visits.offload(events, giveBack));
  const { links } = storage;
  const { now, random } = deps;
  const limits = createRateLimits(config, now);
  const hashing = new PasswordHashing(config.hashConcurrency || defaultHashConcurrency());
  // Updated by the server once it listens (a configured port 0 becomes the real one).
  const listening: Listening = { port: config.port, addresses: [config.host] };
  const screening = linkScreening({ config, links, cache, log: deps.log, now });
  const registry = new DomainRegistry(config.publicUrl, await storage.domains.listDomains());
  const blocklist = screening.source;
  const audit = auditTrail({
    store: storage.audit,
    now,
    retentionDays: config.auditRetentionDays,
    log: deps.log,
    linkSubject: (link) => linkSubject(link, registry),
    userIdOf: async (name) => (await storage.access.userByName(name))?.id,
  });
  const access = await accessControl({
    config,
    now,
    random,
    store: storage.access,
    settings: storage.settings,
    loginLimit: limits.login,
    hashing,
    audit,
  });
  const domains = domainManagement({
    store: storage.domains,
    registry,
    now,
    audit,
    async userNamed(name) {
      const user = await access.userByName(name);
      return user && { id: user.id, name: user.name };
    },
  });
  const users = userManagement({ store: storage.access, access, audit, now, random, base: config.publicUrl.replace(/\/$/, '') });
  await users.readNames();
  const owners = {
    async idOf(name: unknown, field = 'owner'): Promise<number> {
      const user = typeof name === 'string' ? await access.userByName(name) : undefined;
      if (!user) throw new AppError('invalid', `${field} must name one of kurz's users, got ${JSON.stringify(name)}`, field);
      return user.id;
    },
    nameOf: (id: number): string | null => users.nameOf(id) ?? null,
  };
  return {
    config,
    now,
    random,
    log: deps.log,
    listening,
    limits,
    hashing,
    audit,
    access,
    users,
    owners,
    sso: config.oidcIssuer === '' ? undefined : singleSignOn({ config, now, log: deps.log }),
    creation: linkCreation({ config, listening, blocklist, now, random, links, codes, cache, hashing, domains: registry, storeCreation }),
    links: linkManagement({
      config,
      listening,
      blocklist,
      now,
      random,
      links,
      cache,
      unlockLimit: limits.unlock,
      hashing,
      domains: registry,
      owners,
      audit,
    }),
    review: linkReview({ links, cache, domains: registry, blocklist, audit, now }),
    resolver: linkResolver({ links, cache }),
    countryOf: geo.country,
    cityOf: geo.city,
    changes: await followChanges({
      links,
      cache,
      // A reload that fails (the store is down) is tried again with the next domain entry, or the next start.
      domainsChanged: () => void domains.reload().catch((err: unknown) => deps.log.warn('domains not reloaded', { error: String(err) })),
    }),
    transfer: linkTransfer({ config, listening, blocklist, links, cache, registry, codes, now, readSqlite: foreignSqliteReader(config) }),
    screening,
    visits,
    recorder,
    salts,
    stats: visitStats({ visits: storage.visits, now, severalDomains: () => registry.several() }),
    domains,
    webhooks: webhookManagement({
      store: storage.webhooks,
      rules: urlRules(config, listening, blocklist),
      allowPrivate: config.webhookAllowPrivate,
      now,
      random,
      audit,
    }),
    deliveries: webhookDeliveries({
      store: storage.webhooks,
      linkById: (id) => links.linkById(id),
      presenter: { config, shortUrl: (link) => registry.shortUrl(link), registry, ownerName: (id) => users.nameOf(id) ?? null },
      config,
      now,
      random,
      log: deps.log,
    }),
    registry,
    shortUrl: (link) => registry.shortUrl(link),
    ownerName: (id) => users.nameOf(id) ?? null,
    databaseProblem: () => storage.problem(),
    cacheStats: () => cache.stats(),
    databaseBytes: () => storage.databaseBytes(),
    // The background writer's backlog, and this process's own while its writes fail.
    visitDetailDropped: () => storage.visitDetailDropped() + recorder.detailDropped,
  };
}
