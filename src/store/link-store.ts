import { closeSync, fdatasync, openSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Database } from 'better-sqlite3';
import * as q from './queries.ts';

export interface Link {
  id: number;
  code: string;
  url: string;
  createdAt: number;
  updatedAt: number;
  visitCount: number;
  lastVisitAt: number | null;
  deletedAt: number | null;
  /** 1 when the code was chosen by a person (never a dedupe target), else 0. */
  isAlias: number;
}

/** What a redirect needs, and nothing more. */
export interface Target {
  id: number;
  url: string;
  /** 1 for a deleted link: its code stays taken and answers 410. */
  deleted: number;
}

export interface LinkQuery {
  /** Substring of the code or URL. */
  search?: string | undefined;
  limit: number;
  /** Only links with a smaller id (the cursor of the previous page). */
  before?: number | undefined;
  includeDeleted?: boolean;
}

/** A link as exported and imported: everything but the id, which is local to one database. */
export type LinkRecord = Omit<Link, 'id'>;

export interface NewLink {
  code: string;
  url: string;
  /** Set only for links that later identical submissions may be deduplicated to. */
  urlHash: Buffer | null;
  now: number;
}

export interface VisitCount {
  id: number;
  count: number;
  lastVisitAt: number;
}

export type LinkStore = ReturnType<typeof createLinkStore>;

