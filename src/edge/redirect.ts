import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebServices } from '../context.ts';
import { CODE } from '../links/alias-rules.ts';
import { queryOf } from '../links/gate.ts';
import { goneMessage, guardedMessage, notFoundMessage, refusalMessage, unavailableMessage, type Target } from '../links/link.ts';
import { sendClientError, sendError } from '../http/problems.ts';
import { HSTS, sendJson, sendPage, sendProblem, sendRedirect, UNCACHED, wantsHtml } from '../http/respond.ts';
import { RESERVED_PATHS } from '../links/reserved-paths.ts';
import { rawHeader } from '../core/raw-headers.ts';
import { cachedBotCheck, cachedClassifier, cachedPreviewCheck, type ClientKind } from '../visits/classify.ts';
import type { CityOf, CountryOf } from '../visits/geo.ts';
import { dayOf } from '../visits/visit.ts';
import { visitorDraw, type VisitorSalts } from '../visits/visitor-salts.ts';
import { pageModel } from './pages.ts';
import {
  decideRedirect,
  misdirected,
  newDecision,
  settleVisitCheck,
  type Decision,
  type RedirectFacts,
  type RedirectSettings,
} from './redirect-decision.ts';

/** The redirect's name in the request counter. */
export const REDIRECT_ROUTE = 'redirect';

/**
 * The segment a request for a redirect names: a GET or HEAD of one path segment (a query string is
 * ignored, percent-encoding decoded) that is not one of kurz's own paths. Undefined for anything else.
 */
export function redirectSegment(req: IncomingMessage): string | undefined {
  const { method, url = '' } = req;
  return method === 'GET' || method === 'HEAD' ? redirectPathSegment(url) : undefined;
}

/** The methods a redirect path answers. */
export const REDIRECT_METHODS = ['GET', 'HEAD'] as const;

