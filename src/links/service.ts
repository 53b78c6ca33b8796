import { hash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { RedirectCache } from '../cache.ts';
import type { CodeGenerator } from '../codes/code-generator.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import type { Link, LinkQuery, LinkRecord, LinkStore, Target } from '../store/link-store.ts';
import { checkAlias } from './alias-rules.ts';
import { normaliseUrl, type UrlRules } from './url-rules.ts';

export interface CreateLinkInput {
  url: unknown;
  alias?: unknown;
}

export interface CreatedLink {
  link: Link;
  /** False when an identical earlier submission was returned instead (dedupe). */
  created: boolean;
}

export interface LinkServiceDeps {
  config: Config;
  now: () => number;
  db: Database;
  links: LinkStore;
  codes: CodeGenerator;
  cache: RedirectCache;
  /** Top-level paths an alias may not take. */
  reserved: ReadonlySet<string>;
}

/** Ids tried before giving up when generated codes keep landing on aliases or reserved words (each try skips one id). */
const MAX_CODE_TRIES = 1000;

/** Change-log entries kept behind the newest one, for processes that poll less often. */
const CHANGES_KEPT = 10_000;

export type LinkService = ReturnType<typeof createLinkService>;

const NOTHING_AHEAD = { first: 0, codes: [] };

function newLink(id: number, code: string, url: string, now: number, isAlias: boolean): Link {
  return { id, code, url, createdAt: now, updatedAt: now, visitCount: 0, lastVisitAt: null, deletedAt: null, isAlias: isAlias ? 1 : 0 };
}

/** What is said of a code no link has: one wording for the API, the pages, the CLI and the redirect. */
export function notFoundMessage(code: string): string {
  return `no link with code "${code}"`;
}

/** The error for a code no link has. */
export function linkNotFound(code: string): AppError {
  return new AppError('not_found', notFoundMessage(code));
}

/** The dedupe key of a normalised URL. */
function hashUrl(url: string): Buffer {
  return hash('sha256', url, 'buffer');
}

/** Link rules on top of the store: validation, code assignment, dedupe, and the cached redirect lookup. */
export function createLinkService(deps: LinkServiceDeps) {
  const { config, links, codes, cache } = deps;
  const rules: UrlRules = { maxLength: config.maxUrlLength, ownHost: new URL(config.publicUrl).host };
  let lastChange = links.lastChange();
  /**
   * The codes of the ids a batch of creations will take, computed together before it starts: FF1 costs one
   * AES call per round however many codes it computes, ~1 µs each. Empty outside a batch.
   */
  let ahead: { first: number; codes: string[] } = NOTHING_AHEAD;

  function codeFor(id: number): string {
    return ahead.codes[id - ahead.first] ?? codes.codeFor(id);
  }

  /** Inserts under a generated code; a code already taken by an alias costs that id, never a collision. */
  function insertWithGeneratedCode(url: string, urlHash: Buffer, now: number): Link {
    let id = links.nextLinkId();
    for (let tries = 0; tries < MAX_CODE_TRIES; tries++, id++) {
      const code = codeFor(id);
      // A generated code could spell one of kurz's own paths ("healthz" is 7 base62 characters): skip it.
      if (deps.reserved.has(code.toLowerCase())) continue;
      if (links.insertLink({ code, url, urlHash, now }, id) !== undefined) {
        return newLink(id, code, url, now, false);
      }
    }
    throw new Error(`no free code after ${MAX_CODE_TRIES} ids starting at ${id - MAX_CODE_TRIES}`);
  }

  function insertWithAlias(alias: string, url: string, now: number): Link {
    const id = links.insertLink({ code: alias, url, urlHash: null, now }, null);
    if (id === undefined) throw new AppError('conflict', `alias "${alias}" is already taken`, 'alias');
    return newLink(id, alias, url, now, true);
  }

  /**
   * Validates and stores one link. Runs inside a transaction; it writes at most one row, and only as its
   * last step, so a refusal (AppError) leaves nothing behind and needs no savepoint.
   */
  function insert(input: CreateLinkInput, now: number): CreatedLink {
    const url = normaliseUrl(input.url, rules);
    let result: CreatedLink;
    if (input.alias !== undefined) {
      result = { link: insertWithAlias(checkAlias(input.alias, deps.reserved), url, now), created: true };
    } else {
      const urlHash = hashUrl(url);
      const since = config.dedupeWindow === Number.POSITIVE_INFINITY ? 0 : now - config.dedupeWindow;
      const existing = config.dedupeWindow > 0 ? links.linkByUrlHash(urlHash, since) : undefined;
      result = existing ? { link: existing, created: false } : { link: insertWithGeneratedCode(url, urlHash, now), created: true };
    }
    cache.forget(result.link.code);
    return result;
  }

  const createOne = deps.db.transaction(insert);

  const createMany = deps.db.transaction((inputs: readonly CreateLinkInput[], now: number): Array<CreatedLink | AppError> => {
    // An input takes one id, or none (a dedupe hit); a code skipped past takes another, computed alone.
    const first = links.nextLinkId();
    ahead = { first, codes: codes.codesFor(first, inputs.length) };
    try {
      return inputs.map((input) => {
        try {
          return insert(input, now);
        } catch (err) {
          if (err instanceof AppError) return err;
          throw err;
        }
      });
    } finally {
      ahead = NOTHING_AHEAD;
    }
  });

  const pruneTx = deps.db.transaction((age: number, dryRun: boolean): Link[] => {
    const now = deps.now();
    const stale = links.unvisitedSince(now - age);
    if (!dryRun) {
      for (const link of stale) {
        links.deleteLink(link.id, now);
        cache.forget(link.code);
      }
    }
    return stale;
  });

  const importTx = deps.db.transaction((records: readonly LinkRecord[]): { imported: number; skipped: number } => {
    let imported = 0;
    let skipped = 0;
    for (const [i, record] of records.entries()) {
      const fail = (message: string) => new AppError('invalid', `record ${i + 1}: ${message}`, 'url');
      let url: string;
      try {
        url = normaliseUrl(record.url, { ...rules, ownHost: '' });
      } catch (err) {
        throw fail((err as Error).message);
      }
      if (url !== record.url) throw fail(`url is not in normalised form (expected ${url})`);
      if (links.importLink(record, record.isAlias ? null : hashUrl(url)) !== undefined) {
        imported++;
        cache.forget(record.code);
        continue;
      }
      const existing = links.linkByCode(record.code);
      if (existing?.url !== record.url) {
        throw new AppError(
          'conflict',
          `record ${i + 1}: code "${record.code}" already exists here with another URL (${existing?.url})`,
          'code',
        );
      }
      skipped++;
    }
    return { imported, skipped };
  });

  return {
    /** Validates and stores a link. Throws AppError for invalid input or a taken alias. */
    createLink: (input: CreateLinkInput): CreatedLink => createOne.immediate(input, deps.now()),

    /**
     * Stores many links in one transaction that commits without waiting for the disk: answer none of them
     * before `synced()` resolved (createBatcher does this). Each input gets its result or its own AppError
     * (a refused one never undoes the others); any other failure throws and stores none.
     */
    createLinks: (inputs: readonly CreateLinkInput[]): Array<CreatedLink | AppError> =>
      links.withoutWaitingForDisk(() => createMany.immediate(inputs, deps.now())),

    /** Resolves once every commit so far is on disk. */
    synced: (): Promise<void> => links.syncWal(),

    linkByCode: (code: string): Link | undefined => links.linkByCode(code),

    /** The link with this code, deleted or not. Throws AppError('not_found'). */
    existingLink(code: string): Link {
      const link = links.linkByCode(code);
      if (!link) throw linkNotFound(code);
      return link;
    },

    listLinks: (query: LinkQuery): Link[] => links.listLinks(query),

    /** Marks the link deleted: its code keeps answering, with 410. Throws AppError('not_found'). */
    deleteLink(code: string): { link: Link; deleted: boolean } {
      const link = this.existingLink(code);
      const deleted = links.deleteLink(link.id, deps.now());
      cache.forget(code);
      return { link, deleted };
    },

    /** Links nobody visited (or created, if never visited) in the last `age` ms; deleted unless `dryRun`. */
    prune: (age: number, dryRun: boolean): Link[] => pruneTx.immediate(age, dryRun),

    /** Every link, oldest first, as exported. */
    *exportLinks(): Generator<LinkRecord> {
      for (const { id: _id, ...record } of links.allLinks()) yield record;
    },

    /**
     * Adds exported links under their own codes, all or nothing. A code already present with the same URL
     * is skipped (importing twice is harmless); with another URL it is a conflict and nothing is imported.
     */
    importLinks: (records: readonly LinkRecord[]): { imported: number; skipped: number } => importTx.immediate(records),

    /** Drops cached targets that any process (a CLI command, another worker) changed since the last call. */
    syncChanges(): void {
      const changes = links.changesAfter(lastChange);
      if (changes.length === 0) return;
      for (const c of changes) cache.forget(c.code);
      lastChange = changes.at(-1)?.seq ?? lastChange;
      // Keep a generous tail for processes that poll later than this one.
      links.forgetChangesUpTo(lastChange - CHANGES_KEPT);
    },

    /** The redirect lookup: cache first, then the store; unknown codes are remembered briefly. */
    targetByCode(code: string): Target | undefined {
      const cached = cache.get(code);
      if (cached !== undefined) return cached ?? undefined;
      const target = links.targetByCode(code);
      cache.remember(code, target);
      return target;
    },

    shortUrl: (code: string): string => `${config.publicUrl}/${code}`,
  };
}
