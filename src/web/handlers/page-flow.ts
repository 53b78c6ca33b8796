import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { DEFAULT_DOMAIN } from '../../domains/domain.ts';
import { checkPass, pageModel } from '../../edge/pages.ts';
import { readBody } from '../../http/body.ts';
import { sendPage, UNCACHED } from '../../http/respond.ts';
import { goneMessage, notFoundMessage } from '../../links/link.ts';
import { CODE } from '../../links/alias-rules.ts';
import { checkAnswers } from '../../rules/page-settings.ts';
import { isBot } from '../../visits/classify.ts';
import { leadOnHandlers, PassFacts } from './lead-on.ts';

/** The most a page's form may send: its fields' limits and then some; more is a 413. */
const FORM_BODY_LIMIT = 16 * 1024;

/**
 * `GET|POST /links/CODE/continue`: the way on from a page before the redirect (edge/pages.ts). The pass must
 * be the one the page gave (signed, for this link and query, not expired: else 400). The redirect is decided
 * again with the request's facts (lead-on.ts): a form the link still shows is checked (its problems re-render it, 400) and
 * its answers stored; then, the page passed, whatever the link would serve without it is answered with 303 See
 * Other, uncached, and counted as the visit; a bot gets 403 instead (it is shown pages, never targets). A pass
 * given past the link's password (unlock.ts) carries it on. Public, as the redirect is; no CSRF token: the pass is the
 * form's token, bound to the link, and a forged post could only lead someone on to the link they opened.
 */
export function pageFlowHandlers(web: WebServices) {
  const { decide, leadOn } = leadOnHandlers(web);

  return {
    async continueLink(ctx: Context): Promise<void> {
      const code = ctx.params['code'] ?? '';
      const posted = (ctx.method === 'POST' ? await readBody(ctx.req, ['form'], FORM_BODY_LIMIT) : ctx.query) as Record<string, unknown>;
      const query = typeof posted['query'] === 'string' ? posted['query'] : '';
      // The page posts to the host it was shown on: the link is the one on that Host's domain.
      const domain = web.registry.domainOfRequest(ctx.req.rawHeaders) ?? DEFAULT_DOMAIN;
      const target = CODE.test(code) ? await web.resolver.lookup(domain, code) : undefined;
      if (target === undefined) throw new AppError('not_found', notFoundMessage(code));
      if (target.deleted) throw new AppError('gone', goneMessage(code));
      const { verdict, unlocked } = checkPass(web.access, target.id, query, posted['pass'], web.now());
      if (verdict !== 'ok')
        throw new AppError(
          'invalid',
          verdict === 'expired'
            ? `this page of the link "${code}" has expired: open /${code} again`
            : `this is not a pass through a page of the link "${code}": open /${code} again`,
          'pass',
        );
      // Bots get the page, never the target: not through its button either (a crawler may post a form).
      if (isBot(ctx.get('user-agent')))
        throw new AppError('forbidden', `the link "${code}" shows a page first: bots are shown the page, not where it leads`);
      // A pass given past the link's password carries it on.
      const facts = new PassFacts(ctx.req, code, query, unlocked, web);
      const first = await decide(target, facts);
      if (first.outcome === 'page' && first.shown === 'form' && target.gate !== null && target.gate.pages.form !== null) {
        const { answers, problems } = checkAnswers(target.gate.pages.form, posted);
        if (Object.keys(problems).length > 0 || ctx.method === 'GET') {
          const shortUrl = web.shortUrl({ domain, code });
          const page = { code, linkId: target.id, query, shortUrl, now: web.now(), unlocked };
          const model = pageModel('form', target.gate, page, ctx.req, web.access, {
            values: ctx.method === 'GET' ? {} : (answers.values as Record<string, string>),
            problems: ctx.method === 'GET' ? {} : problems,
            consent: answers.consent,
          });
          ctx.res.setHeader('Cache-Control', UNCACHED);
          sendPage(ctx.res, ctx.method === 'GET' ? 200 : 400, web.render('page', { ...model }));
          return;
        }
        await web.links.recordFormAnswer(target.id, answers);
      }
      facts.pagePassed = true;
      await leadOn(ctx, code, domain, target, facts);
    },
  };
}
