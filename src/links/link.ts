import type { RedirectStatus } from '../config.ts';
import type { Actor } from '../auth/actor.ts';
import type { RuleProgram } from '../rules/match.ts';
import type { Variant } from '../rules/rule.ts';
import type { Preview } from './preview.ts';
import type { PageSettings } from '../rules/page-settings.ts';

/** What a person can set on a link besides its target: the API's field names. */
export interface LinkOptions {
  title: string | null;
  note: string | null;
  /** Sorted, without duplicates. */
  tags: string[];
  /** Until then the link answers 404, as a code no link has (Shlink's validSince); null: from its creation. */
  startsAt: Date | null;
  /** From then on the link answers 410. */
  expiresAt: Date | null;
  /** Visits allowed in all; then the link answers 410. */
  maxVisits: number | null;
  /** null: the instance's `redirectStatus` setting. */
  redirectStatus: RedirectStatus | null;
  /** Append the visitor's query string to the target; null: the instance's `forwardQuery` setting. */
  forwardQuery: boolean | null;
  /** A disabled link answers 410 until enabled again. */
  enabled: boolean;
  /** The social preview link-preview bots are shown (links/preview.ts); null for none. */
  preview: Preview | null;
  /** robots.txt allows its short URL (Shlink's crawlable); every other path is disallowed. */
  crawlable: boolean;
}

/**
 * Where a link answers: its code on one of kurz's domains (domains/domain.ts; DEFAULT_DOMAIN is the
 * publicUrl's host). A code is unique within its domain; the same alias may exist on two domains.
 */
export interface LinkAddress {
  /** The domain's id. */
  domain: number;
  code: string;
}

/** A short link as the domain sees it, whatever stores it. */
export interface Link extends LinkOptions, LinkAddress {
  id: number;
  /** The user who owns it (auth/user.ts): only they and the admins see it. */
  ownerId: number;
  url: string;
  createdAt: Date;
  updatedAt: Date;
  visitCount: number;
  lastVisitAt: Date | null;
  deletedAt: Date | null;
  /** True when a person chose the code: such a link is never a dedupe target. */
  isAlias: boolean;
  /** Slow hash (see auth/passwords.ts) of the password a visitor must give; never shown. */
  passwordHash: string | null;
  /** Visits counted against maxVisits so far. */
  claimedVisits: number;
  /** Set while the target is on a blocklist: the link then answers 410, whatever `enabled` says. */
  blocked: Block | null;
  /** Waiting for an admin's review (`reviewNewLinks`), or rejected by one; null for a link that may go live. */
  review: Review | null;
  /** Its own A/B split: the variants redirects are drawn from instead of `url`, which stays as the fallback; null for none. */
  split: readonly Variant[] | null;
  /** Whether it has redirect rules (read with rulesOf): what the list shows as a badge, without reading them. */
  hasRules: boolean;
  /** Its pages before the redirect (src/rules/page-settings.ts). */
  pages: PageSettings;
}

/**
 * Where a link stands in the review queue (links/review.ts): `pending` answers "being reviewed" until an admin
 * approves it (null) or rejects it; `rejected` answers 410 for good and keeps its code retired.
 */
export type Review = 'pending' | 'rejected';

/** Why the blocklist disabled a link: the entry its target matched, the file it is in, and since when. */
export interface Block {
  rule: string;
  list: string;
  at: Date;
}

/** A live link's target and what the blocklist last said of it: what a blocklist scan reads. */
export interface LinkUrl extends LinkAddress {
  id: number;
  url: string;
  /** Where else it may send a visitor: its own A/B split's variants and its redirect rules' targets. */
  others: readonly string[];
  block: Omit<Block, 'at'> | null;
}

/** The options a new link gets when none are given. */
export const DEFAULT_OPTIONS: Readonly<LinkOptions> = Object.freeze({
  title: null,
  note: null,
  tags: [],
  startsAt: null,
  expiresAt: null,
  maxVisits: null,
  redirectStatus: null,
  forwardQuery: null,
  enabled: true,
  preview: null,
  crawlable: false,
});

