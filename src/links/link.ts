/** A short link as the domain sees it, whatever stores it. */
export interface Link {
  id: number;
  code: string;
  url: string;
  createdAt: Date;
  updatedAt: Date;
  visitCount: number;
  lastVisitAt: Date | null;
  deletedAt: Date | null;
  /** True when a person chose the code: such a link is never a dedupe target. */
  isAlias: boolean;
}

/** What a redirect needs, and nothing more. */
export interface Target {
  id: number;
  url: string;
  /** A deleted link keeps its code, which answers 410. */
  deleted: boolean;
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

/** A link about to be stored under a generated code or an alias. */
export interface NewLink {
  code: string;
  url: string;
  /** Set only for links that later identical submissions may be deduplicated to. */
  urlHash: Buffer | null;
  createdAt: Date;
}

/** An edit or deletion of a link, as the change log records it for every process's cache. */
export interface LinkChange {
  seq: number;
  code: string;
}

/** What is said of a code no link has: one wording for the API, the pages, the CLI and the redirect. */
export function notFoundMessage(code: string): string {
  return `no link with code "${code}"`;
}

/** What is said of a code whose link was deleted. */
export function goneMessage(code: string): string {
  return `the link "${code}" was deleted; its code is not reused`;
}
