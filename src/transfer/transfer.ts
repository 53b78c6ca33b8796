import { storedSplit } from '../rules/stored.ts';
import type { RedirectCache } from '../cache/redirect-cache.ts';
import type { Config } from '../config.ts';
import type { Actor } from '../auth/actor.ts';
import { maySee } from '../links/manage.ts';
import { AppError } from '../core/errors.ts';
import { closedDomain } from '../domains/domain.ts';
import type { DomainRegistry } from '../domains/registry.ts';
import type { LinkStore } from '../store/ports.ts';
import { hashUrl } from '../links/create.ts';
import type { Link, LinkRecord } from '../links/link.ts';
import { isPlain } from '../links/link-options.ts';
import { reviewOf } from '../links/review-rules.ts';
import type { BlocklistSource } from '../blocklist/blocklist.ts';
import { normaliseUrl, refuseListed, urlRules, type Listening } from '../links/url-rules.ts';
import { parseRules, parseSplit, ruleJson, ruleTargets, type Rule, type RuleJson, type Variant } from '../rules/rule.ts';
import { rulesFromStored, storedRules } from '../rules/stored.ts';

export interface TransferDeps {
  config: Pick<Config, 'maxUrlLength' | 'publicUrl' | 'host' | 'port' | 'allowDomains' | 'denyDomains' | 'reviewNewLinks'>;
  listening?: Listening;
  blocklist?: BlocklistSource;
  links: LinkStore;
  cache: RedirectCache;
  registry: DomainRegistry;
}

/** A record read from an import file, with the line it starts on and its redirect rules as the file gives them (checked on import). */
export interface NumberedRecord {
  line: number;
  record: LinkRecord;
  rules: unknown;
}

/** A link as an export carries it: its record and its redirect rules as the API sets them, null for none. */
export type ExportedLink = LinkRecord & { rules: RuleJson[] | null };

export type LinkTransfer = ReturnType<typeof linkTransfer>;

/** Export and import of links, codes kept. */
export function linkTransfer({ config, listening, blocklist, links, cache, registry }: TransferDeps) {
  // Imported targets are checked like new ones: a link back to this instance would loop, whatever its origin.
  const rules = urlRules(config, listening, blocklist);

  /** A record's split checked as a link's own (naming the line), null for none. */
  function splitOfRecord(split: LinkRecord['split'], line: number): Variant[] | null {
    try {
      return split === null ? null : parseSplit(split, rules, 'split');
    } catch (err) {
      if (err instanceof AppError) throw new AppError('invalid', `line ${line}: ${err.message}`, err.field);
      throw err;
    }
  }

  /** A link as an export carries it: without what is the instance's own (id, owner, verdicts), with its rules. */
  async function exported(link: Link): Promise<ExportedLink> {
    const { id, ownerId: _owner, blocked: _blocked, review: _review, hasRules: _hasRules, ...record } = link;
    const stored = await links.linkRules(id);
    const rules =
      stored === null
        ? null
        : rulesFromStored(stored, (problem) => {
            throw new AppError('internal', `the stored rules of "${link.code}" cannot be read (${problem})`);
          }).map(ruleJson);
    return { ...record, rules };
  }

  return {
    /** A link's domain as a file names it: its host, null on the default domain (the importing instance's own). */
    fileDomain: (domain: number): string | null => (domain === 0 ? null : registry.hostOf(domain)),

    /** The domain id a file's `domain` names (null: the default domain). Throws AppError for one this instance lacks. */
    domainOfFile: (host: unknown): number => registry.idOf(host),

    /** Every link the actor sees (or those on `domain`, an id), oldest first, as exported. */
    async *exportLinks(actor: Actor, domain?: number): AsyncGenerator<ExportedLink> {
      for await (const link of links.allLinks()) {
        if ((domain !== undefined && link.domain !== domain) || !maySee(actor, link)) continue;
        yield await exported(link);
      }
    },

    /** The links chosen on the list (bulk.ts's chosenLinks, so the actor's), in their order, as exported. */
    async *exportChosen(chosen: readonly Link[]): AsyncGenerator<ExportedLink> {
      for (const link of chosen) yield await exported(link);
    },

    /**
     * Adds exported links under their own codes, all or nothing. A code already present with the same URL
     * is skipped (importing twice is harmless); with another URL it is a conflict and nothing is imported.
     * Errors name the line of the file. The links become the actor's, must be on domains the actor may use
     * (AppError 'forbidden', field `domain`), and wait for review as the actor's new links would
     * (`reviewNewLinks`). Each link's redirect rules are checked as `PUT …/rules` checks them, all before
     * anything is stored: a bad one is AppError('invalid') naming the line and the rule (`line 3: rules[1]…`).
     */
    async importLinks(actor: Actor, records: readonly NumberedRecord[]): Promise<{ imported: number; skipped: number }> {
      const ruled = new Map<number, Rule[]>();
      for (const { line, record, rules: given } of records) {
        if (!registry.mayUse(actor, record.domain))
          throw new AppError('forbidden', `line ${line}: ${closedDomain(registry.hostOf(record.domain)).message}`, 'domain');
        if (given === null || given === undefined) continue;
        try {
          const parsed = parseRules(given, rules);
          for (const url of ruleTargets(parsed)) refuseListed(url, rules);
          if (parsed.length > 0) ruled.set(line, parsed);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          throw new AppError(err.code, `line ${line} (code "${record.code}"): ${err.message}`, err.field);
        }
      }
      const review = reviewOf(actor, config.reviewNewLinks);
      const result = await links.write(async (tx) => {
        let imported = 0;
        let skipped = 0;
        for (const { line, record } of records) {
          let url: string;
          try {
            url = normaliseUrl(record.url, rules);
          } catch (err) {
            throw new AppError('invalid', `line ${line}: ${(err as Error).message}`, 'url');
          }
          if (url !== record.url) throw new AppError('invalid', `line ${line}: url is not in normalised form (expected ${url})`, 'url');
          // Like a new link, only a bare one (no alias, no options) is a target for later identical submissions.
          const split = splitOfRecord(record.split, line);
          const linkRules = ruled.get(line);
          const plain =
            !record.isAlias && split === null && linkRules === undefined && isPlain({ options: record, password: record.passwordHash });
          const id = await tx.importLink({ ...record, ownerId: actor.userId, review }, plain ? hashUrl(url) : null);
          if (id !== undefined) {
            if (split !== null) await tx.setSplit(id, storedSplit(split), record.updatedAt);
            if (linkRules !== undefined) await tx.setRules(id, storedRules(linkRules), record.updatedAt);
            imported++;
            continue;
          }
          const existing = await tx.linkByAddress(record.domain, record.code);
          // Someone else's link is named, never shown.
          if (existing && !maySee(actor, existing))
            throw new AppError('conflict', `line ${line}: code "${record.code}" is taken here`, 'code');
          if (existing?.url !== record.url) {
            throw new AppError(
              'conflict',
              `line ${line}: code "${record.code}" already exists here with another URL (${existing?.url})`,
              'code',
            );
          }
          skipped++;
        }
        return { imported, skipped };
      });
      for (const { record } of records) cache.forget(record.domain, record.code);
      return result;
    },
  };
}
