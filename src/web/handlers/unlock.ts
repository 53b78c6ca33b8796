import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { readBody } from '../../http/body.ts';
import { asClientError, sendRetryAfter } from '../../http/problems.ts';
import { sendPage, wantsHtml } from '../../http/respond.ts';
import { notFoundMessage } from '../../links/link.ts';
import { DEFAULT_DOMAIN } from '../../domains/domain.ts';
import { leadOnHandlers, PassFacts } from './lead-on.ts';

/**
 * POST /links/CODE/unlock: the password form of a password link, for the link on the domain the Host names. The
 * right password leads on (lead-on.ts) as the redirect would past it: a page the link's rules show first (its
 * pass carries the password on), or 303 See Other, so that the browser GETs the target and the password is
 * never re-sent to it (307/308 would re-post it); never cached, as no gated link's redirect is.
 * No CSRF token: this form changes nothing of its sender's, and a forged one would need the password.
 */
export function unlockHandlers(web: WebServices) {
  const { leadOn } = leadOnHandlers(web);
  return {
    async unlockLink(ctx: Context): Promise<void> {
      const code = ctx.params['code'] ?? '';
      const body = (await readBody(ctx.req, ['form', 'json'])) as Record<string, unknown>;
      try {
        const { limitKey } = web.pipeline.contextOf(ctx.req);
        // The form posts to the host it was shown on: the link is the one on that Host's domain.
        const domain = web.registry.domainOfRequest(ctx.req.rawHeaders) ?? DEFAULT_DOMAIN;
        await web.links.unlockLink(code, body['password'], limitKey, domain);
        // Past the password the link serves what the redirect would: its rules, split, pages and visit limit.
        const target = await web.resolver.lookup(domain, code);
        if (target === undefined) throw new AppError('not_found', notFoundMessage(code));
        await leadOn(ctx, code, domain, target, new PassFacts(ctx.req, code, ctx.querystring, true, web));
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
