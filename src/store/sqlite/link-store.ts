import { closeSync, fdatasync, openSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Database } from 'better-sqlite3';
import type { Link, LinkChange, LinkQuery, LinkRecord, NewLink, Target } from '../../links/link.ts';
import type { VisitCount } from '../../visits/visit.ts';
import type { LinkStore, LinkWriter } from '../ports.ts';
import { createGroupCommit } from './group-commit.ts';
import * as q from './queries.ts';

/** A link as SQLite returns it: 0/1 for the flag, milliseconds for times. */
interface LinkRow {
  id: number;
  code: string;
  url: string;
  createdAt: number;
  updatedAt: number;
  visitCount: number;
  lastVisitAt: number | null;
  deletedAt: number | null;
  isAlias: number;
}

/** Links read per query when all of them are exported. */
const PAGE = 1000;

export interface SqliteLinkStore extends LinkStore {
  /** Adds visit counts in one transaction that does not wait for the disk. */
  addVisits(counts: readonly VisitCount[]): Promise<void>;
  /** Resolves once every write handed over so far is committed and synced. */
  idle(): Promise<void>;
  /** Lets go of the write-ahead log `syncWal` keeps open; call when idle, before closing the database. */
  close(): void;
}

type Job = (tx: LinkWriter) => Promise<unknown>;

/**
 * The link store on one SQLite connection. Reads run at once; writes go through a group commit: the writes
 * of one turn of the event loop share one transaction and one disk sync, each in its own savepoint.
 */
