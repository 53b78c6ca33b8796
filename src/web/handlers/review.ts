import type { Context } from 'koa';
import { listedMessage } from '../../blocklist/blocklist.ts';
import type { WebServices } from '../../context.ts';
import { sendJson, sendSeeOther } from '../../http/respond.ts';
import { linkJson } from '../../links/link-json.ts';
import type { Verdict, WaitingLink } from '../../links/review.ts';
import { domainOf, domainQuery } from '../domain-param.ts';
import { linkRow } from '../presenters.ts';
import { actorOf, readForm } from '../session.ts';
import { showPage } from './pages.ts';

/** What the queue says after a verdict, by the parameter in its query string (its value the link's code). */
const NOTICES = ['approved', 'rejected'] as const;

/** A waiting link as the queue shows it: the link's row, its creator, and the blocklists' word on its target. */
function waitingRow({ link, listed }: WaitingLink, web: WebServices) {
  const domain = domainQuery(link.domain, web.registry);
  return {
    ...linkRow(link, web),
    action: (verdict: Verdict) => `/review/${encodeURIComponent(link.code)}/${verdict}${domain === '' ? '' : `?${domain}`}`,
    listed: listed ? listedMessage(listed, URL.parse(link.url)?.hostname ?? '') : null,
    blocked: link.blocked && `${link.blocked.rule} (${link.blocked.list})`,
  };
}

/** /review, the admins' queue of links waiting for review, and the API's approve and reject. */
export function reviewHandlers(web: WebServices) {
  const codeOf = (ctx: Context): string => ctx.params['code'] ?? '';

  /** The API's verdict: the link as it now is. */
  const decideByApi = (verdict: Verdict) => async (ctx: Context) => {
    const link = await web.review.decide(actorOf(ctx), codeOf(ctx), verdict, domainOf(ctx, web.registry));
    sendJson(ctx.res, 200, linkJson(link, web));
  };

  /** POST /review/CODE/approve|reject: the verdict, then back to the queue (Post/Redirect/Get). */
  const decideByForm = (verdict: Verdict) => async (ctx: Context) => {
    await readForm(ctx, web);
    const link = await web.review.decide(actorOf(ctx), codeOf(ctx), verdict, domainOf(ctx, web.registry));
    sendSeeOther(ctx.res, `/review?${verdict === 'approve' ? 'approved' : 'rejected'}=${encodeURIComponent(link.code)}`);
  };

  return {
    /** The waiting links, newest first, each with approve and reject buttons (forms: no script needed). */
    async showQueue(ctx: Context): Promise<void> {
      const [waiting, count] = await Promise.all([web.review.waiting(actorOf(ctx)), web.review.pendingCount()]);
      const notice = NOTICES.map((kind) => ({ kind, code: ctx.query[kind] })).find((n) => typeof n.code === 'string') ?? null;
      showPage(ctx, web, 200, 'review', {
        title: 'Review',
        section: 'review',
        links: waiting.map((w) => waitingRow(w, web)),
        count,
        setting: web.config.reviewNewLinks,
        blocklist: web.config.blocklist !== '',
        domains: web.registry.several(),
        notice,
      });
    },

    approveByForm: decideByForm('approve'),
    rejectByForm: decideByForm('reject'),
    approveLink: decideByApi('approve'),
    rejectLink: decideByApi('reject'),
  };
}
