import type { Context } from 'koa';
import { auditJson, userFilter } from '../../audit/audit-json.ts';
import { AUDIT_QUERY, LINK_AUDIT_QUERY } from '../../audit/audit-query.ts';
import { actorOf } from '../session.ts';
import type { WebServices } from '../../context.ts';
import { sendJson } from '../../http/respond.ts';
import { domainOf } from '../domain-param.ts';

/** GET /api/v1/audit (admin) and GET /api/v1/links/CODE/audit: the audit trail's entries, newest first, in pages. */
export function auditApiHandlers(web: WebServices) {
  return {
    async listAudit(ctx: Context): Promise<void> {
      const { link, domain: _domain, user, ...filter } = AUDIT_QUERY.parse(ctx.query);
      const subject =
        link === undefined
          ? undefined
          : { kind: 'link' as const, id: (await web.links.existingLink(actorOf(ctx), link, domainOf(ctx, web.registry))).id };
      const page = await web.audit.list({ ...filter, user: userFilter(user), subject });
      sendJson(ctx.res, 200, { entries: page.entries.map(auditJson), nextCursor: page.next });
    },

    async showLinkAudit(ctx: Context): Promise<void> {
      const { from, to, limit, cursor } = LINK_AUDIT_QUERY.parse(ctx.query);
      const link = await web.links.existingLink(actorOf(ctx), ctx.params['code'] ?? '', domainOf(ctx, web.registry));
      const page = await web.audit.list({ from, to, limit, cursor, subject: { kind: 'link', id: link.id } });
      sendJson(ctx.res, 200, { entries: page.entries.map(auditJson), nextCursor: page.next });
    },
  };
}
