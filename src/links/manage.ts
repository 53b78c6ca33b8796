import { linkSubject } from './link-subject.ts';
import type { AuditDetails, AuditTrail } from '../audit/audit.ts';
import { isAdmin, type Actor } from '../auth/actor.ts';
import type { PasswordHashing } from '../auth/passwords.ts';
import type { RateLimit } from '../auth/rate-limits.ts';
import type { RedirectCache } from '../cache/redirect-cache.ts';
import { AppError } from '../core/errors.ts';
import { DEFAULT_DOMAIN } from '../domains/domain.ts';
import type { DomainRegistry } from '../domains/registry.ts';
import type { LinkStore } from '../store/ports.ts';
import type { Config } from '../config.ts';
import { CODE } from './alias-rules.ts';
import { linkRefusal, notStarted } from './gate.ts';
import {
  goneMessage,
  notFoundMessage,
  refusalCode,
  refusalMessage,
  type Link,
  type LinkEdit,
  type LinkQuery,
  type TagCount,
} from './link.ts';
import { parseOptions, parseTag } from './link-options.ts';
import { encodeCursor } from './list-query.ts';
import { reviewOf } from './review-rules.ts';
import type { BlocklistSource } from '../blocklist/blocklist.ts';
import { normaliseUrl, refuseListed, urlRules, type Listening } from './url-rules.ts';
import { parseRules, ruleJson, ruleTargets, type RuleJson, type Variant } from '../rules/rule.ts';
import { rulesFromStored, storedRules, storedSplit } from '../rules/stored.ts';
import { splitOf } from './create.ts';
import { missingPage, parsePages, storedPages, type FormAnswers, type PageSettings } from '../rules/page-settings.ts';

export interface ManageDeps {
  config: Parameters<typeof urlRules>[0] & Pick<Config, 'reviewNewLinks'>;
  listening?: Listening;
  blocklist?: BlocklistSource;
  now: () => number;
  random: (size: number) => Buffer;
  links: LinkStore;
  cache: RedirectCache;
  /** Wrong passwords of password links, per client and link and per link. */
  unlockLimit: RateLimit;
  hashing: PasswordHashing;
  domains: DomainRegistry;
  /** The id of the user a link is handed to, by their name (AppError('invalid', field 'owner') for none), and a name by id. */
  owners: { idOf(name: unknown, field?: string): Promise<number>; nameOf(id: number): string | null };
  /** Where edits, moves, hand-overs and deletions are recorded. */
  audit: Pick<AuditTrail, 'record'>;
}

export type LinkManagement = ReturnType<typeof linkManagement>;

/** Whether the actor may see (and so change) a link: their own, or any for an admin. */
export function maySee(actor: Actor, link: Link): boolean {
  return link.ownerId === actor.userId || isAdmin(actor);
}

/** Whose links a tag change reaches: the actor's own, or every link (null) for an admin. */
function ownerScope(actor: Actor): number | null {
  return isAdmin(actor) ? null : actor.userId;
}

function tagNotFound(tag: string): AppError {
  return new AppError('not_found', `no link of yours has the tag ${JSON.stringify(tag)}`);
}

/** The error for a code no link has. */
function linkNotFound(code: string): AppError {
  return new AppError('not_found', notFoundMessage(code));
}

