import type { CrawlableLink } from '../links/robots.ts';
import type { AuditEntry, AuditQuery, CreationQuery, CreationRow, NewAuditEntry } from '../audit/entry.ts';
import type { ApiKey, Session } from '../auth/identity.ts';
import type { Scope } from '../auth/scopes.ts';
import type { NewUser, StoredUser, UserEdit, UserUse } from '../auth/user.ts';
import type { Domain, DomainEdit, DomainUse, NewDomain } from '../domains/domain.ts';
import type {
  Block,
  Link,
  LinkChange,
  LinkEdit,
  LinkQuery,
  LinkRecord,
  LinkUrl,
  NewLink,
  Review,
  TagCount,
  Target,
} from '../links/link.ts';
import type { VisitBatch } from '../visits/rollup.ts';
import type { DimensionCount, DomainTally, LinkTally, StoredVisit, VisitTally } from '../visits/visit.ts';
import type { VisitEvents } from '../visits/visit-events.ts';
import type { VisitReceipt } from '../visits/visit-handover.ts';
import type { AttemptOutcome, Delivery, DueDelivery, NewDelivery, NewWebhook, RecordedEvent, Webhook } from '../webhooks/webhook.ts';

/**
 * The storage every backend implements: plain domain objects in and out, every method asynchronous. A
 * method that can fail for a reason other than "not found" rejects; "not found" is `undefined`.
 */
export interface Storage {
  links: LinkStore;
  domains: DomainStore;
  visits: VisitStore;
  settings: SettingsStore;
  access: AccessStore;
  audit: AuditStore;
  webhooks: WebhookStore;
  /**
   * What keeps the database from serving kurz now, as /healthz names it ('database unreachable', 'disk
   * full', 'read-only', 'locked by another program', 'I/O error'); undefined when nothing does. Never rejects.
   */
  problem(): Promise<string | undefined>;
  /** The database's size in bytes: SQLite's file and its write-ahead log; PostgreSQL's pg_database_size. */
  databaseBytes(): Promise<number>;
  /** Visits only counted since the start, their detail dropped, because too many waited for the background writer. */
  visitDetailDropped(): number;
  /** Writes what the store still holds (visits in a background writer) and lets go of the database. */
  close(): Promise<void>;
}

/** A visitor's answers to a link's form, as stored: their JSON (src/rules/page-settings.ts's FormAnswers). */
export interface StoredFormAnswer {
  id: number;
  /** Milliseconds since the epoch. */
  at: number;
  answers: string;
}

export interface LinkStore {
  /** The link with this id, deleted or not. */
  linkById(id: number): Promise<Link | undefined>;
  /** The link at this address (domain id and code), deleted or not. */
  linkByAddress(domain: number, code: string): Promise<Link | undefined>;
  /** The redirect's lookup: the fewest columns that answer it. Two arguments, not an address: nothing allocated per redirect. */
  targetByAddress(domain: number, code: string): Promise<Target | undefined>;
  /**
   * The same lookup answered at once, offered by a backend that needs no I/O wait for it (SQLite in this
   * process): a redirect missing the cache then costs no promise. A network backend leaves it out.
   */
  targetByAddressAtOnce?(domain: number, code: string): Target | undefined;
  /** The live links on this domain that robots.txt may allow (crawlable, enabled, not blocked, not in review), any time. */
  crawlableLinks(domain: number): Promise<CrawlableLink[]>;
  listLinks(query: LinkQuery): Promise<Link[]>;
  /** How many links `query` takes, without its cursor, offset and limit: a numbered list's total. */
  countLinks(query: LinkQuery): Promise<number>;
  /** Tags of live links (of one owner's, given their id), most used first. */
  tagCounts(owner?: number): Promise<TagCount[]>;
  /**
   * Takes one of the visits a link with maxVisits allows, durably, so that every process sees it; false
   * when they are used up (or the link has no limit).
   */
  claimVisit(id: number): Promise<boolean>;
  /** True while a link with maxVisits has visits left to claim. */
  hasVisitsLeft(id: number): Promise<boolean>;
  /** A link's page settings as stored (src/rules/page-settings.ts's JSON), null for the defaults. */
  linkPages(id: number): Promise<string | null>;
  /** Up to `limit` of a link's form answers with an id below `before`, newest first, and how many it has in all. */
  formAnswers(linkId: number, before: number, limit: number): Promise<{ answers: StoredFormAnswer[]; total: number }>;
  /** A link's redirect rules as stored (their JSON, src/rules/rule.ts's RuleJson list), null for none. */
  linkRules(id: number): Promise<string | null>;
  /** Every link, oldest first, read in pages. */
  allLinks(): AsyncIterable<Link>;
  /** Up to `limit` live links after the id `after`, by id: their targets and blocks (a blocklist scan's page). */
  liveUrlsAfter(after: number, limit: number): Promise<LinkUrl[]>;
  /** Live links the blocklist disabled. */
  blockedCount(): Promise<number>;
  /** Live links waiting for review. */
  pendingCount(): Promise<number>;
  /**
   * Runs `work` in one write transaction, serialised with every other write of this store, and resolves
   * with its result once the transaction is committed and durable (on disk, or on a quorum). If `work`
   * rejects, nothing it wrote is kept.
   */
  write<T>(work: (tx: LinkWriter) => Promise<T>): Promise<T>;
  /** Sequence number of the newest entry in the change log. */
  lastChange(): Promise<number>;
  /** Links edited, deleted or moved, and domains changed, by any process, after `seq`. */
  changesAfter(seq: number): Promise<LinkChange[]>;
  forgetChangesUpTo(seq: number): Promise<void>;
  /**
   * Calls `listener` with each change any process makes, as it happens, when the backend can push them
   * (PostgreSQL's LISTEN/NOTIFY); the change log stays the fallback for what a lost connection missed.
   */
  onChange?(listener: (change: Omit<LinkChange, 'seq'>) => void): void;
}