/** The segment a request-target names when it is a redirect's path, whatever the method; else undefined. */
export function redirectPathSegment(url: string): string | undefined {
  if (url.charCodeAt(0) !== 47 /* / */) return undefined;
  const end = url.indexOf('?');
  let segment = end === -1 ? url.slice(1) : url.slice(1, end);
  if (segment === '' || segment.includes('/')) return undefined;
  if (segment.includes('%')) {
    try {
      segment = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
  }
  // Exact case: Koa's routes are case-sensitive, and no code spells a reserved path in any case.
  return RESERVED_PATHS.has(segment) ? undefined : segment;
}

/**
 * THE redirect: `GET|HEAD /CODE`, answered at once from the cache or a store that can (SQLite), else
 * after one asynchronous store lookup. What to answer is `decideRedirect`'s (redirect-decision.ts: a pure
 * function of the link, the request's facts and the settings); `write` gives that answer, records the
 * visit when it counts and counts it, the one place that does. A live link gets a bodiless redirect and,
 * for a GET, a visit event in the buffer (HEAD comes from link checkers, not people). Unknown codes answer
 * 404 and deleted ones 410, as a page or problem+json. The head is written before the visit is recorded:
 * if Node refuses it (a target that is no valid header value, which only a hand-edited database holds),
 * nothing was counted and the error is a 500.
 *
 * A link with a visit limit is claimed from the store (or, for a look, asked whether visits are left)
 * between the decision and its answer. Each 404 counts against the client's `notFoundRateLimit`; past it,
 * the pipeline refuses the client's requests (429) before any lookup. Each redirect's duration goes to
 * `pipeline.redirectTimes`.
 */
export function redirectHandler(web: WebServices, hsts = false): (req: IncomingMessage, res: ServerResponse, segment: string) => void {
  const { resolver, visits, pipeline, render, config } = web;
  const { notFound } = web.limits;
  const times = pipeline.redirectTimes;
  const { registry } = web;
  const refuseUnknownHosts = config.unknownHosts === 'refuse';
  /** Each domain's settings, made when first needed and again after the domains change. */
  let settingsByDomain = new Map<number, RedirectSettings>();
  let settingsOf = registry.version;
  const settings = (domain: number): RedirectSettings => {
    if (settingsOf !== registry.version) {
      settingsByDomain = new Map();
      settingsOf = registry.version;
    }
    let found = settingsByDomain.get(domain);
    if (found === undefined) {
      const notFoundRedirect = registry.byId(domain)?.notFoundRedirect ?? null;
      found = { redirectStatus: config.redirectStatus, forwardQuery: config.forwardQuery, notFoundRedirect };
      settingsByDomain.set(domain, found);
    }
    return found;
  };
  // One of each, refilled for every decision: decisions are taken and written synchronously (a decision
  // that waits for the store is copied), so deciding allocates nothing.
  const facts = new RequestFacts(
    web.now,
    cachedBotCheck(1000),
    cachedPreviewCheck(1000),
    pipeline.clientOf,
    web.countryOf,
    web.salts,
    web.cityOf,
  );
  const decision = newDecision();
  /** The user agents the redirect rules read (a link with rules only). */
  const classify: (userAgent: string) => ClientKind = cachedClassifier(1000);

  /** Decides what the lookup found and answers it: at once, or (a visit limit) once the store has said; then the promise. */
  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    domain: number,
    target: Target | undefined,
  ): Promise<void> | undefined {
    facts.req = req;
    const decided = decideRedirect(target, facts, settings(domain), decision, classify);
    // An A/B split on a day whose salt this process does not hold yet: once loaded, decided again. A salt that
    // cannot be had (the store out of reach, a SQLite primary that could not make it) costs the visitor the
    // draw, never the redirect: decided again without the split, to the link's own target.
    if (decided.outcome === 'load_salt')
      return web.salts.load(dayOf(web.now())).then(
        () => answer(req, res, code, domain, target),
        (err: unknown) => {
          web.log.error('A/B split: no visitor salt for today; the link’s own target is served', { code, reason: (err as Error).message });
          facts.saltless = true;
          try {
            return answer(req, res, code, domain, target);
          } finally {
            facts.saltless = false;
          }
        },
      );
    return write(req, res, code, domain, target, decided);
  }

  /** Counts a 404 (an unknown code, sent to the 404 page or to its domain's not-found redirect) against the client's limit. */
  function countNotFound(req: IncomingMessage): void {
    const key = pipeline.notFoundKeyOf(req);
    if (key !== undefined) notFound.failed(key);
  }

  /**
   * The one writer: the answer to `req` that `decided` says, or the failure, then the visit when it counts
   * and the answer counted under the redirect's route (its duration is taken where the request came in).
   * A decision that needs the store first is answered when the store has said: the promise.
   */
  function write(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    domain: number,
    target: Target | undefined,
    decided: Answer,
  ): Promise<void> | undefined {
    // A redirect sends HSTS with its other headers (one `writeHead`), and a decision that asks the store first is
    // written by the call that has its answer; the rest (pages, problems) set their headers one by one anyway.
    const later = decided.outcome === 'claim_visit' || decided.outcome === 'ask_visits_left';
    if (hsts && decided.outcome !== 'redirect' && !later && !res.headersSent) res.setHeader('Strict-Transport-Security', HSTS);
    switch (decided.outcome) {
      case 'redirect':
        // An unknown code sent to its domain's not-found redirect counts as a 404.
        if (target === undefined) countNotFound(req);
        sendRedirect(res, decided.status, decided.location, decided.cache, hsts);
        break;
      case 'not_found':
        // Only a 404 is counted: a client that follows live links never touches the limit's map.
        countNotFound(req);
        sendClientError(req, res, { status: 404, code: 'not_found', message: notFoundMessage(code) }, render);
        break;
      case 'misdirected':
        sendClientError(
          req,
          res,
          { status: 421, code: 'misdirected', message: `kurz does not serve the host ${JSON.stringify(req.headers.host ?? '')}` },
          render,
        );
        break;
      case 'gone':
        sendClientError(req, res, { status: 410, code: 'gone', message: goneMessage(code) }, render);
        break;
      case 'refused':
        if (decided.refusal === 'in_review') {
          // It will lead on once approved: nothing may keep this answer.
          res.setHeader('Cache-Control', UNCACHED);
          const message = refusalMessage(code, 'in_review');
          if (wantsHtml(req)) sendPage(res, 403, render('reviewing', { title: 'This link is being reviewed', code, message }));
          else sendProblem(res, 403, 'forbidden', message);
        } else sendClientError(req, res, { status: 410, code: 'gone', message: refusalMessage(code, decided.refusal) }, render);
        break;
      case 'unavailable': {
        // It depends on who asks: nothing may keep this answer.
        res.setHeader('Cache-Control', UNCACHED);
        const status = decided.unavailable;
        if (decided.page) {
          const title = status === 451 ? 'Not available in your region' : 'Not available';
          sendPage(res, status, render('unavailable', { title, code, regional: status === 451 }));
        } else sendProblem(res, status, 'forbidden', unavailableMessage(code, status));
        break;
      }
      case 'preview': {
        const preview = target!.gate!.preview!;
        res.setHeader('Cache-Control', decided.cache);
        res.setHeader('Vary', 'User-Agent');
        sendPage(res, 200, render('preview', { preview, shortUrl: web.shortUrl({ domain, code }) }));
        break;
      }
      case 'page': {
        // It depends on who asks and leads on only through its pass: nothing may keep this answer.
        res.setHeader('Cache-Control', UNCACHED);
        const query = queryOf(req.url ?? '');
        // The page's Host names the link's domain, as the lookup found it (the default one for an unknown Host).
        const shortUrl = web.shortUrl({ domain: registry.domainOfRequest(req.rawHeaders) ?? 0, code });
        const model = pageModel(
          decided.shown,
          target!.gate!,
          { code, linkId: target!.id, query, shortUrl, now: web.now() },
          req,
          web.access,
        );
        sendPage(res, 200, render('page', { ...model }));
        break;
      }
      case 'password':
        if (decided.page)
          sendPage(res, 200, render('password', { title: 'Password required', code, query: queryOf(req.url ?? ''), error: null }));
        else
          sendProblem(
            res,
            401,
            'unauthorized',
            `the link "${code}" is protected by a password; POST it as {"password": …} to /links/${code}/unlock`,
          );
        break;
      case 'guarded':
        res.setHeader('Cache-Control', decided.cache);
        if (decided.page)
          sendPage(res, 200, render('guarded', { title: 'Open this link in a browser', code, message: guardedMessage(code) }));
        else sendJson(res, 200, { code, state: 'live', detail: guardedMessage(code) });
        break;
      case 'claim_visit':
      case 'ask_visits_left': {
        const pending = { ...decided };
        const { id } = target!;
        const asked = pending.outcome === 'claim_visit' ? web.links.claimVisit(id) : web.links.hasVisitsLeft(id);
        return asked.then(
          (left) => write(req, res, code, domain, target, settleVisitCheck(pending, left)),
          (error: unknown) => write(req, res, code, domain, target, { outcome: 'failed', error }),
        );
      }
      case 'failed':
        sendError(req, res, decided.error, web);
        break;
      case 'load_salt':
        // `answer` loads the salt and decides again: a decision never reaches here waiting for one.
        sendError(req, res, new Error('a redirect was answered before its visitor salt was loaded'), web);
        break;
      default:
        // A new outcome needs its case: until it has one, this does not compile.
        return decided satisfies never;
    }
    if (decided.outcome !== 'failed' && decided.record)
      visits.record(target!.id, web.now(), pipeline.clientOf(req), req.rawHeaders, decided.variant, decided.rule);
    pipeline.answered(REDIRECT_ROUTE, res.statusCode);
    return undefined;
  }

  /** Answers a failure (a refused admission, the store, a head Node refused) through the writer. */
  const fail = (req: IncomingMessage, res: ServerResponse, code: string, error: unknown): void => {
    write(req, res, code, 0, undefined, { outcome: 'failed', error });
  };

  return (req, res, code) => {
    // Kept in this function, never passed on or captured, so that timing a redirect allocates nothing.
    const start = performance.now();
    let later: Promise<void> | undefined;
    try {
      const refused = pipeline.admit(req, 'redirect');
      if (refused) throw refused;
      // One domain, unknown hosts served as it: the Host is not read at all.
      let domain: number | undefined = 0;
      if (refuseUnknownHosts || registry.several())
        domain = registry.domainOfRequest(req.rawHeaders) ?? (refuseUnknownHosts ? undefined : 0);
      if (domain === undefined) write(req, res, code, 0, undefined, misdirected(decision));
      else {
        // A segment that no code can spell needs no lookup.
        const found = CODE.test(code) ? resolver.resolveAtOnce(domain, code) : null;
        const on = domain;
        later =
          found !== undefined
            ? answer(req, res, code, domain, found ?? undefined)
            : resolver.lookup(domain, code).then(
                (target) => answer(req, res, code, on, target),
                (err: unknown) => fail(req, res, code, err),
              );
      }
    } catch (err) {
      fail(req, res, code, err);
    }
    if (later === undefined) times.observe(performance.now() - start);
    else {
      const began = start;
      later.then(
        () => times.observe(performance.now() - began),
        (err: unknown) => {
          fail(req, res, code, err);
          times.observe(performance.now() - began);
        },
      );
    }
  };
}