/** Reading, listing, editing, deleting and pruning links. */
export function linkManagement({
  config,
  listening,
  blocklist,
  now,
  random,
  links,
  cache,
  unlockLimit,
  hashing,
  domains,
  owners,
  audit,
}: ManageDeps) {
  const rules = urlRules(config, listening, blocklist);

  /** The link at this address, deleted or not, whoever owns it; a string no code can spell is not looked up. */
  async function anyonesLink(code: string, domain: number): Promise<Link | undefined> {
    return CODE.test(code) ? links.linkByAddress(domain, code) : undefined;
  }

  /**
   * The link with this code on the domain (its id; the default domain when absent), deleted or not, when the
   * actor may see it: their own, or any for an admin. Another's link is not found, so codes do not leak.
   */
  async function linkByCode(actor: Actor, code: string, domain = DEFAULT_DOMAIN): Promise<Link | undefined> {
    const link = await anyonesLink(code, domain);
    return link && maySee(actor, link) ? link : undefined;
  }

  /** The link with this code on the domain, deleted or not, if the actor may see it. Throws AppError('not_found'). */
  async function existingLink(actor: Actor, code: string, domain = DEFAULT_DOMAIN): Promise<Link> {
    const link = await linkByCode(actor, code, domain);
    if (!link) throw linkNotFound(code);
    return link;
  }

  /**
   * What an edit did, in the audit trail: a move, a hand-over, turning it off or on, and the other fields
   * changed (a password only as set or removed). One entry per kind of change.
   */
  async function recordEdit(actor: Actor, before: Link, after: Link, edit: LinkEdit, split?: readonly Variant[] | null): Promise<void> {
    const subject = linkSubject(after, domains);
    if (after.domain !== before.domain)
      await audit.record(actor, 'link.move', subject, { from: domains.hostOf(before.domain), to: domains.hostOf(after.domain) });
    if (after.ownerId !== before.ownerId)
      await audit.record(actor, 'link.transfer', subject, { from: owners.nameOf(before.ownerId), to: owners.nameOf(after.ownerId) });
    if (after.enabled !== before.enabled) await audit.record(actor, after.enabled ? 'link.enable' : 'link.disable', subject);
    const details: AuditDetails = {};
    if (edit.url !== undefined && after.url !== before.url) details['url'] = after.url;
    if (edit.passwordHash !== undefined) details['password'] = edit.passwordHash === null ? 'removed' : 'set';
    if (edit.preview !== undefined && JSON.stringify(before.preview) !== JSON.stringify(after.preview))
      details['preview'] = after.preview === null ? 'removed' : 'set';
    for (const field of ['title', 'note', 'startsAt', 'expiresAt', 'maxVisits', 'redirectStatus', 'forwardQuery', 'crawlable'] as const) {
      const [was, is] = [before[field], after[field]];
      if (edit[field] !== undefined && String(was) !== String(is)) details[field] = is instanceof Date ? is.toISOString() : is;
    }
    if (edit.tags !== undefined && before.tags.join(',') !== after.tags.join(',')) details['tags'] = after.tags.join(',');
    if (split !== undefined) details['split'] = split === null ? 'removed' : `${split.length} variants`;
    if (Object.keys(details).length > 0) await audit.record(actor, 'link.edit', subject, details);
  }

  /** A query narrowed to what the actor may see: a member's own links; an admin's, any owner's they name. */
  function seenBy(actor: Actor, query: LinkQuery): LinkQuery {
    return isAdmin(actor) ? query : { ...query, owner: actor.userId };
  }

  return {
    existingLink,

    linkByCode,

    listLinks: (actor: Actor, query: LinkQuery): Promise<Link[]> => links.listLinks(seenBy(actor, { ...query, now: now() })),

    /**
     * One page of the link list for the API and the pages (`query` as list-query.ts reads it); `next` is
     * the cursor of the following page, or null.
     */
    async listPage(actor: Actor, query: LinkQuery): Promise<{ links: Link[]; next: string | null; query: LinkQuery }> {
      const found = await links.listLinks(seenBy(actor, { ...query, limit: query.limit + 1, now: now() }));
      const page = found.slice(0, query.limit);
      const last = page.at(-1);
      const next = found.length > query.limit && last ? encodeCursor(last, query.sort ?? 'created', query.order) : null;
      return { links: page, next, query };
    },

    /**
     * A numbered page of the link list (`query.offset` and `query.limit`) and how many links the query takes in
     * all: the pages of the Shlink API. Deeper pages cost more than a cursor's (the database skips the offset).
     */
    async listNumbered(actor: Actor, query: LinkQuery): Promise<{ links: Link[]; total: number }> {
      const seen = seenBy(actor, { ...query, now: now() });
      const [page, total] = await Promise.all([links.listLinks(seen), links.countLinks(seen)]);
      return { links: page, total };
    },

    /** The tags of the links the actor sees (an admin: every live link's). */
    tagCounts: (actor: Actor): Promise<TagCount[]> => links.tagCounts(isAdmin(actor) ? undefined : actor.userId),

    /**
     * Renames the tag `from` to the name `to` on the actor's links (an admin: everyone's), deleted ones too; a
     * name another tag has merges the two. Returns the names and how many links changed. Throws AppError:
     * 'invalid' (field `name`) for a bad or the same name, 'not_found' for a tag none of those links has.
     */
    async renameTag(actor: Actor, from: string, to: unknown): Promise<{ from: string; to: string; links: number }> {
      const name = parseTag('name', to);
      if (name === from) throw new AppError('invalid', `name must be a new one: the tag is ${JSON.stringify(from)} already`, 'name');
      const changed = await links.write((tx) => tx.renameTag(from, name, ownerScope(actor)));
      if (changed === 0) throw tagNotFound(from);
      await audit.record(actor, 'tag.rename', { kind: 'tag', id: 0, label: from }, { to: name, links: changed });
      return { from, to: name, links: changed };
    },

    /** Takes the tag off the actor's links (an admin: everyone's); returns how many had it. Throws AppError('not_found'). */
    async deleteTag(actor: Actor, tag: string): Promise<{ tag: string; links: number }> {
      const changed = await links.write((tx) => tx.deleteTag(tag, ownerScope(actor)));
      if (changed === 0) throw tagNotFound(tag);
      await audit.record(actor, 'tag.delete', { kind: 'tag', id: 0, label: tag }, { links: changed });
      return { tag, links: changed };
    },

    /** Live links the blocklist disabled, in every process on the database. */
    blockedCount: (): Promise<number> => links.blockedCount(),

    /** Takes one visit of a link with a visit limit; false when they are used up. */
    claimVisit: (id: number): Promise<boolean> => links.claimVisit(id),

    /** True while a link with maxVisits has visits left (a bot looking uses none). */
    hasVisitsLeft: (id: number): Promise<boolean> => links.hasVisitsLeft(id),

    /**
     * The live password link `code` once `password` is right. Throws AppError: 'not_found'; 'forbidden' for a
     * link in review; 'gone' for a deleted, rejected, disabled, expired or used-up link (before any password is
     * checked); 'unauthorized' for a wrong password; 'rate_limited' while the client, or the link for every
     * client, must wait after repeated wrong ones, or when this process checks as many passwords as it may at once.
     */
    async unlockLink(code: string, password: unknown, client: string, domain = DEFAULT_DOMAIN): Promise<Link> {
      const link = await anyonesLink(code, domain);
      if (!link || (!link.deletedAt && notStarted(link.startsAt?.getTime() ?? null, now()))) throw linkNotFound(code);
      if (link.deletedAt) throw new AppError('gone', goneMessage(code));
      const refusal = linkRefusal(link, now());
      if (refusal) throw new AppError(refusalCode(refusal), refusalMessage(code, refusal));
      if (link.passwordHash === null) return link;
      if (typeof password !== 'string') throw new AppError('unauthorized', 'wrong password', 'password');
      // The link's own key holds guesses spread over many addresses; a code has no space, a client key no "link ".
      const address = domain === DEFAULT_DOMAIN ? code : `${domain}/${code}`;
      const keys = [`${client} ${address}`, `link ${address}`];
      if (!(await hashing.guess(password, link.passwordHash, unlockLimit, keys)))
        throw new AppError('unauthorized', 'wrong password', 'password');
      return link;
    },

    /**
     * Changes the fields present in `input` (`url`, the option fields, and `domain`: a host to move the link
     * to; null clears an option) of the link `code` on `domain`, and returns the link as stored. The redirect
     * cache of every process drops it (at both addresses, for a move). An edited link is no longer a dedupe
     * target. Throws AppError: 'not_found', 'gone' for a deleted link, 'invalid' naming the field,
     * 'conflict' when the code is taken on the domain it would move to, 'forbidden' (field `domain`) when
     * the actor may not use that domain. An admin may hand the link to another
     * user (`owner`: their name); a member who names one gets 'forbidden'.
     */
    async editLink(actor: Actor, code: string, input: Record<string, unknown>, domain = DEFAULT_DOMAIN): Promise<Link> {
      if (!CODE.test(code)) throw linkNotFound(code);
      const edit: LinkEdit = {};
      if (input['domain'] !== undefined) edit.domain = domains.idOf(input['domain']);
      if (input['owner'] !== undefined) {
        if (!isAdmin(actor)) {
          // Another's link is not found, as on every route; only of their own may a member learn they cannot hand it over.
          await existingLink(actor, code, domain);
          throw new AppError('forbidden', 'only an admin hands a link to another user', 'owner');
        }
        edit.ownerId = await owners.idOf(input['owner']);
      }
      if (input['url'] !== undefined) edit.url = normaliseUrl(input['url'], rules);
      // A link's own A/B split: given replaces it, null removes it, absent keeps it.
      const split = input['split'] === undefined ? undefined : splitOf(input['split'], rules);
      const given = parseOptions(input, now());
      Object.assign(edit, given.options);
      if (given.password !== undefined) edit.passwordHash = given.password === null ? null : await hashing.hash(given.password, random);
      const { before, edited } = await links.write(async (tx) => {
        if (edit.url !== undefined) refuseListed(edit.url, rules);
        for (const variant of split ?? []) refuseListed(variant.url, rules);
        const link = await tx.linkByAddress(domain, code);
        if (!link || !maySee(actor, link)) throw linkNotFound(code);
        // Moving onto a domain needs the actor may use it; a link already there stays, whoever may use it now.
        if (edit.domain !== undefined && edit.domain !== link.domain) domains.refuseClosed(actor, edit.domain);
        if (link.deletedAt || !(await tx.updateLink(link, edit, null, new Date(now())))) throw new AppError('gone', goneMessage(code));
        if (split !== undefined && !(await tx.setSplit(link.id, storedSplit(split), new Date(now()))))
          throw new AppError('gone', goneMessage(code));
        // A variant the link did not lead to, from someone whose links wait for review, waits again, as a new target.
        const known = new Set([link.url, ...(link.split ?? []).map((v) => v.url)]);
        if (
          split &&
          split.some((v) => !known.has(v.url)) &&
          link.review === null &&
          edit.url === undefined &&
          reviewOf(actor, config.reviewNewLinks)
        )
          await tx.setReview(link.id, null, 'pending', new Date(now()));
        // A new target from someone whose links wait for review waits again: approval was of the old one.
        if (edit.url !== undefined && edit.url !== link.url && link.review === null && reviewOf(actor, config.reviewNewLinks))
          await tx.setReview(link.id, null, 'pending', new Date(now()));
        return { before: link, edited: await tx.linkByAddress(edit.domain ?? domain, code) };
      });
      cache.forget(domain, code);
      if (edit.domain !== undefined) cache.forget(edit.domain, code);
      if (!edited) throw linkNotFound(code);
      await recordEdit(actor, before, edited, edit, split);
      return edited;
    },

    /**
     * The redirect rules of the link `code` on `domain`, as they were set (ruleJson), [] for none. Throws
     * AppError('not_found') when the actor may not see the link, as an edit does.
     */
    async rulesOf(actor: Actor, code: string, domain = DEFAULT_DOMAIN): Promise<RuleJson[]> {
      const link = await existingLink(actor, code, domain);
      const stored = await links.linkRules(link.id);
      if (stored === null) return [];
      return rulesFromStored(stored, (problem) => {
        throw new AppError('internal', `the stored rules of "${code}" cannot be read (${problem})`);
      }).map(ruleJson);
    },

    /**
     * Replaces the redirect rules of the link `code` on `domain` with `input` (the API's `rules`: a list, []
     * clears them) and returns them as stored. Owner checks and the change log as an edit (`editLink`): every
     * process's cache drops the link; recorded as `link.edit` with the rule count. A member whose links wait
     * for review waits again when a rule brings a target the link did not lead to. Throws AppError: 'invalid'
     * naming `rules[i]…` (a notice or form page the link has not set too), 'not_found', 'gone'.
     */
    async setRules(actor: Actor, code: string, input: unknown, domain = DEFAULT_DOMAIN): Promise<RuleJson[]> {
      if (!CODE.test(code)) throw linkNotFound(code);
      const parsed = parseRules(input, rules);
      const text = storedRules(parsed);
      const link = await links.write(async (tx) => {
        for (const url of ruleTargets(parsed)) refuseListed(url, rules);
        const found = await tx.linkByAddress(domain, code);
        if (!found || !maySee(actor, found)) throw linkNotFound(code);
        const missing = missingPage(parsed, found.pages);
        if (missing !== undefined)
          throw new AppError(
            'invalid',
            `${missing.field}: the link has no ${missing.page} to show; set pages.${missing.page} first (PATCH /api/v1/links/${code})`,
            missing.field,
          );
        const at = new Date(now());
        const before = await links.linkRules(found.id);
        if (found.deletedAt || !(await tx.setRules(found.id, text, at))) throw new AppError('gone', goneMessage(code));
        // As a new target: approval was of where the link led, not of where its rules now send visitors.
        const known = new Set([found.url, ...(before === null ? [] : ruleTargets(rulesFromStored(before, () => undefined)))]);
        if (found.review === null && reviewOf(actor, config.reviewNewLinks) && ruleTargets(parsed).some((url) => !known.has(url)))
          await tx.setReview(found.id, null, 'pending', at);
        return found;
      });
      cache.forget(domain, code);
      await audit.record(actor, 'link.edit', linkSubject(link, domains), { rules: parsed.length });
      return parsed.map(ruleJson);
    },

    /**
     * Sets the pages before the redirect of the link `code` on `domain` (the API's `pages`; null: the
     * defaults) and returns them. A notice or form that a page rule of the link shows cannot be taken away
     * (AppError 'invalid' naming `pages.notice` or `pages.form`); owner checks and the change log as an edit.
     */
    async setPages(actor: Actor, code: string, input: unknown, domain = DEFAULT_DOMAIN): Promise<PageSettings> {
      if (!CODE.test(code)) throw linkNotFound(code);
      const pages = parsePages(input);
      const link = await links.write(async (tx) => {
        const found = await tx.linkByAddress(domain, code);
        if (!found || !maySee(actor, found)) throw linkNotFound(code);
        const stored = await links.linkRules(found.id);
        const missing = missingPage(stored === null ? [] : rulesFromStored(stored, () => undefined), pages);
        if (missing !== undefined)
          throw new AppError(
            'invalid',
            `pages.${missing.page} is shown by the link's ${missing.field}: change that rule before removing it`,
            `pages.${missing.page}`,
          );
        if (found.deletedAt || !(await tx.setPages(found.id, storedPages(pages), new Date(now()))))
          throw new AppError('gone', goneMessage(code));
        return found;
      });
      cache.forget(domain, code);
      await audit.record(actor, 'link.edit', linkSubject(link, domains), { pages: true });
      return pages;
    },

    /** Stores a visitor's answers to link `linkId`'s form (checked by page-settings.ts's checkAnswers), at the clock's time. */
    async recordFormAnswer(linkId: number, answers: FormAnswers): Promise<void> {
      const text = JSON.stringify({ ...answers.values, consent: answers.consent });
      await links.write((tx) => tx.addFormAnswer(linkId, new Date(now()), text));
    },

    /**
     * A page of the form answers of the link `code` on `domain` (newest first, ids below `before`), and how
     * many there are. Throws AppError('not_found') when the actor may not see the link.
     */
    async formAnswersOf(actor: Actor, code: string, domain = DEFAULT_DOMAIN, before = Number.MAX_SAFE_INTEGER, limit = 50) {
      const link = await existingLink(actor, code, domain);
      const page = await links.formAnswers(link.id, before, limit);
      return {
        link,
        total: page.total,
        answers: page.answers.map((row) => ({
          id: row.id,
          at: new Date(row.at),
          answers: JSON.parse(row.answers) as Record<string, unknown>,
        })),
      };
    },

    /** Deletes every answer to the form of the link `code` on `domain`; returns how many. Recorded as `link.edit`. */
    async deleteFormAnswers(actor: Actor, code: string, domain = DEFAULT_DOMAIN): Promise<number> {
      const link = await existingLink(actor, code, domain);
      const deleted = await links.write((tx) => tx.deleteFormAnswers(link.id));
      await audit.record(actor, 'link.edit', linkSubject(link, domains), { formAnswersDeleted: deleted });
      return deleted;
    },

    /**
     * Hands every link of the user `from` (an id) to the user `to` names, deleted ones too so that their
     * figures go along; admins only. Returns how many. Throws AppError: 'forbidden' for a member, 'invalid'
     * (field `to`) for no such user or the same one.
     */
    async handOverAll(actor: Actor, from: number, to: unknown): Promise<{ from: string | null; to: string | null; links: number }> {
      if (!isAdmin(actor)) throw new AppError('forbidden', "only an admin hands a user's links to another");
      const toId = await owners.idOf(to, 'to');
      if (toId === from) throw new AppError('invalid', `to must be another user: the links are ${String(to)}'s already`, 'to');
      const moved = await links.write((tx) => tx.handOverLinks(from, toId));
      const names = { from: owners.nameOf(from), to: owners.nameOf(toId) };
      await audit.record(
        actor,
        'user.handover',
        { kind: 'user', id: from, label: names.from ?? String(from) },
        { to: names.to, links: moved },
      );
      return { ...names, links: moved };
    },

    /** Marks the actor's link deleted: its code keeps answering, with 410. Throws AppError('not_found'). */
    async deleteLink(actor: Actor, code: string, domain = DEFAULT_DOMAIN): Promise<{ link: Link; deleted: boolean }> {
      const link = await existingLink(actor, code, domain);
      const deleted = await links.write((tx) => tx.deleteLink(link.id, new Date(now())));
      cache.forget(domain, code);
      if (deleted) await audit.record(actor, 'link.delete', linkSubject(link, domains));
      return { link, deleted };
    },

    /** Links nobody visited (or created, if never visited) in the last `age` ms; deleted unless `dryRun`. Admins only. */
    async prune(actor: Actor, age: number, dryRun: boolean): Promise<Link[]> {
      if (!isAdmin(actor)) throw new AppError('forbidden', 'only an admin prunes links');
      const stale = await links.write(async (tx) => {
        const at = new Date(now());
        const found = await tx.unvisitedSince(new Date(at.getTime() - age));
        if (!dryRun) for (const link of found) await tx.deleteLink(link.id, at);
        return found;
      });
      if (!dryRun) for (const link of stale) cache.forget(link.domain, link.code);
      if (!dryRun) for (const link of stale) await audit.record(actor, 'link.delete', linkSubject(link, domains), { pruned: true });
      return stale;
    },
  };
}