/** Reads and writes links. Every method runs synchronously on the caller's connection. */
export function createLinkStore(db: Database) {
  const linkByCode = db.prepare<[string], Link>(q.LINK_BY_CODE);
  const targetByCode = db.prepare<[string], Target>(q.TARGET_BY_CODE);
  const linkById = db.prepare<[number], Link>(q.LINK_BY_ID);
  const linkIdsByUrlHash = db.prepare<[Buffer, number], number>(q.LINK_IDS_BY_URL_HASH).pluck();
  const lastLinkId = db.prepare<[], { seq: number }>(q.LAST_LINK_ID);
  const insertLink = db.prepare<[NewLink & { id: number | null }]>(q.INSERT_LINK);
  const addVisits = db.prepare<[VisitCount]>(q.ADD_VISITS);
  const listLinks = db.prepare<[{ search: string | null; limit: number; before: number; includeDeleted: number }], Link>(q.LIST_LINKS);
  const allLinks = db.prepare<[], Link>(q.ALL_LINKS);
  const unvisitedLinks = db.prepare<[number], Link>(q.UNVISITED_LINKS);
  const deleteLink = db.prepare<[{ id: number; now: number }]>(q.DELETE_LINK);
  const importLink = db.prepare<[LinkRecord & { urlHash: Buffer | null }]>(q.IMPORT_LINK);
  const lastChange = db.prepare<[], { seq: number }>(q.LAST_CHANGE);
  const changesAfter = db.prepare<[number], { seq: number; code: string }>(q.CHANGES_AFTER);
  const forgetChanges = db.prepare<[number]>(q.FORGET_CHANGES_BEFORE);
  const syncLess = db.prepare(q.SYNC_WITHOUT_WAITING);
  const syncDurable = db.prepare(q.SYNC_DURABLE);
  const addAllVisits = db.transaction((counts: Iterable<VisitCount>) => {
    for (const c of counts) addVisits.run(c);
  });
  let wal: number | undefined;
  function withoutWaitingForDisk<T>(write: () => T): T {
    syncLess.run();
    try {
      return write();
    } finally {
      syncDurable.run();
    }
  }

  return {
    linkByCode: (code: string): Link | undefined => linkByCode.get(code),

    targetByCode: (code: string): Target | undefined => targetByCode.get(code),

    /** The newest deduplicable link with this URL hash created at or after `since`. */
    linkByUrlHash(urlHash: Buffer, since: number): Link | undefined {
      const ids = linkIdsByUrlHash.all(urlHash, since);
      return ids.length === 0 ? undefined : linkById.get(Math.max(...ids));
    },

    /** The id the next link will get, read inside the caller's write transaction. */
    nextLinkId: (): number => (lastLinkId.get()?.seq ?? 0) + 1,

    /**
     * Inserts a link with the given id (or the next AUTOINCREMENT one when null) and returns its id.
     * Returns undefined when the code is already taken; throws on any other failure.
     */
    insertLink: (link: NewLink, id: number | null): number | undefined => unlessTaken(() => insertLink.run({ ...link, id })),

    listLinks(query: LinkQuery): Link[] {
      const search = query.search ? `%${query.search.replace(/[\\%_]/g, (c) => '\\' + c)}%` : null;
      return listLinks.all({
        search,
        limit: query.limit,
        before: query.before ?? Number.MAX_SAFE_INTEGER,
        includeDeleted: query.includeDeleted ? 1 : 0,
      });
    },

    /** Every link, oldest first, read lazily. */
    allLinks: (): IterableIterator<Link> => allLinks.iterate(),

    unvisitedSince: (cutoff: number): Link[] => unvisitedLinks.all(cutoff),

    /** Marks a link deleted; false if it was already. */
    deleteLink: (id: number, now: number): boolean => deleteLink.run({ id, now }).changes === 1,

    /**
     * Inserts an imported link under its own code, with its visits, in the caller's transaction; undefined
     * when the code is taken. Throws on other failures.
     */
    importLink(record: LinkRecord, urlHash: Buffer | null): number | undefined {
      const id = unlessTaken(() => importLink.run({ ...record, urlHash }));
      if (id !== undefined && record.visitCount > 0) {
        addVisits.run({ id, count: record.visitCount, lastVisitAt: record.lastVisitAt ?? record.createdAt });
      }
      return id;
    },

    /** Sequence number of the newest entry in the change log. */
    lastChange: (): number => lastChange.get()?.seq ?? 0,

    /** Codes edited or deleted (by any process) after `seq`. */
    changesAfter: (seq: number): Array<{ seq: number; code: string }> => changesAfter.all(seq),

    forgetChangesUpTo: (seq: number): void => void forgetChanges.run(seq),

    /**
     * Runs `write` with commits that do not wait for the disk (the connection's default is to wait). Its
     * changes survive a crash of kurz but maybe not a power cut, until `syncWal` resolves.
     */
    withoutWaitingForDisk,

    /**
     * Waits, on libuv's thread pool rather than the event loop, until everything committed to the WAL so far
     * is on disk: the fdatasync that a commit in synchronous=FULL mode would have done inline. The WAL stays
     * open from the first call (one thread-pool job per sync instead of open, sync and close: 7-11% less CPU
     * per created link, measured); SQLite deletes or recreates it only when the last connection closes, and
     * this one is open until `close`.
     */
    async syncWal(): Promise<void> {
      if (db.memory) return;
      wal ??= openSync(`${db.name}-wal`, 'r');
      await syncFile(wal);
    },

    /** Lets go of the WAL that `syncWal` keeps open. Call with no sync in flight, before closing the database. */
    close(): void {
      if (wal !== undefined) closeSync(wal);
      wal = undefined;
    },

    /**
     * Adds buffered visit counts in one transaction, without waiting for the disk: a power cut may cost
     * the last flushes (visits wait in memory that long anyway), but redirects never queue behind an fsync.
     */
    addVisits(counts: Iterable<VisitCount>): void {
      withoutWaitingForDisk(() => addAllVisits.immediate(counts));
    },
  };
}

const syncFile = promisify(fdatasync);

/** Runs an INSERT and returns the new id, or undefined when a UNIQUE constraint (the code) refused it. */
function unlessTaken(insert: () => { lastInsertRowid: number | bigint }): number | undefined {
  try {
    return Number(insert().lastInsertRowid);
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
    throw err;
  }
}
