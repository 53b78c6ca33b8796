import type { Role } from '../auth/actor.ts';
import type { ApiKey, Session } from '../auth/identity.ts';
import type { StoredUser, UserEdit, UserState, UserUse } from '../auth/user.ts';
import { SCOPES } from '../auth/scopes.ts';
import type { RedirectStatus } from '../config.ts';
import type { Domain, DomainUse, Scheme } from '../domains/domain.ts';
import type { Logger } from '../core/log.ts';
import type { Link, LinkUrl, Review, Target } from '../links/link.ts';
import { ruleTargets } from '../rules/rule.ts';
import { compileRules } from '../rules/match.ts';
import { rulesFromStored, splitFromStored } from '../rules/stored.ts';
import { previewFromStored } from '../links/preview.ts';
import { NO_PAGES, opensInBrowser, pagesFromStored } from '../rules/page-settings.ts';

// Rows as both backends return them (the same columns and encodings, so that kurz migrate copies them as
// they are): 0/1 for flags, milliseconds for times, tags as a JSON array. Each store turns them into the
// domain's types here, and nowhere else.

/** A link with its visit counts and its tags (a JSON array, sorted). */
export interface LinkRow {
  id: number;
  domain: number;
  ownerId: number;
  code: string;
  url: string;
  createdAt: number;
  updatedAt: number;
  visitCount: number;
  lastVisitAt: number | null;
  deletedAt: number | null;
  isAlias: number;
  title: string | null;
  note: string | null;
  tags: string;
  expiresAt: number | null;
  maxVisits: number | null;
  claimedVisits: number;
  passwordHash: string | null;
  redirectStatus: number | null;
  forwardQuery: number | null;
  enabled: number;
  blockedRule: string | null;
  blockedList: string | null;
  blockedAt: number | null;
  review: string | null;
  /** The split's JSON (rules/stored.ts), null for none. */
  split: string | null;
  /** 1 when the link has redirect rules (their JSON is read on its own, by LINK_RULES). */
  hasRules: number;
  /** The social preview's JSON (links/preview.ts), null for none. */
  preview: string | null;
  /** The page settings' JSON (src/rules/page-settings.ts), null for the defaults. */
  pages: string | null;
  startsAt: number | null;
  crawlable: number;
}

/** What the redirect cache holds of a link. */
export interface TargetRow {
  id: number;
  url: string;
  deleted: number;
  blocked: number;
  enabled: number;
  expiresAt: number | null;
  maxVisits: number | null;
  locked: number;
  review: string | null;
  redirectStatus: number | null;
  forwardQuery: number | null;
  /** The rules' JSON (src/rules/stored.ts), null for none. */
  rules: string | null;
  /** The link's own split's JSON (src/rules/stored.ts), null for none. */
  split: string | null;
  /** The social preview's JSON (links/preview.ts), null for none. */
  preview: string | null;
  /** The page settings' JSON (src/rules/page-settings.ts), null for the defaults. */
  pages: string | null;
  startsAt: number | null;
}

/** The link of a row, or undefined for none. */
export function toLink(row: LinkRow | undefined): Link | undefined {
  if (!row) return undefined;
  return {
    id: row.id,
    domain: row.domain,
    ownerId: row.ownerId,
    code: row.code,
    url: row.url,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    visitCount: row.visitCount,
    lastVisitAt: row.lastVisitAt === null ? null : new Date(row.lastVisitAt),
    deletedAt: row.deletedAt === null ? null : new Date(row.deletedAt),
    isAlias: row.isAlias === 1,
    title: row.title,
    note: row.note,
    tags: JSON.parse(row.tags) as string[],
    startsAt: row.startsAt === null ? null : new Date(row.startsAt),
    expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt),
    maxVisits: row.maxVisits,
    claimedVisits: row.claimedVisits,
    passwordHash: row.passwordHash,
    redirectStatus: row.redirectStatus as RedirectStatus | null,
    forwardQuery: row.forwardQuery === null ? null : row.forwardQuery === 1,
    enabled: row.enabled === 1,
    blocked: row.blockedRule === null ? null : { rule: row.blockedRule, list: row.blockedList ?? '', at: new Date(row.blockedAt ?? 0) },
    review: row.review as Review | null,
    split: row.split === null ? null : splitFromStored(row.split, () => undefined),
    hasRules: row.hasRules === 1,
    preview: previewFromStored(row.preview),
    pages: pagesFromStored(row.pages, () => undefined),
    crawlable: row.crawlable === 1,
  };
}

