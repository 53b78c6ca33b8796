import type { Context } from 'koa';
import type { IncomingMessage } from 'node:http';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { DEFAULT_DOMAIN } from '../../domains/domain.ts';
import { decideRedirect, newDecision, settleVisitCheck, type RedirectFacts } from '../../edge/redirect-decision.ts';
import { checkPass, pageModel } from '../../edge/pages.ts';
import { readBody } from '../../http/body.ts';
import { sendPage, sendSeeOther, UNCACHED } from '../../http/respond.ts';
import { goneMessage, guardedMessage, notFoundMessage, refusalMessage, unavailableMessage, type Target } from '../../links/link.ts';
import { CODE } from '../../links/alias-rules.ts';
import { checkAnswers } from '../../rules/page-settings.ts';
import { isBot } from '../../visits/classify.ts';
import { dayOf } from '../../visits/visit.ts';
import { visitorDraw } from '../../visits/visitor-salts.ts';

/** The most a page's form may send: its fields' limits and then some; more is a 413. */
const FORM_BODY_LIMIT = 16 * 1024;

/**
 * `GET|POST /links/CODE/continue`: the way on from a page before the redirect (edge/pages.ts). The pass must
 * be the one the page gave (signed, for this link and query, not expired: else 400). The redirect is decided
 * again with the request's facts: a form the link still shows is checked (its problems re-render it, 400) and
 * its answers stored; then, the page passed, whatever the link would serve without it is answered with 303 See
 * Other, uncached, and counted as the visit; a bot gets 403 instead (it is shown pages, never targets). Public, as the redirect is; no CSRF token: the pass is the
 * form's token, bound to the link, and a forged post could only lead someone on to the link they opened.
 */
export function pageFlowHandlers(web: WebServices) {
  const settings = { redirectStatus: web.config.redirectStatus, forwardQuery: web.config.forwardQuery, notFoundRedirect: null };

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
      const verdict = checkPass(web.access, target.id, query, posted['pass'], web.now());
      if (verdict !== 'ok')
        throw new AppError(
          'invalid',
          verdict === 'expired'
            ? `this page of the link "${code}" has expired: open /${code} again`
            : `this is not a pass through a page of the link "${code}": open /${code} again`,
          'pass',
        );
      const facts = new PassFacts(ctx.req, code, query, web);
      // Bots get the page, never the target: not through its button either (a crawler may post a form).
      if (facts.isBot)
        throw new AppError('forbidden', `the link "${code}" shows a page first: bots are shown the page, not where it leads`);
      const first = decideRedirect(target, facts, settings, newDecision());
      if (first.outcome === 'page' && first.shown === 'form' && target.gate !== null && target.gate.pages.form !== null) {
        const { answers, problems } = checkAnswers(target.gate.pages.form, posted);
        if (Object.keys(problems).length > 0 || ctx.method === 'GET') {
          const shortUrl = web.shortUrl({ domain, code });
          const model = pageModel('form', target.gate, { code, linkId: target.id, query, shortUrl, now: web.now() }, ctx.req, web.access, {
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
      await leadOn(ctx, code, target, facts);
    },
  };

  /** Answers what the link serves past its pages: a 303 to the target, counted as a visit, or why not. */
  async function leadOn(ctx: Context, code: string, target: Target, facts: PassFacts): Promise<void> {
    let decided = decideRedirect(target, facts, settings, newDecision());
    // An A/B split past the page draws from the visitor's daily hash, as the redirect does: its salt loaded first.
    if (decided.outcome === 'load_salt') {
      facts.salt = await web.salts.load(dayOf(web.now()));
      decided = decideRedirect(target, facts, settings, newDecision());
    }
    if (decided.outcome === 'claim_visit' || decided.outcome === 'ask_visits_left')
      decided = settleVisitCheck(
        decided,
        await (decided.outcome === 'claim_visit' ? web.links.claimVisit(target.id) : web.links.hasVisitsLeft(target.id)),
      );
    switch (decided.outcome) {
      case 'redirect':
        sendSeeOther(ctx.res, decided.location, UNCACHED);
        web.visits.record(target.id, web.now(), web.pipeline.clientOf(ctx.req), ctx.req.rawHeaders, decided.variant);
        return;
      case 'refused':
        throw new AppError(decided.refusal === 'in_review' ? 'forbidden' : 'gone', refusalMessage(code, decided.refusal));
      case 'unavailable':
        throw new AppError('forbidden', unavailableMessage(code, decided.unavailable));
      case 'password':
        throw new AppError('unauthorized', `the link "${code}" is protected by a password`);
      case 'guarded':
        throw new AppError('forbidden', guardedMessage(code));
      default:
        throw new AppError('gone', goneMessage(code));
    }
  }
}

/** The facts of a continue: the request's, with the visit's path and query, and whether the page is passed. */
class PassFacts implements RedirectFacts {
  pagePassed = false;
  /** The day's visitor salt, once loaded for an A/B split. */
  salt: Buffer | undefined;
  /** A continue is a person's: a preview bot gets the page, which holds no target, never its card here. */
  readonly isPreviewBot = false;
  readonly method = 'GET';
  readonly wantsHtml = true;
  readonly url: string;
  readonly #req: IncomingMessage;
  readonly #web: WebServices;

  constructor(req: IncomingMessage, code: string, query: string, web: WebServices) {
    this.#req = req;
    this.#web = web;
    this.url = `/${code}${query === '' ? '' : `?${query}`}`;
    this.query = query;
  }

  readonly query: string;
  get host(): string | undefined {
    return this.#req.headers.host;
  }
  get isBot(): boolean {
    return isBot(this.userAgent);
  }
  get now(): number {
    return this.#web.now();
  }
  get userAgent(): string {
    return this.#req.headers['user-agent'] ?? '';
  }
  get acceptLanguage(): string {
    return this.#req.headers['accept-language'] ?? '';
  }
  get clientAddress(): string {
    return this.#web.pipeline.clientOf(this.#req);
  }
  country(): string | null {
    return this.#web.countryOf(this.clientAddress);
  }
  city(): string | null {
    return this.#web.cityOf(this.clientAddress);
  }
  visitorDraw(linkId: number): number | undefined {
    return this.salt === undefined ? undefined : visitorDraw(this.salt, this.clientAddress, this.userAgent, linkId);
  }
}
