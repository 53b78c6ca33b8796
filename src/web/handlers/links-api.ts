import type { Context } from 'koa';
import { actorOf } from '../session.ts';
import type { WebServices } from '../../context.ts';
import { DEFAULT_DOMAIN } from '../../domains/domain.ts';
import type { LinkAddress } from '../../links/link.ts';
import * as z from 'zod';
import { AppError } from '../../core/errors.ts';
import { parseBody, ruled } from '../../core/request-schema.ts';
import { BULK_BODY_LIMIT, readBody } from '../../http/body.ts';
import { sendJson, sendNoContent } from '../../http/respond.ts';
import { ALIAS_FIELD, CODE_LENGTH_FIELD, DOMAIN_FIELD, OPTION_SCHEMAS, SPLIT_FIELD, TAG, URL_FIELD } from '../../links/link-fields.ts';
import { linkJson } from '../../links/link-json.ts';
import { LIST_QUERY } from '../../links/list-query.ts';
import { RULE_LIMITS } from '../../rules/rule.ts';
import { PAGES_JSON_SCHEMA } from '../../rules/page-settings.ts';
import { takeCreations } from '../creation-limit.ts';
import { domainOf } from '../domain-param.ts';

const LINKS_PATH = '/api/v1/links';

/** Most links one batch may hold. */
export const BATCH_MAX = 1000;

/** POST /api/v1/links: a new link. */
export const LINK_CREATE = z.strictObject({
  url: URL_FIELD.nonoptional({ error: 'url is required' }),
  alias: ALIAS_FIELD,
  codeLength: CODE_LENGTH_FIELD,
  domain: DOMAIN_FIELD,
  ...OPTION_SCHEMAS,
  split: SPLIT_FIELD,
  pages: ruled(PAGES_JSON_SCHEMA, (value) => value),
});

const EDIT_SHAPE = {
  url: URL_FIELD,
  ...OPTION_SCHEMAS,
  split: SPLIT_FIELD,
  domain: ruled(
    z
      .string()
      .describe(
        'Moves the link to this domain (a host) with its code; 409 when the code is taken there, 403 when the domain is not open to the user',
      ),
    (value) => value,
  ),
  owner: ruled(
    z.string().describe('Hands the link to this user (admins only: a member gets 403); 400 when no user has the name'),
    (value) => value,
  ),
  pages: ruled(PAGES_JSON_SCHEMA, (value) => value),
};

/** PATCH /api/v1/links/CODE: the fields to change. */
export const LINK_EDIT = z
  .strictObject(EDIT_SHAPE)
  .refine((fields) => Object.keys(fields).length > 0, {
    error: `give at least one field to change (${Object.keys(EDIT_SHAPE).join(', ')})`,
  })
  .meta({ minProperties: 1 });

/** PUT /api/v1/links/CODE/rules: the link's redirect rules, all at once; the rules are checked by src/rules/rule.ts. */
export const RULES_BODY = z.strictObject({
  rules: z
    .unknown()
    .nonoptional({ error: 'rules is required: a list of rules ([] clears them)' })
    .meta({
      type: 'array',
      maxItems: RULE_LIMITS.rules,
      items: { $ref: '#/components/schemas/Rule' },
      description:
        'The rules in order: the first whose conditions all match decides; [] clears them. A malformed rule is a 400 naming rules[i] and its field',
    }),
});

/** PATCH /api/v1/tags/TAG: the tag's new name (links/link-options.ts parseTag checks it); another tag's name merges the two. */
export const TAG_RENAME = z.strictObject({
  name: ruled(TAG, (value) => value)
    .nonoptional({ error: 'name is required: the new name (an existing tag merges the two)' })
    .describe('The new name; an existing tag of yours merges the two'),
});

/** POST /api/v1/links/batch: each entry is a LINK_CREATE, checked on its own so that it fails alone. */
export const BATCH_CREATE = z.strictObject({
  links: z
    .array(z.unknown(), { error: 'links must be a list of links' })
    .min(1, { error: 'links must hold at least one link' })
    .max(BATCH_MAX, { error: (issue) => `links may hold at most ${BATCH_MAX} links, got ${(issue.input as unknown[]).length}` })
    .meta({
      items: { $ref: '#/components/schemas/LinkCreate' },
      description: 'An entry that fails its checks gets an error result; the others are stored all the same',
    }),
});