export function createSqliteLinkStore(db: Database): SqliteLinkStore {
  const statement = <P extends unknown[], R = unknown>(sql: string) => db.prepare<P, R>(sql);
  const linkByCode = statement<[string], LinkRow>(q.LINK_BY_CODE);
  const targetByCode = statement<[string], { id: number; url: string; deleted: number }>(q.TARGET_BY_CODE);
  const linkById = statement<[number], LinkRow>(q.LINK_BY_ID);
  const linkIdsByUrlHash = statement<[Buffer, number], number>(q.LINK_IDS_BY_URL_HASH).pluck();
  const lastLinkId = statement<[], { seq: number }>(q.LAST_LINK_ID);
  const insertLink = db.prepare(q.INSERT_LINK);
  const addVisit = db.prepare(q.ADD_VISITS);
  const listLinks = statement<[{ search: string | null; limit: number; before: number; includeDeleted: number }], LinkRow>(q.LIST_LINKS);
  const allLinksPage = statement<[number, number], LinkRow>(q.ALL_LINKS_PAGE);
  const unvisitedLinks = statement<[number], LinkRow>(q.UNVISITED_LINKS);
  const deleteLink = db.prepare(q.DELETE_LINK);
  const importLink = db.prepare(q.IMPORT_LINK);
  const lastChange = statement<[], { seq: number }>(q.LAST_CHANGE);
  const changesAfter = statement<[number], LinkChange>(q.CHANGES_AFTER);
  const forgetChanges = db.prepare(q.FORGET_CHANGES_BEFORE);
  const syncLess = db.prepare(q.SYNC_WITHOUT_WAITING);
  const syncDurable = db.prepare(q.SYNC_DURABLE);
  const begin = db.prepare(q.BEGIN);
  const commit = db.prepare(q.COMMIT);
  const rollback = db.prepare(q.ROLLBACK);
  const savepoint = db.prepare(q.SAVEPOINT);
  const release = db.prepare(q.RELEASE);
  const rollbackTo = db.prepare(q.ROLLBACK_TO);

  const addVisits = (counts: Iterable<VisitCount>): void => {
    for (const c of counts) addVisit.run(c);
  };

  function targetAtOnce(code: string): Target | undefined {
    const row = targetByCode.get(code);
    return row && { id: row.id, url: row.url, deleted: row.deleted === 1 };
  }

  const writer: LinkWriter = {
    nextLinkId: async () => (lastLinkId.get()?.seq ?? 0) + 1,
    linkByCode: async (code) => toLink(linkByCode.get(code)),
    async linkByUrlHash(urlHash, since) {
      const ids = linkIdsByUrlHash.all(urlHash, since.getTime());
      return ids.length === 0 ? undefined : toLink(linkById.get(Math.max(...ids)));
    },
    insertLink: async (link: NewLink, id) =>
      unlessTaken(() => insertLink.run({ id, code: link.code, url: link.url, urlHash: link.urlHash, createdAt: link.createdAt.getTime() })),
    async importLink(record: LinkRecord, urlHash) {
      const id = unlessTaken(() =>
        importLink.run({
          code: record.code,
          url: record.url,
          urlHash,
          createdAt: record.createdAt.getTime(),
          updatedAt: record.updatedAt.getTime(),
          deletedAt: record.deletedAt?.getTime() ?? null,
        }),
      );
      if (id !== undefined && record.visitCount > 0) {
        addVisit.run({ id, count: record.visitCount, lastVisitAt: (record.lastVisitAt ?? record.createdAt).getTime() });
      }
      return id;
    },
    deleteLink: async (id, at) => deleteLink.run({ id, now: at.getTime() }).changes === 1,
    unvisitedSince: async (cutoff) => unvisitedLinks.all(cutoff.getTime()).map((row) => toLink(row)!),
  };

  /** One transaction for a batch of jobs, each in a savepoint; commits without waiting for the disk. */
  async function commitJobs(jobs: Job[]): Promise<unknown[]> {
    const results: unknown[] = [];
    syncLess.run();
    try {
      begin.run();
      for (const job of jobs) {
        savepoint.run();
        try {
          results.push(await job(writer));
        } catch (err) {
          rollbackTo.run();
          results.push(err instanceof Error ? err : new Error(String(err)));
        }
        release.run();
      }
      commit.run();
    } catch (err) {
      if (db.inTransaction) rollback.run();
      throw err;
    } finally {
      syncDurable.run();
    }
    return results;
  }

  let wal: number | undefined;
  /**
   * Waits, on libuv's thread pool rather than the event loop, until everything committed to the WAL so far
   * is on disk: the fdatasync a commit in synchronous=FULL mode would do inline. The WAL stays open from
   * the first call (one thread-pool job per sync); SQLite keeps the file until the last connection closes.
   */
  async function syncWal(): Promise<void> {
    if (db.memory) return;
    wal ??= openSync(`${db.name}-wal`, 'r');
    await syncFile(wal);
  }

  const writes = createGroupCommit<Job, unknown>(commitJobs, syncWal);

  const visitWrites = new Set<Promise<void>>();
  async function writeVisits(counts: readonly VisitCount[]): Promise<void> {
    while (db.inTransaction) await new Promise((resolve) => setImmediate(resolve));
    syncLess.run();
    try {
      db.transaction(addVisits).immediate(counts);
    } finally {
      syncDurable.run();
    }
  }

  return {
    linkByCode: async (code) => toLink(linkByCode.get(code)),

    targetByCode: async (code) => targetAtOnce(code),

    targetByCodeAtOnce: targetAtOnce,

    async listLinks(query: LinkQuery) {
      const search = query.search ? `%${query.search.replace(/[\\%_]/g, (c) => '\\' + c)}%` : null;
      const rows = listLinks.all({
        search,
        limit: query.limit,
        before: query.before ?? Number.MAX_SAFE_INTEGER,
        includeDeleted: query.includeDeleted ? 1 : 0,
      });
      return rows.map((row) => toLink(row)!);
    },

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

    forgetChangesUpTo: async (seq) => void forgetChanges.run(seq),

    /**
     * Visit counts do not wait for the disk: a power cut may cost the last flushes (visits wait in memory
     * that long anyway), but nothing queues behind an fsync. Written at once, unless a group commit holds
     * the connection's transaction; then on the next turn.
     */
    addVisits(counts) {
      const written = writeVisits(counts);
      visitWrites.add(written);
      void written.finally(() => visitWrites.delete(written)).catch(() => undefined);
      return written;
    },

    async idle() {
      await writes.idle();
      await Promise.allSettled([...visitWrites]);
    },

    close() {
      if (wal !== undefined) closeSync(wal);
      wal = undefined;
    },
  };
}

const syncFile = promisify(fdatasync);

function toLink(row: LinkRow | undefined): Link | undefined {
  if (!row) return undefined;
  return {
    id: row.id,
    code: row.code,
    url: row.url,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    visitCount: row.visitCount,
    lastVisitAt: row.lastVisitAt === null ? null : new Date(row.lastVisitAt),
    deletedAt: row.deletedAt === null ? null : new Date(row.deletedAt),
    isAlias: row.isAlias === 1,
  };
}

/** Runs an INSERT and returns the new id, or undefined when a UNIQUE constraint (the code) refused it. */
function unlessTaken(insert: () => { lastInsertRowid: number | bigint }): number | undefined {
  try {
    return Number(insert().lastInsertRowid);
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
    throw err;
  }
}