/** What a redirect needs, and nothing more. */
export interface Target {
  id: number;
  url: string;
  /** A deleted link keeps its code, which answers 410. */
  deleted: boolean;
  /** What stands between a visitor and the target; null for an ordinary link, so the hot path checks one field. */
  gate: Gate | null;
}

/** A link's conditions and redirect options, as the redirect cache holds them. */
export interface Gate {
  enabled: boolean;
  /** The target is on a blocklist. */
  blocked: boolean;
  /** Milliseconds since the epoch: before it the code answers as one no link has. */
  startsAt: number | null;
  /** Milliseconds since the epoch. */
  expiresAt: number | null;
  maxVisits: number | null;
  /** A password must be given first. */
  locked: boolean;
  /** Waiting for review, or rejected: never redirects. */
  review: Review | null;
  redirectStatus: RedirectStatus | null;
  forwardQuery: boolean | null;
  /** The link's redirect rules (src/rules/), read from the store and compiled once when the target is loaded; null for none. */
  rules: RuleProgram | null;
  /** The link's own A/B split, read with the target; null for none (the link redirects to its url). */
  split: readonly Variant[] | null;
  /** The social preview link-preview bots get instead of the redirect (links/preview.ts); null for none. */
  preview: Preview | null;
  /** The link's pages before the redirect (src/rules/page-settings.ts): what a rule's page action shows. */
  pages: PageSettings;
  /** In-app browsers get the open-in-browser page without a rule (openInBrowser on, or auto and a download's target). */
  openInBrowser: boolean;
}

/** Why a live link does not redirect: one wording for the page, the API and the CLI. */
export type Refusal = 'blocked' | 'in_review' | 'rejected' | 'disabled' | 'expired' | 'used_up';

export function refusalMessage(code: string, refusal: Refusal): string {
  if (refusal === 'in_review') return `the link "${code}" is being reviewed: it leads on once an admin approves it`;
  if (refusal === 'rejected') return `the link "${code}" was rejected by an admin; its code is not reused`;
  if (refusal === 'blocked') return `the link "${code}" was disabled because its target is on a blocklist of malicious sites`;
  if (refusal === 'disabled') return `the link "${code}" is disabled`;
  if (refusal === 'expired') return `the link "${code}" has expired`;
  return `the link "${code}" has been used up: it allowed a limited number of visits`;
}

/** The error a refusal is: a link in review is forbidden for now (403), any other refusal gone (410). */
export function refusalCode(refusal: Refusal): 'forbidden' | 'gone' {
  return refusal === 'in_review' ? 'forbidden' : 'gone';
}

/** What a redirect rule that refuses the visitor (451: their region; 403: anyone else it names) says. */
export function unavailableMessage(code: string, status: 451 | 403): string {
  return status === 451 ? `the link "${code}" is not available in your region` : `the link "${code}" is not available to you`;
}

/** What a guarded link (see gate.ts `guards`) tells a client whose look does not count: a link checker, a preview bot. */
export function guardedMessage(code: string): string {
  return `the link "${code}" leads on only when a person opens it in a browser: it allows a limited number of visits or expires`;
}

