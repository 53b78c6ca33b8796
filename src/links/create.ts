import { NO_PAGES, parsePages, storedPages, type PageSettings } from '../rules/page-settings.ts';
import { hash } from 'node:crypto';
import type { RedirectCache } from '../cache/redirect-cache.ts';
import type { PasswordHashing } from '../auth/passwords.ts';
import type { CodeGenerator } from '../codes/code-generator.ts';
import type { Config } from '../config.ts';
import type { Actor } from '../auth/actor.ts';
import { AppError } from '../core/errors.ts';
import type { DomainRegistry } from '../domains/registry.ts';
import { RESERVED_PATHS } from './reserved-paths.ts';
import type { LinkStore, LinkWriter } from '../store/ports.ts';
import { checkAlias, checkCodeLength } from './alias-rules.ts';
import { randomCode } from '../codes/random-code.ts';
import { DEFAULT_OPTIONS, type Link, type LinkOptions, type NewLink } from './link.ts';
import { isPlain, parseOptions } from './link-options.ts';
import type { BlocklistSource } from '../blocklist/blocklist.ts';
import { reviewOf } from './review-rules.ts';
import { normaliseUrl, refuseListed, type Listening, urlRules, type UrlRules } from './url-rules.ts';
import { parseSplit, type Variant } from '../rules/rule.ts';
import { storedSplit } from '../rules/stored.ts';

/**
 * A link as submitted: `url`, `alias` or `codeLength` (the length of its generated code), `domain` (a host;
 * the default domain when absent) and the option fields (link-options.ts), each unchecked.
 */
export type CreateLinkInput = Record<string, unknown> & { url: unknown; alias?: unknown; codeLength?: unknown; domain?: unknown };

export interface CreatedLink {
  link: Link;
  /** False when an identical earlier submission was returned instead (dedupe), or `withheld`. */
  created: boolean;
  /**
   * True when nothing was stored because the actor's earlier link of the same URL, `link`, was found for a
   * submission with options (only when asked, `CreateHow.ask`): the form offers to create a separate one anyway.
   */
  withheld?: boolean;
}

/** How a submission meets the actor's earlier link of the same URL (within the dedupe window, on its domain). */
export interface CreateHow {
  /** Create a new link whatever exists (the form's "create a separate link anyway"). */
  separate?: boolean;
  /** Look for an earlier link even when the submission has options (a title, tags…), and withhold it if found. */
  ask?: boolean;
}

/** What creation has done so far, for /metrics. */
export interface CreationStats {
  created: number;
  /** Submissions answered with an earlier link of the same URL. */
  deduplicated: number;
  /** Refused submissions, by error code and field ("code field", or the code alone): a bounded set. */
  refused: ReadonlyMap<string, number>;
}

export interface CreateDeps {
  config: Parameters<typeof urlRules>[0] & Pick<Config, 'dedupeWindow' | 'reviewNewLinks'>;
  listening?: Listening;
  blocklist?: BlocklistSource;
  now: () => number;
  random: (size: number) => Buffer;
  links: LinkStore;
  codes: CodeGenerator;
  cache: RedirectCache;
  hashing: PasswordHashing;
  domains: DomainRegistry;
  /**
   * Runs a creation's store-facing part somewhere else (a SQLite worker: in its primary, whose one group
   * commit takes every worker's creations); by default in this process's own write transaction.
   */
  storeCreation?: (write: CreationWrite) => Promise<CreatedLink>;
}

/**
 * What a creation stores, validated, in plain data (it may cross to another process): the link's fields,
 * and how the write transaction meets the actor's earlier links and taken codes.
 */
export interface CreationWrite {
  url: string;
  domain: number;
  options: Partial<LinkOptions>;
  passwordHash: string | null;
  review: 'pending' | null;
  /** The owner: the row records who created it. */
  createdBy: Actor;
  /** A bare URL: stored with its dedupe key, and answered with an earlier identical link when `lookUp`. */
  plain: boolean;
  /** Look for the owner's earlier link of the same URL within the dedupe window. */
  lookUp: boolean;
  /** The chosen alias; null for a generated code. */
  alias: string | null;
  /** The generated code's asked length; null for the usual one. */
  length: number | null;
  split: Variant[] | null;
  pages: PageSettings | null;
}

/** Ids tried before giving up when generated codes keep landing on aliases or reserved words (each try skips one id). */
const MAX_CODE_TRIES = 1000;

export type LinkCreation = ReturnType<typeof linkCreation>;

