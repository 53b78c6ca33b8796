import { hash } from 'node:crypto';
import type { RedirectCache } from '../cache/redirect-cache.ts';
import type { CodeGenerator } from '../codes/code-generator.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { RESERVED_PATHS } from '../reserved-paths.ts';
import type { LinkStore, LinkWriter } from '../store/ports.ts';
import { checkAlias } from './alias-rules.ts';
import type { Link } from './link.ts';
import { normaliseUrl, urlRules } from './url-rules.ts';

export interface CreateLinkInput {
  url: unknown;
  alias?: unknown;
}

export interface CreatedLink {
  link: Link;
  /** False when an identical earlier submission was returned instead (dedupe). */
  created: boolean;
}

export interface CreateDeps {
  config: Pick<Config, 'maxUrlLength' | 'publicUrl' | 'dedupeWindow'>;
  now: () => number;
  links: LinkStore;
  codes: CodeGenerator;
  cache: RedirectCache;
}

/** Ids tried before giving up when generated codes keep landing on aliases or reserved words (each try skips one id). */
const MAX_CODE_TRIES = 1000;

export type LinkCreation = ReturnType<typeof linkCreation>;

/** Creating a link: validation, dedupe, and a code that is never shared or reused. */
export function linkCreation({ config, now, links, codes, cache }: CreateDeps) {
  const rules = urlRules(config);

  /** Inserts under a generated code; a code already taken by an alias costs that id, never a collision. */
  async function insertWithGeneratedCode(tx: LinkWriter, url: string, urlHash: Buffer, at: Date): Promise<Link> {
    let id = await tx.nextLinkId();
    for (let tries = 0; tries < MAX_CODE_TRIES; tries++, id++) {
      const code = codes.codeFor(id);
      // A generated code could spell one of kurz's own paths ("healthz" is 7 base62 characters): skip it.
      if (RESERVED_PATHS.has(code.toLowerCase())) continue;
      if ((await tx.insertLink({ code, url, urlHash, createdAt: at }, id)) !== undefined) return newLink(id, code, url, at, false);
    }
    throw new Error(`no free code after ${MAX_CODE_TRIES} ids starting at ${id - MAX_CODE_TRIES}`);
  }

  async function insertWithAlias(tx: LinkWriter, alias: string, url: string, at: Date): Promise<Link> {
    const id = await tx.insertLink({ code: alias, url, urlHash: null, createdAt: at }, null);
    if (id === undefined) {
      const holder = await tx.linkByCode(alias);
      throw new AppError(
        'conflict',
        holder?.deletedAt ? `alias "${alias}" belonged to a deleted link; codes are never reused` : `alias "${alias}" is already taken`,
        'alias',
      );
    }
    return newLink(id, alias, url, at, true);
  }

  return {
    /**
     * Validates and stores a link, or returns the earlier link of the same URL within the dedupe window.
     * Resolves once the link is durably stored. Throws AppError for invalid input or a taken alias.
     */
    async createLink(input: CreateLinkInput): Promise<CreatedLink> {
      const url = normaliseUrl(input.url, rules);
      const alias = input.alias === undefined ? undefined : checkAlias(input.alias, RESERVED_PATHS);
      const result = await links.write(async (tx): Promise<CreatedLink> => {
        const at = new Date(now());
        if (alias !== undefined) return { link: await insertWithAlias(tx, alias, url, at), created: true };
        const urlHash = hashUrl(url);
        if (config.dedupeWindow > 0) {
          const since = new Date(config.dedupeWindow === Number.POSITIVE_INFINITY ? 0 : at.getTime() - config.dedupeWindow);
          const existing = await tx.linkByUrlHash(urlHash, since);
          if (existing) return { link: existing, created: false };
        }
        return { link: await insertWithGeneratedCode(tx, url, urlHash, at), created: true };
      });
      // The code may be remembered as unknown (looked up before it existed).
      cache.forget(result.link.code);
      return result;
    },
  };
}

/** The dedupe key of a normalised URL. */
export function hashUrl(url: string): Buffer {
  return hash('sha256', url, 'buffer');
}

function newLink(id: number, code: string, url: string, at: Date, isAlias: boolean): Link {
  return { id, code, url, createdAt: at, updatedAt: at, visitCount: 0, lastVisitAt: null, deletedAt: null, isAlias };
}
