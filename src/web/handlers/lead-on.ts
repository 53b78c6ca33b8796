import type { Context } from 'koa';
import type { IncomingMessage } from 'node:http';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import {
  decideRedirect,
  newDecision,
  settleVisitCheck,
  type Decision,
  type RedirectFacts,
  type RedirectSettings,
} from '../../edge/redirect-decision.ts';
import { pageModel } from '../../edge/pages.ts';
import { sendPage, sendSeeOther, UNCACHED } from '../../http/respond.ts';
import { goneMessage, guardedMessage, refusalMessage, unavailableMessage, type Target } from '../../links/link.ts';
import { dayOf } from '../../visits/visit.ts';
import { visitorDraw } from '../../visits/visitor-salts.ts';

// Deciding a redirect again past what stood before it: a page before the redirect (its signed pass,
// web/handlers/page-flow.ts) or the link's password (web/handlers/unlock.ts). Both take the redirect's own
// decision (`decideRedirect`) with the request's facts and what the visitor has passed, so a link's rules,
// split, pages and visit limit apply past a password or a page exactly as on the redirect.

/** The facts of a request that leads on: the request's, for the visit's path and query, with what the visitor passed. */
export class PassFacts implements RedirectFacts {
  pagePassed = false;
  /** The day's visitor salt, once loaded for an A/B split. */
  salt: Buffer | undefined;
  /**
   * A person's: the pass or the password says so. A bot is refused before a page's pass is taken
   * (page-flow.ts); a script that knows the password is let through, as the unlock always has.
   */
  readonly isBot = false;
  /** A preview bot gets the page, which holds no target, never its card here. */
  readonly isPreviewBot = false;
  readonly method = 'GET';
  readonly wantsHtml = true;
  readonly url: string;
  readonly query: string;
  readonly passwordPassed: boolean;
  readonly #req: IncomingMessage;
  readonly #web: WebServices;

  constructor(req: IncomingMessage, code: string, query: string, passwordPassed: boolean, web: WebServices) {
    this.#req = req;
    this.#web = web;
    this.url = `/${code}${query === '' ? '' : `?${query}`}`;
    this.query = query;
    this.passwordPassed = passwordPassed;
  }

  get host(): string | undefined {
    return this.#req.headers.host;
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

/** How a request that led on is answered: `leadOn`, and `decide` for a look before it (a page's form). */
export interface LeadOn {
  /** The redirect's decision for `target` with `facts`, the day's salt loaded first when a split needs it. */
  decide(target: Target, facts: PassFacts): Promise<Decision>;
  /**
   * Answers what link `code` (on `domain`) serves past what `facts` passed: a page still due (a rule's page
   * after the password), a 303 See Other to the target, uncached and counted as the visit, or why not.
   */
  leadOn(ctx: Context, code: string, domain: number, target: Target, facts: PassFacts): Promise<void>;
}

export function leadOnHandlers(web: WebServices): LeadOn {
  const settings: RedirectSettings = {
    redirectStatus: web.config.redirectStatus,
    forwardQuery: web.config.forwardQuery,
    notFoundRedirect: null,
  };

  async function decide(target: Target, facts: PassFacts): Promise<Decision> {
    const decided = decideRedirect(target, facts, settings, newDecision());
    if (decided.outcome !== 'load_salt') return decided;
    facts.salt = await web.salts.load(dayOf(web.now()));
    return decideRedirect(target, facts, settings, newDecision());
  }

  return {
    decide,
    async leadOn(ctx, code, domain, target, facts) {
      let decided = await decide(target, facts);
      if (decided.outcome === 'claim_visit' || decided.outcome === 'ask_visits_left')
        decided = settleVisitCheck(
          decided,
          await (decided.outcome === 'claim_visit' ? web.links.claimVisit(target.id) : web.links.hasVisitsLeft(target.id)),
        );
      switch (decided.outcome) {
        case 'redirect':
          sendSeeOther(ctx.res, decided.location, UNCACHED);
          web.visits.record(target.id, web.now(), web.pipeline.clientOf(ctx.req), ctx.req.rawHeaders, decided.variant, decided.rule);
          return;
        case 'page': {
          const page = {
            code,
            linkId: target.id,
            query: facts.query,
            shortUrl: web.shortUrl({ domain, code }),
            now: web.now(),
            unlocked: facts.passwordPassed,
          };
          ctx.res.setHeader('Cache-Control', UNCACHED);
          sendPage(ctx.res, 200, web.render('page', { ...pageModel(decided.shown, target.gate!, page, ctx.req, web.access) }));
          return;
        }
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
    },
  };
}