/** /api/v1/links and /api/v1/tags */
export function linksApiHandlers(web: WebServices) {
  const codeOf = (ctx: Context): string => ctx.params['code'] ?? '';
  const tagOf = (ctx: Context): string => ctx.params['tag'] ?? '';
  /** The API path of a link: `?domain=HOST` off the default domain. */
  const pathOf = (link: LinkAddress): string =>
    `${LINKS_PATH}/${link.code}${link.domain === DEFAULT_DOMAIN ? '' : `?domain=${encodeURIComponent(web.registry.hostOf(link.domain))}`}`;

  return {
    /** 201 with the new link's Location, or 200 with the earlier link of the same URL (dedupe). */
    async createLink(ctx: Context): Promise<void> {
      takeCreations(ctx, web, 1);
      const fields = parseBody(LINK_CREATE, await readBody(ctx.req, ['json']));
      const { link, created } = await web.creation.createLink(actorOf(ctx), fields);
      if (created) ctx.res.setHeader('Location', pathOf(link));
      sendJson(ctx.res, created ? 201 : 200, linkJson(link, web));
    },

    /**
     * Up to BATCH_MAX links in one request, answered with one result per entry, in order: created, existing
     * (dedupe) or error with its reason. The valid ones are stored even when others fail. The body may
     * be up to BULK_BODY_LIMIT; the batch counts its links against the creation limit.
     */
    async createLinks(ctx: Context): Promise<void> {
      const entries = parseBody(BATCH_CREATE, await readBody(ctx.req, ['json'], BULK_BODY_LIMIT)).links;
      takeCreations(ctx, web, entries.length);
      const results = (await web.creation.createEach(actorOf(ctx), entries, (entry) => parseBody(LINK_CREATE, entry))).map((result) =>
        result instanceof AppError
          ? { status: 'error', error: { code: result.code, message: result.message, ...(result.field ? { field: result.field } : {}) } }
          : { status: result.created ? 'created' : 'existing', link: linkJson(result.link, web) },
      );
      const count = (status: string) => results.filter((r) => r.status === status).length;
      sendJson(ctx.res, 200, { created: count('created'), existing: count('existing'), failed: count('error'), results });
    },

    async listLinks(ctx: Context): Promise<void> {
      const { domainHost, ownerName, ...query } = LIST_QUERY.parse(ctx.query);
      const domain = domainHost === undefined ? undefined : web.registry.idOf(domainHost);
      const owner = ownerName === undefined ? undefined : await web.owners.idOf(ownerName);
      const { links, next } = await web.links.listPage(actorOf(ctx), { ...query, domain, owner });
      sendJson(ctx.res, 200, { links: links.map((link) => linkJson(link, web)), nextCursor: next });
    },

    async showLink(ctx: Context): Promise<void> {
      const link = await web.links.existingLink(actorOf(ctx), codeOf(ctx), domainOf(ctx, web.registry));
      sendJson(ctx.res, 200, linkJson(link, web));
    },

    /** Sets the fields given (null clears an option; `domain` moves the link); the redirect follows at once. */
    async editLink(ctx: Context): Promise<void> {
      const domain = domainOf(ctx, web.registry);
      const { pages, ...fields } = parseBody(LINK_EDIT, await readBody(ctx.req, ['json']));
      // The pages before the redirect have their own use case (links/manage.ts setPages), set first.
      if (pages !== undefined) await web.links.setPages(actorOf(ctx), codeOf(ctx), pages, domain);
      const link =
        Object.keys(fields).length > 0
          ? await web.links.editLink(actorOf(ctx), codeOf(ctx), fields, domain)
          : await web.links.existingLink(actorOf(ctx), codeOf(ctx), domain);
      sendJson(ctx.res, 200, linkJson(link, web));
    },

    /** 204; the code answers 410 from then on and is never handed out again. Deleting twice is a 410. */
    async deleteLink(ctx: Context): Promise<void> {
      const { deleted } = await web.links.deleteLink(actorOf(ctx), codeOf(ctx), domainOf(ctx, web.registry));
      if (!deleted) throw new AppError('gone', `the link "${codeOf(ctx)}" was deleted already`);
      sendNoContent(ctx.res);
    },

    /** The link's redirect rules as they were set ([] for none). */
    async showRules(ctx: Context): Promise<void> {
      const rules = await web.links.rulesOf(actorOf(ctx), codeOf(ctx), domainOf(ctx, web.registry));
      sendJson(ctx.res, 200, { rules });
    },

    /** Replaces the link's redirect rules ([] clears them); every process's redirect follows at once. */
    async setRules(ctx: Context): Promise<void> {
      const domain = domainOf(ctx, web.registry);
      const { rules } = parseBody(RULES_BODY, await readBody(ctx.req, ['json']));
      sendJson(ctx.res, 200, { rules: await web.links.setRules(actorOf(ctx), codeOf(ctx), rules, domain) });
    },

    async listTags(ctx: Context): Promise<void> {
      sendJson(ctx.res, 200, { tags: await web.links.tagCounts(actorOf(ctx)) });
    },

    /** Renames (or merges) a tag on the caller's links (an admin: everyone's). */
    async renameTag(ctx: Context): Promise<void> {
      const { name } = parseBody(TAG_RENAME, await readBody(ctx.req, ['json']));
      sendJson(ctx.res, 200, await web.links.renameTag(actorOf(ctx), tagOf(ctx), name));
    },

    /** Takes a tag off the caller's links (an admin: everyone's); the links stay. */
    async deleteTag(ctx: Context): Promise<void> {
      sendJson(ctx.res, 200, await web.links.deleteTag(actorOf(ctx), tagOf(ctx)));
    },
  };
}
