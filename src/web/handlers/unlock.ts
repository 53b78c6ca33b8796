import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { readBody } from '../../http/body.ts';
import { asClientError, sendRetryAfter } from '../../http/problems.ts';
import { sendPage, sendSeeOther, UNCACHED, wantsHtml } from '../../http/respond.ts';
import { locationOf } from '../../links/gate.ts';
import { refusalMessage } from '../../links/link.ts';
import { DEFAULT_DOMAIN } from '../../domains/domain.ts';
import { drawVariant } from '../../rules/match.ts';
import { dayOf } from '../../visits/visit.ts';
import { visitorDraw } from '../../visits/visitor-salts.ts';

/**
 * POST /links/CODE/unlock: the password form of a password link, for the link on the domain the Host names. The right password leads on with 303 See Other, so
 * that the browser GETs the target and the password is never re-sent to it (307/308 would re-post it);
 * never cached, as no gated link's redirect is.
 * No CSRF token: this form changes nothing of its sender's, and a forged one would need the password.
 */
export function unlockHandlers(web: WebServices) {
  return {
    async unlockLink(ctx: Context): Promise<void> {
      const code = ctx.params['code'] ?? '';
      const body = (await readBody(ctx.req, ['form', 'json'])) as Record<string, unknown>;
      try {
        const { client, limitKey } = web.pipeline.contextOf(ctx.req);
        // The form posts to the host it was shown on: the link is the one on that Host's domain.
        const domain = web.registry.domainOfRequest(ctx.req.rawHeaders) ?? DEFAULT_DOMAIN;
        const link = await web.links.unlockLink(code, body['password'], limitKey, domain);
        if (link.maxVisits !== null && !(await web.links.claimVisit(link.id))) throw new AppError('gone', refusalMessage(code, 'used_up'));
        // A link's own A/B split draws as the redirect does, from the visitor's daily hash (visits/visitor-salts.ts).
        let variant = '';
        if (link.split !== null) {
          const salt = await web.salts.load(dayOf(web.now()));
          variant = drawVariant(link.split, visitorDraw(salt, client, ctx.get('user-agent'), link.id))?.url ?? '';
        }
        const url = variant === '' ? link.url : variant;
        web.visits.record(link.id, web.now(), client, ctx.req.rawHeaders, variant);
        sendSeeOther(ctx.res, locationOf(url, ctx.querystring, link.forwardQuery ?? web.config.forwardQuery), UNCACHED);
      } catch (err) {
        const problem = asClientError(err);
        if (!(err instanceof AppError) || !problem || !wantsHtml(ctx.req) || (err.code !== 'unauthorized' && err.code !== 'rate_limited'))
          throw err;
        sendRetryAfter(ctx.res, problem);
        sendPage(
          ctx.res,
          STATUS[err.code],
          web.render('password', { title: 'Password required', code, query: ctx.querystring, error: err.message }),
        );
      }
    },
  };
}
