import type { CrawlableLink } from '../../links/robots.ts';
import { closeSync, fdatasync, openSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Database, Statement } from 'better-sqlite3';
import type { Durability } from '../../config.ts';
import { unknownDomain } from '../../domains/domain.ts';
import { AppError } from '../../core/errors.ts';
import { createLogger, type Logger } from '../../core/log.ts';
import {
  type Link,
  type LinkChange,
  type LinkEdit,
  type LinkOptions,
  type LinkQuery,
  type LinkRecord,
  type ListOrder,
  type ListSort,
  type NewLink,
  type Target,
} from '../../links/link.ts';
import { storedPages } from '../../rules/page-settings.ts';
import { listAsk, type ListAsk } from '../list-ask.ts';
import { toLink, toLinkUrl, toTarget, type DomainRow, type LinkRow, type LinkUrlRow, type TargetRow } from '../rows.ts';
import { storedPreview } from '../../links/preview.ts';
import type { LinkStore, LinkWriter, StoredFormAnswer } from '../ports.ts';
import { creatorColumns } from '../audit-rows.ts';
import { createGroupCommit } from '../group-commit.ts';
import { connectionSync } from './database.ts';
import { outsideTransaction, waitingForLock } from './outside-transaction.ts';
import * as q from './queries.ts';
import { rollupWrites } from './rollup-writes.ts';
import { faultOf, type WriteHealth } from './write-health.ts';

/** The list's named parameters (sqlite/queries.ts listLinks): a ListAsk as SQLite binds it. */
type ListParams = Omit<ListAsk, 'tags' | 'excludeTags' | 'includeDeleted' | 'blocked' | 'after'> & {
  /** JSON. */
  tags: string | null;
  excludeTags: string | null;
  includeDeleted: number;
  blocked: number;
  /** The cursor's link id (0 for none). */
  before: number;
  visits: number;
};

/** A ListAsk as SQLite binds it. */
function listParams({ after, tags, excludeTags, includeDeleted, blocked, ...rest }: ListAsk): ListParams {
  return {
    ...rest,
    tags: tags === null ? null : JSON.stringify(tags),
    excludeTags: excludeTags === null ? null : JSON.stringify(excludeTags),
    includeDeleted: includeDeleted ? 1 : 0,
    blocked: blocked ? 1 : 0,
    before: after?.id ?? 0,
    visits: after?.visits ?? 0,
  };
}

/** Links read per query when all of them are exported. */
const PAGE = 1000;

export interface SqliteLinkStore extends LinkStore {
  /** Resolves once every write handed over so far is committed and synced. */
  idle(): Promise<void>;
  /** Lets go of the write-ahead log `syncWal` keeps open; call when idle, before closing the database. */
  close(): void;
}

type Job = (tx: LinkWriter) => Promise<unknown>;

/**
 * The link store on one SQLite connection. Reads run at once; writes go through a group commit: the writes
 * of one turn of the event loop share one transaction and, with durability full, one disk sync, each in its
 * own savepoint. `durability` is the one the connection was opened with. A batch that fails for a fault of
 * the file (disk full, read-only, locked past the wait) rejects every job with the 503 `health` makes of
 * it, and stores none of them.
 */
