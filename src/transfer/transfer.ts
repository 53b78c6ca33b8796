import { storedSplit } from '../rules/stored.ts';
import type { RedirectCache } from '../cache/redirect-cache.ts';
import type { Config } from '../config.ts';
import type { Actor } from '../auth/actor.ts';
import { maySee } from '../links/manage.ts';
import { AppError } from '../core/errors.ts';
import { closedDomain } from '../domains/domain.ts';
import type { DomainRegistry } from '../domains/registry.ts';
import type { LinkStore, LinkWriter } from '../store/ports.ts';
import { hashUrl, insertWithGeneratedCode } from '../links/create.ts';
import type { Link, LinkAddress, LinkRecord } from '../links/link.ts';
import type { CodeGenerator } from '../codes/code-generator.ts';
import { RESERVED_PATHS } from '../links/reserved-paths.ts';
import type { ExportedLink, NumberedRecord, PastVisit } from './records.ts';
import { rollUp } from '../visits/rollup.ts';
import { readImportFile, type ImportFile, type ReadFile, type SqliteReader } from './sources.ts';
import { isPlain } from '../links/link-options.ts';
import { reviewOf } from '../links/review-rules.ts';
import type { BlocklistSource } from '../blocklist/blocklist.ts';
import { normaliseUrl, refuseListed, urlRules, type Listening } from '../links/url-rules.ts';
import { parseRules, parseSplit, ruleJson, ruleTargets, type Rule, type Variant } from '../rules/rule.ts';
import { rulesFromStored, storedRules } from '../rules/stored.ts';

export interface TransferDeps {
  config: Pick<Config, 'maxUrlLength' | 'publicUrl' | 'host' | 'port' | 'allowDomains' | 'denyDomains' | 'reviewNewLinks'>;
  listening?: Listening;
  blocklist?: BlocklistSource;
  links: LinkStore;
  cache: RedirectCache;
  registry: DomainRegistry;
  codes: CodeGenerator;
  now: () => number;
  readSqlite: SqliteReader;
}

/** What becomes of one line of an import file. */
export interface LineOutcome {
  line: number;
  /** Its code here: the file's, a generated one, or for a skipped URL without a code, the link that has it. */
  code: string;
  /** The domain (id) of that code. */
  domain: number;
  url: string;
  action: 'import' | 'skip';
  /** Why it is skipped; null when imported. */
  reason: string | null;
}

/** What an import did (or, rehearsed, would do): counts, and each line's outcome in the file's order. */
export interface ImportReport {
  imported: number;
  skipped: number;
  lines: LineOutcome[];
}

/** Whose file it is (see importLinks), and whether to store anything. */
export interface ImportHow {
  from: 'kurz' | 'peer';
  dryRun?: boolean;
}

/**
 * The rollups of the visits another shortener logged for the link `linkId`, each a person's (a log keeps no
 * verdict on bots kurz could trust), without the link's count, which the file gives.
 */
function pastRollups(linkId: number, visits: readonly PastVisit[]) {
  const details = { bot: null, browser: null, os: null, device: null, language: null, visitor: null, variant: null, rule: null };
  const { hours, days, dimensions, dimensionDays } = rollUp(
    visits.map((v) => ({ ...details, linkId, at: v.at, referrer: v.referrer, country: v.country })),
    false,
  );
  return { hours, days, dimensions, dimensionDays };
}

/** Carries a rehearsal's report out of the transaction it rolls back. */
class Rehearsed extends Error {
  readonly report: ImportReport;
  constructor(report: ImportReport) {
    super('rehearsed');
    this.report = report;
  }
}

export type LinkTransfer = ReturnType<typeof linkTransfer>;

