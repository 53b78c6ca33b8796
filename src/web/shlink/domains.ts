import type { Context } from 'koa';
import { isAdmin } from '../../auth/actor.ts';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { DEFAULT_DOMAIN, type Domain } from '../../domains/domain.ts';
import { readBody } from '../../http/body.ts';
import { sendJson } from '../../http/respond.ts';
import { actorOf } from '../session.ts';
import { domainNotFound, invalidData } from './problems.ts';

/**
 * A domain's redirects in Shlink's words: its root redirect is Shlink's `baseUrlRedirect`, its redirect for an
 * unknown code `invalidShortUrlRedirect`; kurz has no redirect for other paths (`regular404Redirect`).
 */
function redirectsOf(domain: Domain | undefined) {
  return {
    baseUrlRedirect: domain?.rootRedirect ?? null,
    regular404Redirect: null,
    invalidShortUrlRedirect: domain?.notFoundRedirect ?? null,
  };
}

/** /rest/v{1,2,3}/domains */
export function shlinkDomainHandlers(web: WebServices) {
  return {
    /** The domains the caller may create short URLs on (an admin: every one), the default first, with their redirects. */
    listDomains(ctx: Context): void {
      const actor = actorOf(ctx);
      const domains = isAdmin(actor) ? web.registry.all() : web.registry.usableBy(actor);
      const data = domains.map((domain) => ({
        domain: domain.host,
        isDefault: domain.id === DEFAULT_DOMAIN,
        redirects: redirectsOf(domain),
      }));
      sendJson(ctx.res, 200, { domains: { data, defaultRedirects: redirectsOf(web.registry.byId(DEFAULT_DOMAIN)) } });
    },

    /** Sets a domain's redirects (admins, as kurz's own domain API); absent keeps one, null clears it. */
    async setDomainRedirects(ctx: Context): Promise<void> {
      const body = await readBody(ctx.req, ['json']);
      const fields = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
      const host = fields['domain'];
      if (typeof host !== 'string' || host === '') throw invalidData(['domain'], 'domain is required: the host whose redirects to set');
      if (fields['regular404Redirect'] !== undefined && fields['regular404Redirect'] !== null)
        throw invalidData(['regular404Redirect'], 'kurz has no redirect for paths other than codes: regular404Redirect must be null');
      const input = {
        ...(fields['baseUrlRedirect'] === undefined ? {} : { rootRedirect: fields['baseUrlRedirect'] }),
        ...(fields['invalidShortUrlRedirect'] === undefined ? {} : { notFoundRedirect: fields['invalidShortUrlRedirect'] }),
      };
      try {
        const id = web.registry.idOf(host);
        const domain =
          Object.keys(input).length === 0
            ? web.registry.byId(id)
            : await web.domains.editDomain(actorOf(ctx), web.registry.hostOf(id), input);
        sendJson(ctx.res, 200, redirectsOf(domain));
      } catch (err) {
        if (err instanceof AppError && (err.code === 'not_found' || (err.code === 'invalid' && err.field === 'domain')))
          throw domainNotFound(host);
        throw err;
      }
    },
  };
}