export function createSqliteLinkStore(
  db: Database,
  health: WriteHealth,
  durability: Durability = 'full',
  log: Pick<Logger, 'error'> = createLogger(process.stderr),
): SqliteLinkStore {
  const statement = <P extends unknown[], R = unknown>(sql: string) => db.prepare<P, R>(sql);
  const linkByAddress = statement<[string, number], LinkRow>(q.LINK_BY_ADDRESS);
  const liveDomain = statement<[number], DomainRow>(q.DOMAIN_BY_ID);
  const targetByAddress = statement<[string, number], TargetRow>(q.TARGET_BY_ADDRESS);
  const crawlableLinks = statement<[number], CrawlableLink>(q.CRAWLABLE_LINKS);
  const linkById = statement<[number], LinkRow>(q.LINK_BY_ID);
  const linkIdsByUrlHash = statement<[Buffer, number, number, number, number], number>(q.LINK_IDS_BY_URL_HASH).pluck();
  const lastLinkId = statement<[], { seq: number }>(q.LAST_LINK_ID);
  const insertLink = db.prepare(q.INSERT_LINK);
  const insertGeneratedLink = db.prepare(q.INSERT_GENERATED_LINK);
  const rollups = rollupWrites(db);
  /** The list's statements, one per order and first or later page, prepared when first asked for. */
  const lists = new Map<string, Statement<[ListParams], LinkRow>>();
  const listIn = (sort: ListSort, order: ListOrder, paged: boolean): Statement<[ListParams], LinkRow> => {
    const key = `${sort} ${order} ${paged}`;
    let found = lists.get(key);
    if (found === undefined) lists.set(key, (found = statement<[ListParams], LinkRow>(q.listLinks(sort, order, paged))));
    return found;
  };
  const countLinks = statement<[ListParams], number>(q.COUNT_LINKS).pluck();
  const tagCounts = statement<[{ owner: number | null }], { tag: string; count: number }>(q.TAG_COUNTS);
  const deleteTags = db.prepare<[number]>(q.DELETE_TAGS);
  const insertTag = db.prepare<[number, string]>(q.INSERT_TAG);
  const updateLink = db.prepare(q.UPDATE_LINK);
  const claimVisit = db.prepare<[number]>(q.CLAIM_VISIT);
  const hasVisitsLeft = statement<[number], number>(q.HAS_VISITS_LEFT).pluck();
  const allLinksPage = statement<[number, number], LinkRow>(q.ALL_LINKS_PAGE);
  const unvisitedLinks = statement<[number], LinkRow>(q.UNVISITED_LINKS);
  const deleteLink = db.prepare(q.DELETE_LINK);
  const handOverLinks = db.prepare<[{ from: number; to: number }]>(q.HAND_OVER_LINKS);
  const addRenamedTag = db.prepare<[{ from: string; to: string; owner: number | null }]>(q.ADD_RENAMED_TAG);
  const deleteTag = db.prepare<[{ tag: string; owner: number | null }]>(q.DELETE_TAG);
  const liveLinkUrls = statement<[number, number], LinkUrlRow>(q.LIVE_LINK_URLS_PAGE);
  const setBlock = db.prepare(q.SET_BLOCK);
  const blockedCount = statement<[], number>(q.BLOCKED_COUNT).pluck();
  const setReview = db.prepare(q.SET_REVIEW);
  const linkRules = statement<[number], string | null>(q.LINK_RULES).pluck();
  const setPreview = db.prepare<[{ id: number; preview: string | null }]>(q.SET_PREVIEW);
  const setRules = db.prepare<[{ id: number; rules: string | null; at: number }]>(q.SET_RULES);
  const setSplit = db.prepare<[{ id: number; split: string | null; at: number }]>(q.SET_SPLIT);
  const linkPages = statement<[number], string | null>(q.LINK_PAGES).pluck();
  const setPages = db.prepare<[{ id: number; pages: string | null; at: number }]>(q.SET_PAGES);
  const addFormAnswer = db.prepare<[{ linkId: number; at: number; answers: string }]>(q.ADD_FORM_ANSWER);
  const formAnswersPage = statement<[number, number, number], StoredFormAnswer>(q.FORM_ANSWERS_PAGE);
  const formAnswerCount = statement<[number], number>(q.FORM_ANSWER_COUNT).pluck();
  const deleteFormAnswers = db.prepare<[number]>(q.DELETE_FORM_ANSWERS);
  const pendingCount = statement<[], number>(q.PENDING_COUNT).pluck();
  const importLink = db.prepare(q.IMPORT_LINK);
  const lastChange = statement<[], { seq: number }>(q.LAST_CHANGE);
  const changesAfter = statement<[number], LinkChange>(q.CHANGES_AFTER);
  const forgetChanges = db.prepare(q.FORGET_CHANGES_BEFORE);
  const syncLess = db.prepare(q.SYNC_WITHOUT_WAITING);
  const syncDefault = db.prepare(connectionSync(durability));
  const begin = db.prepare(q.BEGIN);
  const commit = db.prepare(q.COMMIT);
  const rollback = db.prepare(q.ROLLBACK);
  const savepoint = db.prepare(q.SAVEPOINT);
  const release = db.prepare(q.RELEASE);
  const rollbackTo = db.prepare(q.ROLLBACK_TO);

  function targetAtOnce(domain: number, code: string): Target | undefined {
    const row = targetByAddress.get(code, domain);
    return row && toTarget(row, log);
  }

  /** Throws AppError('invalid') unless the domain exists (and was not removed): a link never lands on none. */
  function checkDomain(domain: number): void {
    if (domain !== 0 && !liveDomain.get(domain)) throw unknownDomain(String(domain));
  }

  function setTags(id: number, tags: readonly string[]): void {
    deleteTags.run(id);
    for (const tag of tags) insertTag.run(id, tag);
  }

  /**
   * The highest id given or inserted in the current transaction; undefined at its start. Every insert into
   * links in it goes through the writer, so the sequence is asked once per transaction.
   */
  let taken: number | undefined;
  const inserted = (id: number | undefined): void => {
    if (id !== undefined && taken !== undefined) taken = Math.max(taken, id);
  };

  const writer: LinkWriter = {
    async takeLinkId() {
      // Under the write lock: the sequence is what inserts committed, and no other connection writes meanwhile.
      taken = (taken ?? lastLinkId.get()?.seq ?? 0) + 1;
      return taken;
    },
    linkByAddress: async (domain, code) => toLink(linkByAddress.get(code, domain)),
    async linkByUrlHash(urlHash, since, domain, owner, inReview = false) {
      const ids = linkIdsByUrlHash.all(urlHash, since.getTime(), domain, owner, inReview ? 1 : 0);
      return ids.length === 0 ? undefined : toLink(linkById.get(Math.max(...ids)));
    },
    async insertLink(link: NewLink, id) {
      checkDomain(link.domain);
      // A generated code is unique across all domains (the statement inserts nothing when one has it); an alias only within its own.
      const params = { id, ...newLinkParams(link, link.urlHash), ...creatorColumns(link.createdBy) };
      const newId = unlessTaken(() => (link.isAlias ? insertLink : insertGeneratedLink).run(params));
      inserted(newId);
      if (newId !== undefined) for (const tag of link.tags) insertTag.run(newId, tag);
      if (newId !== undefined && link.preview !== null) setPreview.run({ id: newId, preview: storedPreview(link.preview) });
      return newId;
    },
    async addPastVisits(sums) {
      rollups.addSums(sums);
    },
    async importLink(record: LinkRecord & { ownerId: number; review: 'pending' | null }, urlHash) {
      checkDomain(record.domain);
      const id = unlessTaken(() =>
        importLink.run({
          ...newLinkParams(record, urlHash),
          updatedAt: record.updatedAt.getTime(),
          deletedAt: record.deletedAt?.getTime() ?? null,
          claimedVisits: record.claimedVisits,
        }),
      );
      inserted(id);
      if (id !== undefined) for (const tag of record.tags) insertTag.run(id, tag);
      if (id !== undefined && record.preview !== null) setPreview.run({ id, preview: storedPreview(record.preview) });
      const pages = record.pages === undefined ? null : storedPages(record.pages);
      if (id !== undefined && pages !== null) setPages.run({ id, pages, at: record.updatedAt.getTime() });
      if (id !== undefined && record.visitCount > 0) {
        rollups.addLinkVisits([{ id, count: record.visitCount, lastVisitAt: (record.lastVisitAt ?? record.createdAt).getTime() }]);
      }
      return id;
    },
    async updateLink(link: Link, edit: LinkEdit, urlHash: Buffer | null, at: Date) {
      const merged = { ...link, ...edit };
      if (merged.domain !== link.domain) {
        checkDomain(merged.domain);
        if (linkByAddress.get(link.code, merged.domain))
          throw new AppError('conflict', `the code "${link.code}" is already taken on the domain it would move to`, 'domain');
      }
      const changed = updateLink.run({
        id: link.id,
        ...optionParams(merged),
        url: merged.url,
        urlHash,
        domain: merged.domain,
        ownerId: merged.ownerId,
        updatedAt: at.getTime(),
      });
      if (changed.changes === 0) return false;
      if (edit.tags !== undefined) setTags(link.id, edit.tags);
      if (edit.preview !== undefined) setPreview.run({ id: link.id, preview: storedPreview(edit.preview) });
      return true;
    },
    deleteLink: async (id, at) => deleteLink.run({ id, now: at.getTime() }).changes === 1,
    handOverLinks: async (from, to) => handOverLinks.run({ from, to }).changes,
    renameTag: async (from, to, owner) => {
      addRenamedTag.run({ from, to, owner });
      return deleteTag.run({ tag: from, owner }).changes;
    },
    deleteTag: async (tag, owner) => deleteTag.run({ tag, owner }).changes,
    setBlock: async (id, url, block) =>
      setBlock.run({ id, url, rule: block?.rule ?? null, list: block?.list ?? null, at: block?.at.getTime() ?? null }).changes === 1,
    unvisitedSince: async (cutoff) => unvisitedLinks.all(cutoff.getTime()).map((row) => toLink(row)!),
    setReview: async (id, from, to, at) => setReview.run({ id, from, to, at: at.getTime() }).changes === 1,
    setRules: async (id, rules, at) => setRules.run({ id, rules, at: at.getTime() }).changes === 1,
    setSplit: async (id, split, at) => setSplit.run({ id, split, at: at.getTime() }).changes === 1,
    setPages: async (id, pages, at) => setPages.run({ id, pages, at: at.getTime() }).changes === 1,
    addFormAnswer: async (linkId, at, answers) => void addFormAnswer.run({ linkId, at: at.getTime(), answers }),
    deleteFormAnswers: async (linkId) => deleteFormAnswers.run(linkId).changes,
  };

  /** One transaction for a batch of jobs, each in a savepoint; commits without waiting for the disk. */
  async function commitJobs(jobs: Job[]): Promise<unknown[]> {
    const results: unknown[] = [];
    try {
      await beginWithoutSync();
    } catch (err) {
      throw health.failed(err);
    }
    try {
      taken = undefined;
      for (const job of jobs) {
        savepoint.run();
        try {
          results.push(await job(writer));
        } catch (err) {
          // A fault of the file fails the batch: SQLite may have undone the whole transaction already.
          if (faultOf(err, db.name) !== undefined || !db.inTransaction) throw err;
          rollbackTo.run();
          results.push(err instanceof Error ? err : new Error(String(err)));
        }
        release.run();
      }
      commit.run();
    } catch (err) {
      if (db.inTransaction) rollback.run();
      throw health.failed(err);
    } finally {
      syncDefault.run();
    }
    return results;
  }

  /** BEGIN IMMEDIATE in synchronous=NORMAL (the caller restores the connection's mode after COMMIT), waiting for the lock on timers. */
  function beginWithoutSync(): Promise<void> {
    return waitingForLock(db, () => {
      syncLess.run();
      try {
        begin.run();
      } catch (err) {
        syncDefault.run();
        throw err;
      }
    });
  }

  let wal: number | undefined;
  /**
   * Waits, on libuv's thread pool rather than the event loop, until everything committed to the WAL so far
   * is on disk: the fdatasync a commit in synchronous=FULL mode would do inline. The WAL stays open from
   * the first call (one thread-pool job per sync); SQLite keeps the file until the last connection closes.
   */
  async function syncWal(): Promise<void> {
    if (db.memory) return;
    try {
      wal ??= openSync(`${db.name}-wal`, 'r');
      await syncFile(wal);
    } catch (err) {
      const failed = health.failed(err);
      if (!(failed instanceof AppError)) throw failed;
      // Committed, perhaps not on disk: whether the batch is kept is not known.
      throw new AppError(
        'unavailable',
        `the database could not be synced to disk (${health.fault}); what was sent may or may not be stored: look before sending it again`,
      );
    }
  }

  // With durability process, a commit is in the OS's page cache, which outlives a crash of kurz: done.
  const writes = createGroupCommit<Job, unknown>(commitJobs, durability === 'full' ? syncWal : async () => undefined);

  return {
    linkById: async (id) => toLink(linkById.get(id)),
    linkByAddress: async (domain, code) => toLink(linkByAddress.get(code, domain)),

    targetByAddress: async (domain, code) => targetAtOnce(domain, code),

    targetByAddressAtOnce: targetAtOnce,

    crawlableLinks: async (domain) => crawlableLinks.all(domain),

    async listLinks(query: LinkQuery) {
      const ask = listAsk(query);
      return listIn(ask.sort, ask.order, ask.after !== null)
        .all(listParams(ask))
        .map((row) => toLink(row)!);
    },

    countLinks: async (query: LinkQuery) => countLinks.get(listParams(listAsk(query))) ?? 0,

    tagCounts: async (owner) => tagCounts.all({ owner: owner ?? null }),

    claimVisit: (id) => writes.run(async () => claimVisit.run(id).changes === 1) as Promise<boolean>,

    hasVisitsLeft: async (id) => hasVisitsLeft.get(id) === 1,

    linkRules: async (id) => linkRules.get(id) ?? null,

    linkPages: async (id) => linkPages.get(id) ?? null,

    formAnswers: async (linkId, before, limit) => ({
      answers: formAnswersPage.all(linkId, before, limit),
      total: formAnswerCount.get(linkId) ?? 0,
    }),

    liveUrlsAfter: async (after, limit) => liveLinkUrls.all(after, limit).map(toLinkUrl),

    blockedCount: async () => blockedCount.get() ?? 0,

    pendingCount: async () => pendingCount.get() ?? 0,

    async *allLinks() {
      for (let after = 0; ;) {
        const rows = allLinksPage.all(after, PAGE);
        for (const row of rows) yield toLink(row)!;
        if (rows.length < PAGE) return;
        after = rows.at(-1)!.id;
      }
    },

    write: <T>(work: (tx: LinkWriter) => Promise<T>) => writes.run(work) as Promise<T>,

    lastChange: async () => lastChange.get()?.seq ?? 0,

    changesAfter: async (seq) => changesAfter.all(seq),

    forgetChangesUpTo: (seq) => outsideTransaction(db, health, () => void forgetChanges.run(seq)),

    async idle() {
      await writes.idle();
    },

    close() {
      if (wal !== undefined) closeSync(wal);
      wal = undefined;
    },
  };
}