/** What the writer is given: a decision, or a failure on the way to one. */
type Answer = Decision | { outcome: 'failed'; error: unknown };

/**
 * The request being decided, as `RedirectFacts`: each fact read from it when the decision asks (so an
 * ordinary link's redirect reads no header, no clock and no random number), `req` set before each decision.
 */
class RequestFacts implements RedirectFacts {
  req!: IncomingMessage;
  /** Set while a decision is taken again after the day's salt could not be had: a split draws nothing. */
  saltless = false;
  readonly #now: () => number;
  readonly #looksLikeBot: (userAgent: string) => boolean;
  readonly #fetchesPreviews: (userAgent: string) => boolean;
  readonly #clientOf: (req: IncomingMessage) => string;
  readonly #countryOf: CountryOf;
  readonly #salts: VisitorSalts;
  readonly #cityOf: CityOf;

  constructor(
    now: () => number,
    looksLikeBot: (userAgent: string) => boolean,
    fetchesPreviews: (userAgent: string) => boolean,
    clientOf: (req: IncomingMessage) => string,
    countryOf: CountryOf,
    salts: VisitorSalts,
    cityOf: CityOf,
  ) {
    this.#now = now;
    this.#looksLikeBot = looksLikeBot;
    this.#fetchesPreviews = fetchesPreviews;
    this.#clientOf = clientOf;
    this.#countryOf = countryOf;
    this.#salts = salts;
    this.#cityOf = cityOf;
  }

