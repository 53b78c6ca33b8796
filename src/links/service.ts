import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { RedirectCache } from '../cache.ts';
import type { CodeGenerator } from '../codes/code-generator.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import type { Link, LinkStore, Target } from '../store/link-store.ts';
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

/** Ids tried before giving up when generated codes keep landing on aliases (each try skips one id). */
const MAX_CODE_TRIES = 1000;

export type LinkService = ReturnType<typeof createLinkService>;

/** Link rules on top of the store: validation, code assignment, dedupe, and the cached redirect lookup. */
export function createLinkService(deps: LinkServiceDeps) {
  const { config, links, codes, cache } = deps;
  const rules: UrlRules = { maxLength: config.maxUrlLength, ownHost: new URL(config.publicUrl).host };

  /** Inserts under a generated code; a code already taken by an alias costs that id, never a collision. */
  function insertWithGeneratedCode(url: string, urlHash: Buffer, now: number): Link {
    let id = links.nextLinkId();
    for (let tries = 0; tries < MAX_CODE_TRIES; tries++, id++) {
      const code = codes.codeFor(id);
      if (links.insertLink({ code, url, urlHash, now }, id) !== undefined) {
        return { id, code, url, createdAt: now, updatedAt: now, visitCount: 0, lastVisitAt: null };
      }
    }
    throw new Error(`no free code after ${MAX_CODE_TRIES} ids starting at ${id - MAX_CODE_TRIES}`);
  }

  function insertWithAlias(alias: string, url: string, now: number): Link {
    const id = links.insertLink({ code: alias, url, urlHash: null, now }, null);
    if (id === undefined) throw new AppError('conflict', `alias "${alias}" is already taken`, 'alias');
    return { id, code: alias, url, createdAt: now, updatedAt: now, visitCount: 0, lastVisitAt: null };
  }

  const create = deps.db.transaction((url: string, alias: string | undefined, now: number): CreatedLink => {
    if (alias !== undefined) return { link: insertWithAlias(alias, url, now), created: true };
    const urlHash = createHash('sha256').update(url).digest();
    if (config.dedupeWindow > 0) {
      const since = config.dedupeWindow === Number.POSITIVE_INFINITY ? 0 : now - config.dedupeWindow;
      const existing = links.linkByUrlHash(urlHash, since);
      if (existing) return { link: existing, created: false };
    }
    return { link: insertWithGeneratedCode(url, urlHash, now), created: true };
  });

  return {
    /** Validates and stores a link. Throws AppError for invalid input or a taken alias. */
    createLink(input: CreateLinkInput): CreatedLink {
      const url = normaliseUrl(input.url, rules);
      const alias = input.alias === undefined ? undefined : checkAlias(input.alias, deps.reserved);
      const result = create.immediate(url, alias, deps.now());
      cache.forget(result.link.code);
      return result;
    },

    linkByCode: (code: string): Link | undefined => links.linkByCode(code),

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