/** What a write transaction can do; reads inside it see its own writes. */
export interface LinkWriter {
  /**
   * Takes an id for a new link: each call gives one no link has had. An id taken but not inserted (its
   * code was taken) is skipped; ids need not be consecutive.
   */
  takeLinkId(): Promise<number>;
  linkByAddress(domain: number, code: string): Promise<Link | undefined>;
  /**
   * The newest live deduplicable link of `owner` on `domain` with this URL hash created at or after `since`;
   * one waiting for review only when `inReview` (its creator's links wait too).
   */
  linkByUrlHash(urlHash: Buffer, since: Date, domain: number, owner: number, inReview?: boolean): Promise<Link | undefined>;
  /**
   * Inserts with the given id (or the next one when null) and returns its id; undefined when the code is
   * taken on its domain, or, for a generated code (not an alias), on any domain: generated codes are unique
   * across all domains, so moving such a link never collides.
   */
  insertLink(link: NewLink, id: number | null): Promise<number | undefined>;
  /**
   * Adds to the rollups (hours, days, the owner's days, breakdowns) the visits another shortener logged for
   * links imported in this transaction; the links' counts are left as imported (importLink set them), and none
   * is a unique visitor (the log cannot tell).
   */
  addPastVisits(batch: Pick<VisitBatch, 'hours' | 'days' | 'dimensions' | 'dimensionDays'>): Promise<void>;
  /** Inserts an imported link under its own code on its domain, with its visits; undefined when the code is taken there. */
  importLink(record: LinkRecord & { ownerId: number; review: 'pending' | null }, urlHash: Buffer | null): Promise<number | undefined>;
  /**
   * Applies an edit merged into `link` (the stored one) at `at`; false if the link is deleted. An edit with
   * `domain` moves the link: it rejects with AppError('conflict') when its code is taken there.
   */
  updateLink(link: Link, edit: LinkEdit, urlHash: Buffer | null, at: Date): Promise<boolean>;
  /** Marks a link deleted; false if it was already. */
  deleteLink(id: number, at: Date): Promise<boolean>;
  /** Gives every link of the user `from` to the user `to`, deleted ones too (their figures go along); returns how many. */
  handOverLinks(from: number, to: number): Promise<number>;
  /**
   * Renames tag `from` to `to` on every link (of one owner's, given their id), deleted ones too; a link that has
   * both keeps one `to` (a merge). Returns how many links had `from`.
   */
  renameTag(from: string, to: string, owner: number | null): Promise<number>;
  /** Takes tag `tag` off every link (of one owner's, given their id), deleted ones too; returns how many had it. */
  deleteTag(tag: string, owner: number | null): Promise<number>;
  /**
   * Sets a live link's block (null clears it), unless its target is no longer `url` (edited since it was
   * read): false then, or when the link is deleted.
   */
  setBlock(id: number, url: string, block: Block | null): Promise<boolean>;
  /** Live links whose last visit (or creation, if never visited) is before `cutoff`. */
  unvisitedSince(cutoff: Date): Promise<Link[]>;
  /**
   * Moves a live link from the review state `from` to `to` (null: it may go live) at `at`; false when it is
   * deleted or no longer in `from`. A rejected link stops being a dedupe target.
   */
  setReview(id: number, from: Review | null, to: Review | null, at: Date): Promise<boolean>;
  /**
   * Sets a live link's redirect rules (their JSON, validated by the caller; null clears them) at `at`; false
   * when it is deleted. The link stops being a dedupe target.
   */
  setRules(id: number, rules: string | null, at: Date): Promise<boolean>;
  /**
   * Sets a live link's own A/B split (its JSON, validated by the caller; null removes it) at `at`; false when
   * it is deleted. The link stops being a dedupe target.
   */
  setSplit(id: number, split: string | null, at: Date): Promise<boolean>;
  /** Sets a live link's page settings (their JSON, validated by the caller; null: the defaults) at `at`; false when it is deleted. */
  setPages(id: number, pages: string | null, at: Date): Promise<boolean>;
  /** Stores a visitor's answers (their JSON) to a link's form, given at `at`. */
  addFormAnswer(linkId: number, at: Date, answers: string): Promise<void>;
  /** Deletes every answer to a link's form; returns how many. */
  deleteFormAnswers(linkId: number): Promise<number>;
}

