import type { Context } from 'koa';
import { isAdmin } from '../../auth/actor.ts';
import { actorOf } from '../session.ts';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { sendJson, sendStream } from '../../http/respond.ts';
import { instanceStatsJson, linkStatsJson } from '../../visits/stats-json.ts';
import { DAYS_QUERY, EXPORT_QUERY, STATS_QUERY } from '../../visits/stats-query.ts';
import { exportLines } from '../../transfer/visit-format.ts';
import { single } from '../../links/list-query.ts';
import { domainOf } from '../domain-param.ts';

const CONTENT_TYPES = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson; charset=utf-8' } as const;

/** /api/v1/links/CODE/stats, /api/v1/stats and /api/v1/export */
export function statsApiHandlers(web: WebServices) {
  return {
    async showLinkStats(ctx: Context): Promise<void> {
      const period = STATS_QUERY.parse(ctx.query);
      const link = await web.links.existingLink(actorOf(ctx), ctx.params['code'] ?? '', domainOf(ctx, web.registry));
      sendJson(ctx.res, 200, linkStatsJson(await web.stats.forLink(link, period)));
    },

    async showStats(ctx: Context): Promise<void> {
      const { days, ownerName } = DAYS_QUERY.parse(ctx.query);
      const owner = ownerName === undefined ? undefined : await web.owners.idOf(ownerName);
      sendJson(ctx.res, 200, instanceStatsJson(await web.stats.figuresFor(actorOf(ctx), days, owner), web));
    },

    /**
     * Streams every link or every raw visit kept, a page of rows at a time, so memory stays flat however
     * many there are. A failure half-way ends the response early (its status is sent already) and is logged.
     */
    async exportData(ctx: Context): Promise<void> {
      const query = EXPORT_QUERY.parse(ctx.query);
      const host = single(ctx.query, 'domain');
      if (host !== undefined && query.what !== 'links') throw new AppError('invalid', 'domain applies to what=links only', 'domain');
      const domain = host === undefined ? undefined : web.registry.idOf(host);
      // Raw visits are every link's: an admin's to take. A member exports their own links.
      if (query.what === 'visits' && !isAdmin(actorOf(ctx)))
        throw new AppError('forbidden', "only an admin exports the visits (they are every link's)", 'what');
      const sources = {
        links: () => web.transfer.exportLinks(actorOf(ctx), domain),
        domainOf: web.transfer.fileDomain,
        visits: (from: Date, to: Date) => web.stats.visits(from, to),
      };
      // A key or session on the network never carries away the password hashes: only `kurz export` does.
      const lines = exportLines(sources, query, 'without-hashes');
      const headers = {
        'Content-Type': CONTENT_TYPES[query.format],
        'Content-Disposition': `attachment; filename="kurz-${query.what}.${query.format}"`,
        'Cache-Control': 'no-store',
      };
      try {
        await sendStream(ctx.res, 200, headers, lines);
      } catch (err) {
        web.log.error('export ended early', { requestId: web.pipeline.contextOf(ctx.req).id, what: query.what, err });
      }
    },
  };
}
