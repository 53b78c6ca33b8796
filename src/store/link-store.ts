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
}

/** What a redirect needs, and nothing more. */
export interface Target {
  id: number;
  url: string;
}

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
  const linkByUrlHash = db.prepare<[Buffer, number], Link>(q.LINK_BY_URL_HASH);
  const lastLinkId = db.prepare<[], { seq: number }>(q.LAST_LINK_ID);
  const insertLink = db.prepare<[NewLink & { id: number | null }]>(q.INSERT_LINK);
  const addVisits = db.prepare<[VisitCount]>(q.ADD_VISITS);

  return {
    linkByCode: (code: string): Link | undefined => linkByCode.get(code),

    targetByCode: (code: string): Target | undefined => targetByCode.get(code),

    /** The newest deduplicable link with this URL hash created at or after `since`. */
    linkByUrlHash: (urlHash: Buffer, since: number): Link | undefined => linkByUrlHash.get(urlHash, since),

    /** The id the next link will get, read inside the caller's write transaction. */
    nextLinkId: (): number => (lastLinkId.get()?.seq ?? 0) + 1,

    /**
     * Inserts a link with the given id (or the next AUTOINCREMENT one when null) and returns its id.
     * Returns undefined when the code is already taken; throws on any other failure.
     */
    insertLink(link: NewLink, id: number | null): number | undefined {
      try {
        return Number(insertLink.run({ ...link, id }).lastInsertRowid);
      } catch (err) {
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
        throw err;
      }
    },

    /** Adds buffered visit counts in one transaction. */
    addVisits: db.transaction((counts: Iterable<VisitCount>) => {
      for (const c of counts) addVisits.run(c);
    }),
  };
}