/** A row of a blocklist scan (a live link's id, code, target and block). */
export interface LinkUrlRow {
  id: number;
  domain: number;
  code: string;
  url: string;
  /** The rules' and the own split's JSON (src/rules/stored.ts), null for none. */
  rules: string | null;
  split: string | null;
  blockedRule: string | null;
  blockedList: string | null;
}

export function toLinkUrl(row: LinkUrlRow): LinkUrl {
  return {
    id: row.id,
    domain: row.domain,
    code: row.code,
    url: row.url,
    // Unreadable JSON redirects to the link's own target (toTarget), so only that is screened then.
    others: [
      ...(row.split === null ? [] : (splitFromStored(row.split, () => undefined) ?? []).map((variant) => variant.url)),
      ...(row.rules === null ? [] : ruleTargets(rulesFromStored(row.rules, () => undefined))),
    ],
    block: row.blockedRule === null ? null : { rule: row.blockedRule, list: row.blockedList ?? '' },
  };
}

/**
 * An ordinary link (enabled, no condition, no option, no rules) has no gate: the redirect then checks nothing
 * more. Rules are read here, once per load; rules that cannot be read are logged on `log` and not applied.
 */
export function toTarget(row: TargetRow, log: Pick<Logger, 'error'>): Target {
  const plain =
    row.blocked === 0 &&
    row.enabled === 1 &&
    row.startsAt === null &&
    row.expiresAt === null &&
    row.maxVisits === null &&
    row.locked === 0 &&
    row.review === null &&
    row.redirectStatus === null &&
    row.forwardQuery === null &&
    row.rules === null &&
    row.split === null &&
    row.preview === null &&
    row.pages === null &&
    !opensInBrowser(NO_PAGES, row.url);
  const pages =
    row.pages === null
      ? NO_PAGES
      : pagesFromStored(row.pages, (problem) =>
          log.error('a link has page settings that cannot be read: it shows no page', { link: row.id, problem }),
        );
  return {
    id: row.id,
    url: row.url,
    deleted: row.deleted === 1,
    gate: plain
      ? null
      : {
          blocked: row.blocked === 1,
          enabled: row.enabled === 1,
          startsAt: row.startsAt,
          expiresAt: row.expiresAt,
          maxVisits: row.maxVisits,
          locked: row.locked === 1,
          review: row.review as Review | null,
          redirectStatus: row.redirectStatus as RedirectStatus | null,
          forwardQuery: row.forwardQuery === null ? null : row.forwardQuery === 1,
          rules:
            row.rules === null
              ? null
              : compileRules(
                  rulesFromStored(row.rules, (problem) =>
                    log.error('a link has rules that cannot be read: it redirects to its own target', { link: row.id, problem }),
                  ),
                ),
          split:
            row.split === null
              ? null
              : splitFromStored(row.split, (problem) =>
                  log.error('a link has a split that cannot be read: it redirects to its own target', { link: row.id, problem }),
                ),
          preview: previewFromStored(row.preview),
          pages,
          openInBrowser: opensInBrowser(pages, row.url),
        },
  };
}