/** Creating a link: validation, dedupe, and a code that is never shared or reused. */
export function linkCreation({
  config,
  listening,
  blocklist,
  now,
  random,
  links,
  codes,
  cache,
  hashing,
  domains,
  storeCreation,
}: CreateDeps) {
  const rules = urlRules(config, listening, blocklist);
  const stats = { created: 0, deduplicated: 0, refused: new Map<string, number>() };

  async function insertWithAlias(tx: LinkWriter, link: NewLink): Promise<Link> {
    const alias = link.code;
    const id = await tx.insertLink(link, null);
    if (id === undefined) {
      const holder = await tx.linkByAddress(link.domain, alias);
      throw new AppError(
        'conflict',
        holder?.deletedAt
          ? `alias "${alias}" belonged to a deleted link; codes are never reused`
          : `alias "${alias}" is already taken${link.domain === 0 ? '' : ` on ${domains.hostOf(link.domain)}`}`,
        'alias',
      );
    }
    return newLink(id, link);
  }

  /**
   * Validates and stores a link owned by the actor, or returns the actor's earlier link of the same URL
   * within the dedupe window (never someone else's).
   * Resolves once the link is durably stored. Throws AppError for invalid input or a taken alias.
   */
  async function createLink(actor: Actor, input: CreateLinkInput, how: CreateHow = {}): Promise<CreatedLink> {
    try {
      const result = await create(actor, input, how);
      if (result.created) stats.created++;
      else if (!result.withheld) stats.deduplicated++;
      return result;
    } catch (err) {
      if (err instanceof AppError && err.code !== 'internal') {
        const reason = err.field === undefined ? err.code : `${err.code} ${err.field}`;
        stats.refused.set(reason, (stats.refused.get(reason) ?? 0) + 1);
      }
      throw err;
    }
  }

  async function create(actor: Actor, input: CreateLinkInput, how: CreateHow): Promise<CreatedLink> {
    const url = normaliseUrl(input.url, rules);
    const domain = domains.idOf(input.domain);
    domains.refuseClosed(actor, domain);
    const alias = input.alias === undefined ? undefined : checkAlias(input.alias, RESERVED_PATHS);
    const length = input.codeLength === undefined || input.codeLength === null ? undefined : checkCodeLength(input.codeLength);
    if (alias !== undefined && length !== undefined)
      throw new AppError('invalid', 'codeLength is the length of a generated code: give an alias or a codeLength, not both', 'codeLength');
    const given = parseOptions(input, now());
    const split = splitOf(input['split'], rules);
    const pages = input['pages'] === undefined || input['pages'] === null ? null : parsePages(input['pages']);
    // Only a bare URL is deduplicated: a link with options, a split, pages, an alias or a code length is what its author asked for.
    const plain = alias === undefined && length === undefined && split === null && pages === null && isPlain(given);
    // A chosen alias is never answered with another link; a separate link is asked for by name.
    const lookUp = alias === undefined && length === undefined && !how.separate && config.dedupeWindow > 0 && (plain || how.ask === true);
    const passwordHash = given.password ? await hashing.hash(given.password, random) : null;
    const review = reviewOf(actor, config.reviewNewLinks);
    const write: CreationWrite = {
      url,
      domain,
      options: given.options,
      passwordHash,
      review,
      createdBy: actor,
      plain,
      lookUp,
      alias: alias ?? null,
      length: length ?? null,
      split,
      pages,
    };
    const result = await (storeCreation ?? store)(write);
    // The address may be remembered as unknown (looked up before it existed).
    cache.forget(result.link.domain, result.link.code);
    return result;
  }

  /**
   * A creation's store-facing part, in the write transaction: the blocklist's last word, dedupe, the insert
   * under an alias or a generated code, the split and pages. Resolves once durably stored.
   */
  function store(write: CreationWrite): Promise<CreatedLink> {
    const { url, domain, plain, split, pages, alias, length } = write;
    return links.write(async (tx): Promise<CreatedLink> => {
      refuseListed(url, rules);
      for (const variant of split ?? []) refuseListed(variant.url, rules);
      const at = new Date(now());
      const urlHash = plain ? hashUrl(url) : null;
      const link = {
        ...DEFAULT_OPTIONS,
        ...write.options,
        domain,
        ownerId: write.createdBy.userId,
        url,
        urlHash,
        passwordHash: write.passwordHash,
        isAlias: alias !== null,
        createdAt: at,
        review: write.review,
        // The row records who created it: the audit trail's link.create entry, stored with the link itself.
        createdBy: write.createdBy,
      };
      if (write.lookUp) {
        const since = new Date(config.dedupeWindow === Number.POSITIVE_INFINITY ? 0 : at.getTime() - config.dedupeWindow);
        const existing = await tx.linkByUrlHash(urlHash ?? hashUrl(url), since, domain, link.ownerId, write.review !== null);
        if (existing) return plain ? { link: existing, created: false } : { link: existing, created: false, withheld: true };
      }
      const created =
        alias === null
          ? await insertWithGeneratedCode(tx, codes, link, length === null ? undefined : { length, random })
          : await insertWithAlias(tx, { ...link, code: alias });
      if (split !== null) {
        await tx.setSplit(created.id, storedSplit(split), at);
        created.split = split;
      }
      if (pages !== null) {
        await tx.setPages(created.id, storedPages(pages), at);
        created.pages = pages;
      }
      return { link: created, created: true };
    });
  }

  return {
    createLink,

    /** The store-facing part of a creation another process validated (a worker's, handed to its primary). */
    store,

    stats: (): CreationStats => stats,

    /**
     * Creates a link for each entry at once (the group commit stores them together, each in its own
     * savepoint) and answers in order: the link, or the AppError that refused that entry (`inputOf` may
     * throw one too). The valid ones are stored even when others fail; a failure that is no client's rejects.
     */
    createEach<T>(actor: Actor, entries: readonly T[], inputOf: (entry: T) => CreateLinkInput): Promise<Array<CreatedLink | AppError>> {
      return Promise.all(
        entries.map(async (entry) => {
          try {
            return await createLink(actor, inputOf(entry));
          } catch (err) {
            if (err instanceof AppError && err.code !== 'internal') return err;
            throw err;
          }
        }),
      );
    },
  };
}

