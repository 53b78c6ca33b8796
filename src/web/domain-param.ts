import type { Context } from 'koa';
import * as z from 'zod';
import type { QuerySchema } from '../core/request-schema.ts';
import type { DomainRegistry } from '../domains/registry.ts';
import { DOMAIN_PARAM, single } from '../links/list-query.ts';

// A link is addressed by its code and its domain: `?domain=HOST` on every route of one link (API and pages),
// absent for the default domain, so that a default-domain link keeps the address it had before domains.

/** `?domain=HOST` alone: the routes of one link that take no other parameter. */
export const DOMAIN_QUERY: QuerySchema<string | undefined> = {
  params: z.object({ domain: DOMAIN_PARAM }),
  parse: (query) => single(query, 'domain'),
};

/** `query` with `?domain=HOST` besides, for the document (the handler reads the domain with domainOf). */
export function withDomain<T>(query: QuerySchema<T>): QuerySchema<T> {
  return { params: query.params.extend({ domain: DOMAIN_PARAM }), parse: query.parse };
}

/** The id of the domain `?domain=` names; the default domain when absent. Throws AppError('invalid', …, 'domain') for a bad or unknown host. */
export function domainOf(ctx: Context, registry: DomainRegistry): number {
  return registry.idOf(DOMAIN_QUERY.parse(ctx.query));
}

/** The query string that addresses a link on `domain` in the pages' URLs: '' on the default domain, else `domain=HOST`. */
export function domainQuery(domain: number, registry: DomainRegistry): string {
  return domain === 0 ? '' : `domain=${encodeURIComponent(registry.hostOf(domain))}`;
}

/** The link page a form that made a link (or found the earlier one) sends the browser to: `?created` or `?existing`. */
export function madeLinkPath(link: { domain: number; code: string }, created: boolean, registry: DomainRegistry): string {
  const domain = domainQuery(link.domain, registry);
  const flag = created ? 'created' : 'existing';
  return `/links/${encodeURIComponent(link.code)}?${domain === '' ? flag : `${domain}&${flag}`}`;
}