/** Export and import of links, codes kept. */
export function linkTransfer({ config, listening, blocklist, links, cache, registry, codes, now, readSqlite }: TransferDeps) {
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

  /** The domain id a file's `domain` names (null: the default domain). Throws AppError for one this instance lacks. */
  function domainOfFile(host: unknown): number {
    return registry.idOf(host);
  }

  /** Stores a link of a file without a code under a generated one, its options kept; a bare one is a dedupe target. */
  function insertGenerated(tx: LinkWriter, actor: Actor, record: LinkRecord, url: string, review: 'pending' | null): Promise<Link> {
    const { title, note, tags, startsAt, expiresAt, maxVisits, redirectStatus, forwardQuery, enabled, preview, crawlable } = record;
    const options = { title, note, tags, startsAt, expiresAt, maxVisits, redirectStatus, forwardQuery, enabled, preview, crawlable };
    return insertWithGeneratedCode(tx, codes, {
      ...options,
      domain: record.domain,
      ownerId: actor.userId,
      url,
      urlHash: isPlain({ options, password: null }) ? hashUrl(url) : null,
      passwordHash: null,
      isAlias: false,
      createdAt: record.createdAt,
      review,
      createdBy: actor,
    });
  }

  /** `code "x"`, with its host off the default domain. */
  function named(record: LinkAddress): string {
    return `code "${record.code}"${record.domain === 0 ? '' : ` on ${registry.hostOf(record.domain)}`}`;
  }

  /** Why a record's code, taken here by `existing` with another URL (or by someone else's link), cannot be imported. */
  function takenReason(actor: Actor, record: LinkAddress, existing: Link | undefined): string {
    // Someone else's link is named, never shown.
    if (existing && !maySee(actor, existing)) return `${named(record)} is taken here`;
    if (existing?.deletedAt) return `${named(record)} belonged to a link deleted here; codes are never reused`;
    return `${named(record)} already exists here with another URL (${existing?.url})`;
  }

  return {
    /** A link's domain as a file names it: its host, null on the default domain (the importing instance's own). */
    fileDomain: (domain: number): string | null => (domain === 0 ? null : registry.hostOf(domain)),

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

    /** Reads a whole file of any source into checked records (sources.ts's readImportFile, with this kurz's domains). */
    readFile: (file: ImportFile): ReadFile =>
      readImportFile(file, { reserved: RESERVED_PATHS, domainOf: domainOfFile, now: new Date(now()), readSqlite }),

    /**
     * Adds the links of a file under their own codes (or generated ones, for `generated` records), all or
     * nothing, and says what became of each line. A code already present with the same URL is skipped
     * (importing twice is harmless); with another URL, kurz's own export (`from: 'kurz'`) is a conflict and
     * nothing is imported, while another shortener's link is skipped with the reason: nothing is ever
     * overwritten. A link without a code is skipped when the actor has a bare link of its URL. Errors name
     * the line of the file. The links become the actor's, must be on domains the actor may use (AppError
     * 'forbidden', field `domain`), and wait for review as the actor's new links would (`reviewNewLinks`).
     * Each link's redirect rules are checked as `PUT …/rules` checks them, all before anything is stored: a
     * bad one is AppError('invalid') naming the line and the rule (`line 3: rules[1]…`). Kurz's own export
     * must hold its URLs normalised; another shortener's are normalised as new links' are. `dryRun` decides
     * every line the same way, then stores nothing: what a preview shows.
     */
    async importLinks(actor: Actor, records: readonly NumberedRecord[], how: ImportHow): Promise<ImportReport> {
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
      const stored: LinkAddress[] = [];
      const work = async (tx: LinkWriter): Promise<ImportReport> => {
        const lines: LineOutcome[] = [];
        for (const { line, record, generated, visits } of records) {
          const skip = (code: string, reason: string) =>
            lines.push({ line, code, domain: record.domain, url: record.url, action: 'skip', reason });
          let url: string;
          try {
            url = normaliseUrl(record.url, rules);
          } catch (err) {
            // Another shortener held targets kurz refuses (a scheme, a listed domain): such a link cannot move.
            if (how.from === 'peer' && err instanceof AppError) {
              skip(record.code, err.message);
              continue;
            }
            throw new AppError('invalid', `line ${line}: ${(err as Error).message}`, 'url');
          }
          if (how.from === 'kurz' && url !== record.url)
            throw new AppError('invalid', `line ${line}: url is not in normalised form (expected ${url})`, 'url');
          if (generated) {
            const existing = await tx.linkByUrlHash(hashUrl(url), new Date(0), record.domain, actor.userId, review !== null);
            if (existing) {
              skip(existing.code, `already shortened here as "${existing.code}"`);
              continue;
            }
            const link = await insertGenerated(tx, actor, record, url, review);
            stored.push(link);
            lines.push({ line, code: link.code, domain: link.domain, url, action: 'import', reason: null });
            continue;
          }
          // Like a new link, only a bare one (no alias, no options) is a target for later identical submissions.
          const split = splitOfRecord(record.split, line);
          const linkRules = ruled.get(line);
          const plain =
            !record.isAlias && split === null && linkRules === undefined && isPlain({ options: record, password: record.passwordHash });
          const id = await tx.importLink({ ...record, url, ownerId: actor.userId, review }, plain ? hashUrl(url) : null);
          if (id !== undefined) {
            if (visits !== undefined) await tx.addPastVisits(pastRollups(id, visits));
            if (split !== null) await tx.setSplit(id, storedSplit(split), record.updatedAt);
            if (linkRules !== undefined) await tx.setRules(id, storedRules(linkRules), record.updatedAt);
            stored.push(record);
            lines.push({ line, code: record.code, domain: record.domain, url, action: 'import', reason: null });
            continue;
          }
          const existing = await tx.linkByAddress(record.domain, record.code);
          if (existing?.url === url && maySee(actor, existing)) {
            skip(record.code, `${named(record)} ${existing.deletedAt ? 'was deleted here' : 'already exists here with the same URL'}`);
            continue;
          }
          const reason = takenReason(actor, record, existing);
          if (how.from === 'kurz') throw new AppError('conflict', `line ${line}: ${reason}`, 'code');
          skip(record.code, reason);
        }
        const imported = lines.filter((l) => l.action === 'import').length;
        return { imported, skipped: lines.length - imported, lines };
      };
      if (how.dryRun) {
        // The same decisions in a transaction that is then rolled back: what a preview shows is what an import does.
        return links
          .write(async (tx) => {
            throw new Rehearsed(await work(tx));
          })
          .catch((err: unknown) => {
            if (err instanceof Rehearsed) return err.report;
            throw err;
          });
      }
      const report = await links.write(work);
      for (const { domain, code } of stored) cache.forget(domain, code);
      return report;
    },
  };
}