/**
 * A link's own A/B split as given (`split`: 2 to 20 variants, checked as targets), null for none (absent or
 * null). Throws AppError('invalid') naming `split[i]…`.
 */
export function splitOf(input: unknown, rules: UrlRules): Variant[] | null {
  return input === undefined || input === null ? null : parseSplit(input, rules, 'split');
}

/** A generated code of a length asked for, and the randomness that draws it when the id's own code has another. */
export interface AskedLength {
  length: number;
  random: (size: number) => Buffer;
}

/**
 * Inserts under a generated code; a code already taken by an alias (on any domain: generated codes are
 * unique across all of them) costs that id, never a collision. With `asked`, the code has that length: the
 * id's own code when it has it, else a random one (no id's code can be made to have any length asked for),
 * held to the same rules: unique on every domain, never a retired code (a deleted link keeps its row), never
 * one of kurz's paths. Throws AppError('conflict') naming `codeLength` when no free code of that length turns up.
 */
export async function insertWithGeneratedCode(
  tx: LinkWriter,
  codes: CodeGenerator,
  link: Omit<NewLink, 'code'>,
  asked?: AskedLength,
): Promise<Link> {
  for (let tries = 0; tries < MAX_CODE_TRIES; tries++) {
    const id = await tx.takeLinkId();
    const own = codes.codeFor(id);
    const code = asked === undefined || own.length === asked.length ? own : randomCode(asked.length, asked.random);
    // A generated code could spell one of kurz's own paths ("healthz" is 7 base62 characters): skip it.
    if (RESERVED_PATHS.has(code.toLowerCase())) continue;
    if ((await tx.insertLink({ ...link, code }, id)) !== undefined) return newLink(id, { ...link, code });
  }
  if (asked !== undefined)
    throw new AppError(
      'conflict',
      `no free code of ${asked.length} characters turned up in ${MAX_CODE_TRIES} tries: ask for a longer one`,
      'codeLength',
    );
  throw new Error(`no free code after ${MAX_CODE_TRIES} ids`);
}

/** The dedupe key of a normalised URL. */
export function hashUrl(url: string): Buffer {
  return hash('sha256', url, 'buffer');
}

function newLink(id: number, { urlHash: _urlHash, createdBy: _createdBy, ...link }: NewLink): Link {
  return {
    ...link,
    id,
    updatedAt: link.createdAt,
    visitCount: 0,
    lastVisitAt: null,
    deletedAt: null,
    claimedVisits: 0,
    blocked: null,
    split: null,
    hasRules: false,
    pages: NO_PAGES,
  };
}