  get method(): string {
    return this.req.method!;
  }
  get url(): string {
    return this.req.url ?? '';
  }
  get host(): string | undefined {
    return this.req.headers.host;
  }
  get wantsHtml(): boolean {
    return wantsHtml(this.req);
  }
  get isBot(): boolean {
    return this.#looksLikeBot(this.userAgent);
  }
  get isPreviewBot(): boolean {
    return this.#fetchesPreviews(this.userAgent);
  }
  get now(): number {
    return this.#now();
  }
  /** Read only for a link with an A/B split: the visit recorder's hash of this visitor, from the same salt. */
  visitorDraw(linkId: number): number | null | undefined {
    if (this.saltless) return null;
    const salt = this.#salts.saltOf(dayOf(this.now));
    return salt === undefined ? undefined : visitorDraw(salt, this.clientAddress, this.userAgent, linkId);
  }
  /** The redirect itself never passes a page: the continue route does (web/handlers/page-flow.ts). */
  get pagePassed(): boolean {
    return false;
  }
  /** Nor its password: the unlock does. */
  get passwordPassed(): boolean {
    return false;
  }
  // The redirect rules' facts (RuleFacts): read only when a condition of a link with rules asks.
  get userAgent(): string {
    return rawHeader(this.req.rawHeaders, 'user-agent');
  }
  get acceptLanguage(): string {
    return rawHeader(this.req.rawHeaders, 'accept-language');
  }
  get query(): string {
    return queryOf(this.url);
  }
  get clientAddress(): string {
    return this.#clientOf(this.req);
  }
  country(): string | null {
    return this.#countryOf(this.clientAddress);
  }
  /** The configured GeoIP database's city (a City database; a Country one knows none, and a city condition never matches then). */
  city(): string | null {
    return this.#cityOf(this.clientAddress);
  }
}