const syncFile = promisify(fdatasync);

/** The option columns as SQLite stores them. */
function optionParams(o: LinkOptions & { passwordHash: string | null }) {
  return {
    title: o.title,
    note: o.note,
    expiresAt: o.expiresAt?.getTime() ?? null,
    maxVisits: o.maxVisits,
    passwordHash: o.passwordHash,
    redirectStatus: o.redirectStatus,
    forwardQuery: o.forwardQuery === null ? null : o.forwardQuery ? 1 : 0,
    enabled: o.enabled ? 1 : 0,
    startsAt: o.startsAt?.getTime() ?? null,
    crawlable: o.crawlable ? 1 : 0,
  };
}

function newLinkParams(link: Omit<NewLink, 'urlHash' | 'createdBy'>, urlHash: Buffer | null) {
  return {
    domain: link.domain,
    ownerId: link.ownerId,
    code: link.code,
    url: link.url,
    urlHash,
    isAlias: link.isAlias ? 1 : 0,
    createdAt: link.createdAt.getTime(),
    review: link.review,
    ...optionParams(link),
  };
}

/** Runs an INSERT and returns the new id, or undefined when it inserted nothing or a UNIQUE constraint (the code) refused it. */
function unlessTaken(insert: () => { changes: number; lastInsertRowid: number | bigint }): number | undefined {
  try {
    const result = insert();
    return result.changes === 0 ? undefined : Number(result.lastInsertRowid);
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
    throw err;
  }
}