/**
 * The short domains. Id 0, the default domain, always exists. A removed domain keeps its row (its deleted
 * links keep their domain and their figures) but no longer has a host: the host may be added again.
 */
export interface DomainStore {
  /** Every domain not removed, the default first, then by host; each with its live links. */
  listDomains(): Promise<DomainUse[]>;
  /** Stores a new domain; undefined when a domain not removed has this host. */
  insertDomain(domain: NewDomain): Promise<Domain | undefined>;
  /** Applies an edit; undefined when the domain does not exist (or was removed). */
  updateDomain(id: number, edit: DomainEdit): Promise<Domain | undefined>;
  /** Removes a domain no live link is on: 'removed', 'in_use' (live links are on it) or 'not_found'. */
  removeDomain(id: number, at: Date): Promise<'removed' | 'in_use' | 'not_found'>;
}

export interface VisitStore {
  /**
   * Takes a flush of visit events off the request path to be written elsewhere (SQLite: its background
   * writer process). Returns false when it cannot; the caller then records them itself. Events taken but
   * then not delivered are handed to `giveBack`.
   */
  offload(events: VisitEvents, giveBack: (events: VisitEvents) => void): boolean;
  /**
   * Writes a flush of classified visits in one transaction: the raw rows, the rollups (adding to what is
   * there, so writers never overwrite each other), each link's count, and the visitor hashes, where a
   * hash new for its link and day adds one unique visitor. `receipt` says how far the batch takes its
   * recorder; the SQLite background writer's store keeps it in the same transaction (see VisitHandover),
   * others ignore it.
   */
  addVisits(batch: VisitBatch, receipt?: VisitReceipt): Promise<void>;
  /**
   * Deletes the oldest raw visits before `before`, at most `limit`, and the visitor hashes and salts of days
   * before `visitorDaysBefore`; returns the visits deleted.
   */
  pruneVisits(before: Date, visitorDaysBefore: Date, limit: number): Promise<number>;
  /** Raw visits before `before`: what pruning would delete. */
  countVisitsBefore(before: Date): Promise<number>;
  /** The visitor hash's salt of `day` (the start of a UTC day), undefined when it has none (yet, or any more). */
  visitorSalt(day: number): Promise<Buffer | undefined>;
  /** Stores `salt` as `day`'s unless the day has one already (then that one stays): read it back after. */
  addVisitorSalt(day: number, salt: Buffer): Promise<void>;
  /** One link's rollup hours in [from, to), oldest first. */
  linkHours(linkId: number, from: Date, to: Date): Promise<VisitTally[]>;
  /** One link's breakdowns in [from, to): human visits per dimension and value ('' for unknown). */
  linkDimensions(linkId: number, from: Date, to: Date): Promise<DimensionCount[]>;
  /** Every link's visits per day in [from, to), oldest first; `owner`'s links' alone when given. */
  dayTotals(from: Date, to: Date, owner?: number): Promise<VisitTally[]>;
  /** The `limit` links with the most human visits in [from, to), both the start of a UTC day. */
  topLinks(from: Date, to: Date, limit: number, owner?: number): Promise<LinkTally[]>;
  /** Per domain (not removed): its live links and its links' human visits in [from, to), whole UTC days. */
  domainTotals(from: Date, to: Date): Promise<DomainTally[]>;
  /** Live links and all-time human and bot visits. */
  totals(owner?: number): Promise<{ links: number; humans: number; bots: number }>;
  /** The all-time human and bot visits of each of these links that has any (read from the hourly rollup). */
  linkTotals(linkIds: readonly number[]): Promise<LinkTotal[]>;
  /** Each tag of live links (`owner`'s alone when given): its links and their all-time human and bot visits, by tag. */
  tagTotals(owner?: number): Promise<TagTotal[]>;
  /**
   * A page of the raw visits kept of the live links `scope` names, newest first (`offset` skipped, `limit` at
   * most), and how many there are in all. Raw visits have no index by link: this reads the period's visits.
   */
  visitPage(scope: VisitScope, limit: number, offset: number): Promise<{ visits: ScopedVisit[]; total: number }>;
  /** Links created per day in [from, to); days without any are left out. */
  linksCreatedPerDay(from: Date, to: Date, owner?: number): Promise<Array<{ t: number; count: number }>>;
  /**
   * The same figures over whole hours in [from, to) (the dashboard's last 24 hours), read from the hourly
   * rollup across links: visits and links created per hour (hours without any left out), the `limit` top
   * links, and, with `byDomain`, each domain's (instance-wide, as domainTotals).
   */
  hourFigures(from: Date, to: Date, limit: number, owner: number | undefined, byDomain: boolean): Promise<HourFigures>;
  /** The raw visits in [from, to), oldest first, read in pages. */
  allVisits(from: Date, to: Date): AsyncIterable<StoredVisit>;
}

