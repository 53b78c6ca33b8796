import type { Context } from 'koa';
import * as z from 'zod';
import type { WebServices } from '../../context.ts';
import { orNull, jsonSchemaOf, parseBody, ruled } from '../../core/request-schema.ts';
import { readBody } from '../../http/body.ts';
import { sendJson, sendNoContent } from '../../http/respond.ts';
import { domainJson } from '../../domains/domain-json.ts';
import { normaliseHost, type Domain } from '../../domains/domain.ts';
import { DOMAIN_FIELDS, MAX_DOMAIN_USERS } from '../../domains/manage.ts';
import { isAdmin } from '../../auth/actor.ts';
import { AppError } from '../../core/errors.ts';
import { actorOf } from '../session.ts';

const DOMAINS_PATH = '/api/v1/domains';

/** Passes a value on as it came: the use case (domains/manage.ts) checks it as it stores. */
const asGiven = (value: unknown): unknown => value;

const REDIRECT_URL = (what: string) =>
  ruled(
    orNull(
      jsonSchemaOf(
        z.string().meta({ format: 'uri', description: `${what}; an absolute http(s) URL on none of kurz's domains. null or '' clears it` }),
      ),
    ),
    asGiven,
  );

/** The fields a domain is added and edited with. */
const DOMAIN_SHAPE = {
  scheme: ruled(
    {
      type: ['string', 'null'],
      enum: ['http', 'https', null],
      description: "What its short URLs start with; null: the default domain's scheme",
    },
    asGiven,
  ),
  notFoundRedirect: REDIRECT_URL('Where an unknown code on this domain sends visitors instead of the 404 page'),
  rootRedirect: REDIRECT_URL("Where a visitor's / on this domain is sent instead of kurz's home page"),
  users: ruled(
    {
      type: ['array', 'null'],
      items: { type: 'string' },
      maxItems: MAX_DOMAIN_USERS,
      description:
        'The names of the users who may create links on it (and move links to it); null: every user. Admins always may, so [] leaves it to them. A user taken off keeps their links there',
    },
    asGiven,
  ),
};

/** POST /api/v1/domains: a new short domain. */
export const DOMAIN_CREATE = z.strictObject({
  host: ruled(
    z.string().describe('A host name (any case, a trailing dot or IDN allowed; stored lower-cased, as punycode); no scheme, port or path'),
    (value) => normaliseHost(value),
  ).nonoptional({ error: 'host is required' }),
  ...DOMAIN_SHAPE,
});

/** PATCH /api/v1/domains/HOST: the fields to change (null clears one). */
export const DOMAIN_EDIT = z
  .strictObject(DOMAIN_SHAPE)
  .refine((fields) => Object.keys(fields).length > 0, { error: `give at least one field to change (${DOMAIN_FIELDS.join(', ')})` })
  .meta({ minProperties: 1 });

/** A domain as the API shows it (domains/domain-json.ts). */
export const DOMAIN_JSON = z.strictObject({
  host: z.string().describe("Lower case, IDN as punycode; the publicUrl's host for the default domain"),
  isDefault: z.boolean(),
  scheme: z.enum(['http', 'https']).nullable().describe("null: the default domain's (the publicUrl's) scheme"),
  notFoundRedirect: z.string().nullable(),
  rootRedirect: z.string().nullable(),
  users: z
    .array(z.string())
    .nullable()
    .optional()
    .describe('Who may create links on it (null: every user); shown to admins only, a member sees only the domains they may use'),
  links: z.int().min(0).optional().describe("Live links on it, every user's: shown to admins only"),
  createdAt: z.string().meta({ format: 'date-time' }),
});

/** /api/v1/domains: kurz's short domains. */
export function domainsApiHandlers(web: WebServices) {
  const hostOf = (ctx: Context): string => ctx.params['host'] ?? '';
  /** The domain with its live links now. */
  const withLinks = async (domain: Domain, withUsers = true) => {
    const links = (await web.domains.listDomains()).find((d) => d.id === domain.id)?.links ?? 0;
    return domainJson({ ...domain, links }, withUsers);
  };

  return {
    /** Every domain for an admin; a member's are those they may create links on. */
    async listDomains(ctx: Context): Promise<void> {
      const actor = actorOf(ctx);
      const admin = isAdmin(actor);
      const domains = (await web.domains.listDomains()).filter((d) => admin || web.registry.mayUse(actor, d.id));
      sendJson(ctx.res, 200, { domains: domains.map((d) => domainJson(d, admin)) });
    },

    /** 201 with the new domain's Location; 409 when the host is kurz's already. */
    async addDomain(ctx: Context): Promise<void> {
      const { host, ...fields } = parseBody(DOMAIN_CREATE, await readBody(ctx.req, ['json']));
      const added = await web.domains.addDomain(actorOf(ctx), host, fields);
      ctx.res.setHeader('Location', `${DOMAINS_PATH}/${added.host}`);
      sendJson(ctx.res, 201, domainJson({ ...added, links: 0 }));
    },

    /** A domain a member may not use is not found for them. */
    async showDomain(ctx: Context): Promise<void> {
      const actor = actorOf(ctx);
      const domain = web.domains.named(hostOf(ctx));
      if (!web.registry.mayUse(actor, domain.id)) throw new AppError('not_found', `no domain ${JSON.stringify(domain.host)}`);
      sendJson(ctx.res, 200, await withLinks(domain, isAdmin(actor)));
    },

    /** Sets the fields given; null clears one. The redirect of every process follows. */
    async editDomain(ctx: Context): Promise<void> {
      const fields = parseBody(DOMAIN_EDIT, await readBody(ctx.req, ['json']));
      sendJson(ctx.res, 200, await withLinks(await web.domains.editDomain(actorOf(ctx), hostOf(ctx), fields)));
    },

    /** 204; 409 while live links are on it, and for the default domain. */
    async removeDomain(ctx: Context): Promise<void> {
      await web.domains.removeDomain(actorOf(ctx), hostOf(ctx));
      sendNoContent(ctx.res);
    },
  };
}