/** A domain, with its live links when listed. */
export interface DomainRow {
  id: number;
  host: string;
  scheme: string | null;
  notFoundRedirect: string | null;
  rootRedirect: string | null;
  createdAt: number;
  /** JSON: [id, name] pairs; null (or absent) when everyone may use it. */
  users?: string | null;
  links?: number;
}

export function toDomain(row: DomainRow): Domain {
  return {
    id: row.id,
    host: row.host,
    scheme: row.scheme as Scheme | null,
    notFoundRedirect: row.notFoundRedirect,
    rootRedirect: row.rootRedirect,
    users: row.users == null ? null : (JSON.parse(row.users) as Array<[number, string]>).map(([id, name]) => ({ id, name })),
    createdAt: new Date(row.createdAt),
  };
}

export function toDomainUse(row: DomainRow): DomainUse {
  return { ...toDomain(row), links: row.links ?? 0 };
}

export interface SessionRow {
  idHash: string;
  user: string;
  userId: number;
  createdAt: number;
  seenAt: number;
}

export interface KeyRow {
  id: number;
  userId: number;
  name: string;
  prefix: string;
  /** Space-separated. */
  scopes: string;
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
  lastUsedFrom: string | null;
  revokedAt: number | null;
}

export function toSession(row: SessionRow | undefined): Session | undefined {
  return (
    row && { idHash: row.idHash, user: row.user, userId: row.userId, createdAt: new Date(row.createdAt), seenAt: new Date(row.seenAt) }
  );
}

export function toKey(row: KeyRow | undefined): ApiKey | undefined {
  return (
    row && {
      id: row.id,
      userId: row.userId,
      name: row.name,
      prefix: row.prefix,
      // Only kurz writes the column, from SCOPES; a name this build does not know grants nothing.
      scopes: SCOPES.filter((scope) => row.scopes.split(' ').includes(scope)),
      createdAt: new Date(row.createdAt),
      expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt),
      lastUsedAt: row.lastUsedAt === null ? null : new Date(row.lastUsedAt),
      lastUsedFrom: row.lastUsedFrom,
      revokedAt: row.revokedAt === null ? null : new Date(row.revokedAt),
    }
  );
}

/** A user with their secrets' hashes, and (listing) their live links. */
export interface UserRow {
  id: number;
  name: string;
  email: string | null;
  role: string;
  state: string;
  passwordHash: string | null;
  inviteExpiresAt: number | null;
  createdAt: number;
  links?: number;
}

export function toUser(row: UserRow | undefined): StoredUser | undefined {
  return (
    row && {
      id: row.id,
      name: row.name,
      email: row.email,
      // Only kurz writes these columns; their CHECK constraints hold them to the two values each.
      role: row.role as Role,
      state: row.state as UserState,
      createdAt: new Date(row.createdAt),
      hasPassword: row.passwordHash !== null,
      inviteExpiresAt: row.inviteExpiresAt === null ? null : new Date(row.inviteExpiresAt),
      passwordHash: row.passwordHash,
    }
  );
}

/** A listed user, without their password hash. */
export function toUserUse(row: UserRow): UserUse {
  const { passwordHash: _, ...user } = toUser(row)!;
  return { ...user, links: row.links ?? 0 };
}

/** An edit's columns for UPDATE_USER: each with a flag saying whether it is set (0/1, for both backends). */
export function userEditParams(edit: UserEdit) {
  return {
    setEmail: edit.email !== undefined ? 1 : 0,
    email: edit.email ?? null,
    setRole: edit.role !== undefined ? 1 : 0,
    role: edit.role ?? null,
    setState: edit.state !== undefined ? 1 : 0,
    state: edit.state ?? null,
    setPassword: edit.passwordHash !== undefined ? 1 : 0,
    passwordHash: edit.passwordHash ?? null,
    setInvite: edit.inviteHash !== undefined ? 1 : 0,
    inviteHash: edit.inviteHash ?? null,
    inviteExpiresAt: edit.inviteExpiresAt?.getTime() ?? null,
  };
}