/** A link's all-time visits: what VisitStore.linkTotals reads. */
export interface LinkTotal {
  linkId: number;
  humans: number;
  bots: number;
}

/** Whose raw visits VisitStore.visitPage reads: of live links, each field given narrowing them, in [from, to) (ms). */
export interface VisitScope {
  linkId?: number | undefined;
  tag?: string | undefined;
  domain?: number | undefined;
  owner?: number | undefined;
  from: number;
  to: number;
  /** People's visits only (bots left out). */
  humansOnly: boolean;
}

/** A raw visit with where it went: its link's domain and target. */
export interface ScopedVisit extends StoredVisit {
  domain: number;
  url: string;
}

/** A tag's live links and their all-time visits: what VisitStore.tagTotals reads. */
export interface TagTotal {
  tag: string;
  links: number;
  humans: number;
  bots: number;
}

/** What VisitStore.hourFigures reads. */
export interface HourFigures {
  totals: VisitTally[];
  created: Array<{ t: number; count: number }>;
  topLinks: LinkTally[];
  domains: DomainTally[];
}

export interface SettingsStore {
  /** The stored value for `key`, storing `make()` first if there is none (the first writer wins). */
  settingOrInit(key: string, make: () => string): Promise<string>;
  /** The stored value for `key`, or undefined. */
  setting(key: string): Promise<string | undefined>;
  /** Stores `value` under `key`, durably, replacing any value. */
  setSetting(key: string, value: string): Promise<void>;
}

/** A key to store: its secret only as a hash; scopes space-separated in the store. */
export interface NewKey {
  userId: number;
  name: string;
  prefix: string;
  keyHash: string;
  scopes: readonly Scope[];
  createdAt: Date;
  expiresAt: Date | null;
}

/**
 * The users, their login sessions and API keys; sessions, keys and invitations are found by the SHA-256
 * (hex) of the secret the client holds.
 */