export interface LinkQuery {
  /** Substring of the code or URL. */
  search?: string | undefined;
  limit: number;
  /** Only links tagged with these: any of them (the default) or, with `tagMode` all, every one. */
  tags?: readonly string[] | undefined;
  tagMode?: TagMode | undefined;
  /** Only links without these tags: without any of them (the default) or, with `excludeTagMode` all, not with every one. */
  excludeTags?: readonly string[] | undefined;
  excludeTagMode?: TagMode | undefined;
  /** The order: by creation (the default), visits, code, target or title. */
  sort?: ListSort;
  /** Each sort's own when absent (defaultOrder): the newest and the most visited first, text from A. */
  order?: ListOrder | undefined;
  /** Only links in this state at `now` (a deleted one only with `deleted`). */
  state?: ListState | undefined;
  /** With `state`: the time the state is judged at, in milliseconds (the use case sets it). */
  now?: number | undefined;
  /** Only links created at or after this time, and before that one (milliseconds). */
  createdFrom?: number | undefined;
  createdBefore?: number | undefined;
  /** Where the previous page ended (its last link's sort key), from `listCursor`. */
  after?: ListCursor | undefined;
  /** Links skipped before the page starts: numbered pages (the Shlink API's); a cursor is cheaper on long lists. */
  offset?: number | undefined;
  includeDeleted?: boolean;
  /** Only links the blocklist disabled. */
  blocked?: boolean | undefined;
  /** Only links in this state of review. */
  review?: Review | undefined;
  /** Only links on this domain (its id). */
  domain?: number | undefined;
  /** Only links this user owns (their id): always set for a member, by the use case. */
  owner?: number | undefined;
}

/** A page's end: the id, and for `visits` order the visit count, of its last link (a text order reads its key by the id). */
export interface ListCursor {
  id: number;
  visits?: number;
}

export const LIST_SORTS = ['created', 'visits', 'code', 'url', 'title'] as const;
export type ListSort = (typeof LIST_SORTS)[number];
export const LIST_ORDERS = ['asc', 'desc'] as const;
export type ListOrder = (typeof LIST_ORDERS)[number];
export const TAG_MODES = ['any', 'all'] as const;
export type TagMode = (typeof TAG_MODES)[number];
/** A link's state as the list filters it (presenters.ts linkState words it the same way). */
export const LIST_STATES = ['active', 'scheduled', 'disabled', 'expired', 'used-up', 'blocked', 'in-review', 'deleted'] as const;
export type ListState = (typeof LIST_STATES)[number];

/** A sort's order when none is given: the newest and the most visited first, code, target and title from A. */
export function defaultOrder(sort: ListSort): ListOrder {
  return sort === 'created' || sort === 'visits' ? 'desc' : 'asc';
}

/** A tag and how many live links carry it. */
export interface TagCount {
  tag: string;
  count: number;
}

/**
 * A link as exported and imported: everything but the id, which is local to one database, and the
 * blocklist's verdict, which is the receiving instance's to make.
 */
export type LinkRecord = Omit<Link, 'id' | 'blocked' | 'ownerId' | 'review' | 'pages' | 'hasRules'> & {
  /** Its pages before the redirect; absent: none (a file from before them). */
  pages?: PageSettings;
};

/** A link about to be stored under a generated code or an alias, on its domain. */
export interface NewLink extends LinkOptions, LinkAddress {
  ownerId: number;
  url: string;
  isAlias: boolean;
  /** Set only for links that later identical submissions may be deduplicated to. */
  urlHash: Buffer | null;
  passwordHash: string | null;
  createdAt: Date;
  /** 'pending' when its creator's links wait for review (links/review.ts). */
  review: 'pending' | null;
  /** Who created it: the row records them, and the audit trail shows that as its `link.create` entry. */
  createdBy: Actor;
}

/** A change to a link: the fields present are set (null clears); the rest stay. */
export type LinkEdit = Partial<LinkOptions & { url: string; passwordHash: string | null; domain: number; ownerId: number }>;

/**
 * An entry of the change log, which every process follows to drop what its cache holds: a link edited,
 * deleted or moved (`linkId`, and an address it had or has: a move records both), or a domain added,
 * edited or removed (`linkId` and `code` null: the process reloads its domains).
 */
export interface LinkChange {
  seq: number;
  linkId: number | null;
  domain: number;
  code: string | null;
}

/** What is said of a code no link has: one wording for the API, the pages, the CLI and the redirect. */
export function notFoundMessage(code: string): string {
  return `no link with code ${JSON.stringify(code)}`;
}

/** What is said of a code whose link was deleted. */
export function goneMessage(code: string): string {
  return `the link "${code}" was deleted; its code is not reused`;
}
