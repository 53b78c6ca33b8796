import type { AuditTrail } from './audit/audit.ts';
import type { CityOf, CountryOf } from './visits/geo.ts';
import type { Access } from './auth/access.ts';
import type { Users } from './auth/users.ts';
import type { SingleSignOn } from './auth/sso.ts';
import type { PasswordHashing } from './auth/passwords.ts';
import type { RateLimits } from './auth/rate-limits.ts';
import type { CacheStats } from './cache/redirect-cache.ts';
import type { Config } from './config.ts';
import type { DomainManagement } from './domains/manage.ts';
import type { DomainRegistry } from './domains/registry.ts';
import type { Renderer } from './http/respond.ts';
import type { Pipeline } from './http/pipeline.ts';
import type { LinkCreation } from './links/create.ts';
import type { LinkAddress } from './links/link.ts';
import type { LinkManagement } from './links/manage.ts';
import type { LinkResolver } from './links/resolve.ts';
import type { LinkReview } from './links/review.ts';
import type { LinkScreening } from './blocklist/screening.ts';
import type { LinkTransfer } from './transfer/transfer.ts';
import type { Listening } from './links/url-rules.ts';
import type { Logger } from './core/log.ts';
import type { VisitStats } from './visits/stats.ts';
import type { VisitBuffer } from './visits/visit-buffer.ts';
import type { VisitRecorder } from './visits/visit-recorder.ts';
import type { VisitorSalts } from './visits/visitor-salts.ts';
import type { WebhookDeliveries } from './webhooks/deliver.ts';
import type { WebhookManagement } from './webhooks/manage.ts';

/** The domain's use cases on one storage: what the CLI commands and the HTTP handlers work with. */
export interface Services {
  config: Config;
  now: () => number;
  random: (size: number) => Buffer;
  log: Logger;
  /** Where the server listens, once it does: the URL rules refuse targets there. */
  listening: Listening;
  /** The per-client rate limits, and their refusal counts. */
  limits: RateLimits;
  /** The slow password hashes this process runs at once, and the checks refused for want of a slot. */
  hashing: PasswordHashing;
  /** Who did what: recorded by the use cases, read by admins, pruned after auditRetentionDays. */
  audit: AuditTrail;
  access: Access;
  /** The people on this kurz: adding them, their roles and states, their one-time links. */
  users: Users;
  /** A user's id by name, for handing links over. */
  owners: { idOf(name: unknown): Promise<number>; nameOf(id: number): string | null };
  /** OpenID Connect single sign-on; undefined when oidcIssuer is empty. */
  sso: SingleSignOn | undefined;
  creation: LinkCreation;
  links: LinkManagement;
  /** The review queue: links waiting for an admin (reviewNewLinks), approved or rejected. */
  review: LinkReview;
  resolver: LinkResolver;
  /** The country of a client address (the configured GeoIP database's answer), for the redirect rules; null when unknown. */
  countryOf: CountryOf;
  /** The city of a client address (a configured GeoIP city database's answer), for the redirect rules; null when unknown. */
  cityOf: CityOf;
  /** Drops cached links that another process changed; polled by the server. */
  changes: { poll(): Promise<void> };
  transfer: LinkTransfer;
  /** The blocklist in force, its reloads, and the scan that disables links to listed targets. */
  screening: LinkScreening;
  /** The request path's visit events. */
  visits: VisitBuffer;
  /** Classifies and writes visits in this process (when no background writer takes them). */
  recorder: VisitRecorder;
  /** The visitor hash's daily salts (visits/visitor-salts.ts): the visits' unique count and A/B splits draw from them. */
  salts: VisitorSalts;
  stats: VisitStats;
  /** The short domains: adding, editing, removing. */
  domains: DomainManagement;
  /** Each user's webhooks: adding, testing, deleting, their delivery log. */
  webhooks: WebhookManagement;
  /** The delivery of webhooks: run by the process that does the periodic work (app.ts), never a worker. */
  deliveries: WebhookDeliveries;
  /** Every domain in this process's memory: Host to domain, host to id, a link's short URL. */
  registry: DomainRegistry;
  shortUrl(link: LinkAddress): string;
  /** The name of the user with this id (a link's owner); null for one not read yet. */
  ownerName(id: number): string | null;
  /** What keeps the database from serving ('disk full', 'database unreachable', …); undefined when nothing does. */
  databaseProblem(): Promise<string | undefined>;
  /** What the redirect cache has answered, and holds. */
  cacheStats(): CacheStats;
  /** The database's size in bytes (see Storage.databaseBytes). */
  databaseBytes(): Promise<number>;
  /** See Storage.visitDetailDropped. */
  visitDetailDropped(): number;
}

/** What the edge and the Koa handlers add to the services. */
export interface WebServices extends Services {
  render: Renderer;
  pipeline: Pipeline;
  /** The text /metrics answers: this process's metrics, or in a worker every process's added up. */
  scrapeMetrics(): Promise<string>;
}
