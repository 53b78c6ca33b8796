import * as z from 'zod';
import type { Config } from '../config.ts';
import { CODE } from './alias-rules.ts';
import { variantJson } from '../rules/stored.ts';
import { PREVIEW, TAG } from './link-fields.ts';
import type { Link, LinkAddress } from './link.ts';
import { REDIRECT_STATUSES } from './link-options.ts';
import { PAGES_SCHEMA } from '../rules/page-settings.ts';

const DATE_TIME = z.string().meta({ format: 'date-time' });
const nullableTime = (description?: string) =>
  z
    .string()
    .nullable()
    .meta({ format: 'date-time', ...(description ? { description } : {}) });

/** A link as linkJson shows it: the API's answers and the OpenAPI document's `Link`. */
export const LINK_JSON = z.strictObject({
  domain: z.string().describe("The link's domain (host): the publicUrl's host for the default domain"),
  owner: z.string().nullable().describe('The user who owns it (only they and the admins see it)'),
  code: z.string().regex(CODE),
  shortUrl: z.string().meta({ format: 'uri' }),
  url: z.string().meta({ format: 'uri', description: 'The target, normalised' }),
  title: z.string().nullable(),
  note: z.string().nullable(),
  tags: z.array(TAG),
  startsAt: nullableTime('Until then the code answers 404, as one no link has; null: from its creation'),
  expiresAt: nullableTime(),
  maxVisits: z.int().nullable(),
  visitsLeft: z.int().min(0).nullable().describe('null when the link has no visit limit'),
  passwordProtected: z.boolean(),
  redirectStatus: z
    .literal(REDIRECT_STATUSES)
    .meta({ type: 'integer', description: "What the redirect answers (the link's or the instance's)" }),
  forwardQuery: z.boolean().describe("What the redirect does (the link's or the instance's setting)"),
  enabled: z.boolean().describe("The person's switch; a blocked link answers 410 whatever it says"),
  blocked: z
    .union([
      z.null(),
      z.strictObject({
        rule: z.string().describe('The entry the target matched: a host, a domain or a URL'),
        list: z.string().describe("The blocklist file's name (without its folder)"),
        at: DATE_TIME,
      }),
    ])
    .describe('Set while the target is on a blocklist (the `blocklist` setting): the link answers 410 until the list no longer names it'),
  review: z
    .enum(['pending', 'rejected'])
    .nullable()
    .describe(
      'pending: waiting for an admin\'s review (reviewNewLinks), it answers 403 "being reviewed" until approved; rejected: it answers 410 for good; null: neither',
    ),
  preview: PREVIEW.nullable().describe('The social preview link-preview bots get instead of the redirect; null for none'),
  crawlable: z.boolean().describe('robots.txt allows its short URL'),
  isAlias: z.boolean().describe('A person chose the code; such a link is never a dedupe target'),
  createdAt: DATE_TIME,
  updatedAt: DATE_TIME,
  visitCount: z.int().min(0),
  lastVisitAt: nullableTime(),
  deletedAt: nullableTime('A deleted link keeps its code, which answers 410'),
  split: z
    .array(z.strictObject({ url: z.string(), weight: z.int(), paused: z.boolean().optional() }))
    .nullable()
    .describe(
      'Its own A/B split: redirects draw one of these variants instead of url (the fallback, when every variant is paused); null for none',
    ),
  pages: PAGES_SCHEMA.describe("The pages before the redirect: notice, form and openInBrowser (PATCH's pages)"),
});

export type LinkJson = z.output<typeof LINK_JSON>;

/** What presenting a link needs: its short URL and the instance's defaults for options it leaves unset. */
export interface Presenter {
  config: Pick<Config, 'redirectStatus' | 'forwardQuery'>;
  shortUrl(link: LinkAddress): string;
  registry: { hostOf(domain: number): string };
  ownerName(id: number): string | null;
}

/**
 * The link as the API and the CLI's --json show it. `redirectStatus` and `forwardQuery` are what the
 * redirect does (the instance's setting when the link leaves them unset); the password is only ever
 * `passwordProtected`; `blocked` is the blocklist entry its target matches, or null.
 */
export function linkJson(link: Link, { config, shortUrl, registry, ownerName }: Presenter): LinkJson {
  return {
    domain: registry.hostOf(link.domain),
    owner: ownerName(link.ownerId),
    code: link.code,
    shortUrl: shortUrl(link),
    url: link.url,
    title: link.title,
    note: link.note,
    tags: link.tags,
    startsAt: link.startsAt?.toISOString() ?? null,
    expiresAt: link.expiresAt?.toISOString() ?? null,
    maxVisits: link.maxVisits,
    visitsLeft: link.maxVisits === null ? null : Math.max(0, link.maxVisits - link.claimedVisits),
    passwordProtected: link.passwordHash !== null,
    redirectStatus: link.redirectStatus ?? config.redirectStatus,
    forwardQuery: link.forwardQuery ?? config.forwardQuery,
    enabled: link.enabled,
    blocked: link.blocked && { rule: link.blocked.rule, list: link.blocked.list, at: link.blocked.at.toISOString() },
    review: link.review,
    preview: link.preview,
    crawlable: link.crawlable,
    isAlias: link.isAlias,
    createdAt: link.createdAt.toISOString(),
    updatedAt: link.updatedAt.toISOString(),
    visitCount: link.visitCount,
    lastVisitAt: link.lastVisitAt?.toISOString() ?? null,
    deletedAt: link.deletedAt?.toISOString() ?? null,
    split: link.split && link.split.map(variantJson),
    pages: { ...link.pages, form: link.pages.form && { ...link.pages.form, fields: [...link.pages.form.fields] } },
  };
}