export interface AccessStore {
  /** Adds the first admin (id 1) with this name and password hash unless they exist. */
  ensureFirstAdmin(name: string, passwordHash: string | null, at: Date): Promise<void>;
  /** Sets a user's password hash only while they have none; false when one was set first. */
  setPasswordIfNone(id: number, passwordHash: string): Promise<boolean>;
  userById(id: number): Promise<StoredUser | undefined>;
  /** The user with this name, whatever its case. */
  userByName(name: string): Promise<StoredUser | undefined>;
  /** The user whose open invitation (or reset) has this hash, expired or not. */
  userByInvite(inviteHash: string): Promise<StoredUser | undefined>;
  /** Every user, the first admin first, then by name; each with their live links. */
  listUsers(): Promise<UserUse[]>;
  /** Stores a new user; undefined when the name is taken (whatever its case). */
  insertUser(user: NewUser): Promise<StoredUser | undefined>;
  /** Applies an edit; undefined when there is no such user. */
  updateUser(id: number, edit: UserEdit): Promise<StoredUser | undefined>;
  /** Ends every session of one user. */
  deleteUserSessions(userId: number): Promise<void>;
  insertSession(session: Session): Promise<void>;
  sessionByIdHash(idHash: string): Promise<Session | undefined>;
  touchSession(idHash: string, at: Date): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Removes sessions idle since `idleBefore` or begun before `createdBefore`. */
  deleteExpiredSessions(idleBefore: Date, createdBefore: Date): Promise<void>;
  deleteAllSessions(): Promise<void>;
  /** Stores a new key; undefined when a live key already has this name. */
  insertKey(key: NewKey): Promise<ApiKey | undefined>;
  keyByHash(keyHash: string): Promise<ApiKey | undefined>;
  /** One user's keys, or with undefined everyone's. */
  listKeys(userId?: number): Promise<ApiKey[]>;
  /** Revokes the user's live key with this name; false if there is none. */
  revokeKey(userId: number, name: string, at: Date): Promise<boolean>;
  /** Records a use of the key: when, and from which client address. */
  touchKey(id: number, at: Date, from: string): Promise<void>;
}

/** The audit trail's entries. */
export interface AuditStore {
  /** Stores an entry, durably; returns its id. */
  insertAudit(entry: NewAuditEntry): Promise<number>;
  /** Entries matching `query`, newest first (by time, then id), at most `query.limit`. */
  listAudit(query: AuditQuery): Promise<AuditEntry[]>;
  /** The link creations that links record, matching `query`, newest first (by time, then link id), at most `query.limit`. */
  listCreations(query: CreationQuery): Promise<CreationRow[]>;
  /** Deletes entries before `before`, and clears the creation records of links created before it; returns how many. */
  pruneAudit(before: Date): Promise<number>;
  /** Entries and creation records before `before`: what pruning would delete. */
  countAuditBefore(before: Date): Promise<number>;
}

/**
 * The users' webhooks, the events waiting for them and their deliveries. The events are recorded by the
 * database itself (triggers on links and visits, in the transaction of the change), only for owners with a
 * hook that asks for them, whatever process made the change.
 */
export interface WebhookStore {
  /** One user's hooks, or with undefined everyone's, oldest first. */
  listWebhooks(userId?: number): Promise<Webhook[]>;
  webhookById(id: number): Promise<Webhook | undefined>;
  insertWebhook(hook: NewWebhook): Promise<Webhook>;
  /** Turns the hook `id` of `userId` on or off; false when that user has no such hook. */
  setWebhookEnabled(id: number, userId: number, enabled: boolean): Promise<boolean>;
  /** Deletes the hook `id` of `userId` and its deliveries; false when that user has no such hook. */
  deleteWebhook(id: number, userId: number): Promise<boolean>;
  /** The oldest `limit` events recorded and not yet turned into deliveries. */
  pendingEvents(limit: number): Promise<RecordedEvent[]>;
  /**
   * In one transaction, stores `deliveries` and removes the events `eventIds`; false, keeping nothing, when
   * another process removed one of those events first (it made their deliveries).
   */
  addDeliveries(eventIds: readonly number[], deliveries: readonly NewDelivery[]): Promise<boolean>;
  /** Deliveries of enabled hooks whose next attempt is at or before `now`, oldest first, at most `limit`. */
  dueDeliveries(now: Date, limit: number): Promise<DueDelivery[]>;
  /**
   * Takes a due delivery for one attempt by moving its next attempt from `due` to `until` (when another
   * process may try it, should this one die while sending); false when another process took it first.
   */
  claimDelivery(id: number, due: Date, until: Date): Promise<boolean>;
  /** Stores what an attempt ended with, counting it. */
  recordAttempt(id: number, outcome: AttemptOutcome): Promise<void>;
  /** A hook's newest `limit` deliveries, newest first. */
  deliveriesOf(hookId: number, limit: number): Promise<Delivery[]>;
  /** Deletes deliveries created before `before` that are done (delivered or given up); returns how many. */
  pruneDeliveries(before: Date): Promise<number>;
}
