import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebServices } from '../context.ts';
import { CODE } from '../links/alias-rules.ts';
import { guards, locationOf, queryOf, refusalOf } from '../links/gate.ts';
import { goneMessage, guardedMessage, notFoundMessage, refusalMessage, type Gate, type Refusal, type Target } from '../links/link.ts';
import { sendClientError, sendError } from '../http/problems.ts';
import { CACHED_REDIRECT, sendJson, sendPage, sendProblem, sendRedirect, UNCACHED, wantsHtml } from '../http/respond.ts';
import { RESERVED_PATHS } from '../links/reserved-paths.ts';
import { cachedBotCheck } from '../visits/classify.ts';

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
 * after one asynchronous store lookup. A live link gets a bodiless redirect and, for a GET, a visit event
 * in the buffer (HEAD comes from link checkers, not people). Unknown codes answer 404 and deleted ones
 * 410, as a page or problem+json. The head is written before the visit is recorded: if Node refuses it
 * (a target that is no valid header value, which only a hand-edited database holds), nothing was counted
 * and the error is a 500.
 *
 * A link with a gate (link options) is checked against what the cache holds: disabled or expired answers
 * 410, a password link its password form. A link whose gate guards its target (a visit limit, an expiry)
 * hands it out only in an answer that counts, a person's GET, which a link with a visit limit claims from
 * the store first, and never lets it be cached; a HEAD or a bot (a chat app's preview) gets the link's
 * state instead, without the target: 200, or 410 once its visits are used up. An ordinary link has no gate
 * and costs one field test.
 * Each 404 counts against the client's `notFoundRateLimit`; past it, the pipeline refuses the client's
 * requests (429) before any lookup. Each redirect's duration goes to `pipeline.redirectTimes`.
 */
export function redirectHandler(web: WebServices): (req: IncomingMessage, res: ServerResponse, segment: string) => void {
  const { resolver, visits, pipeline, render, now, config } = web;
  const { notFound } = web.limits;
  const times = pipeline.redirectTimes;
  const status = config.redirectStatus;
  const forwardQuery = config.forwardQuery;
  // Asked for each visit of a gated link: whether it counts (a person) or only looks (a bot).
  const looksLikeBot = cachedBotCheck(1000);

  /** Counts an answer under the redirect's route (its duration is taken where the request came in). */
  function answered(res: ServerResponse): void {
    pipeline.answered(REDIRECT_ROUTE, res.statusCode);
  }

  /** Answers with what the lookup found: at once, or (a visit limit) once the store has said; then the promise. */
  function answer(req: IncomingMessage, res: ServerResponse, code: string, target: Target | undefined): Promise<void> | undefined {
    if (!target) {
      // Only a 404 is counted: a client that follows live links never touches the limit's map.
      const key = pipeline.notFoundKeyOf(req);
      if (key !== undefined) notFound.failed(key);
      sendClientError(req, res, { status: 404, code: 'not_found', message: notFoundMessage(code) }, render);
    } else if (target.deleted) sendClientError(req, res, { status: 410, code: 'gone', message: goneMessage(code) }, render);
    else if (target.gate === null) {
      sendRedirect(res, status, forwardQuery ? locationOf(target.url, queryOf(req.url ?? ''), true) : target.url);
      if (req.method === 'GET') visits.record(target.id, now(), pipeline.clientOf(req), req.rawHeaders);
    } else return answerGated(req, res, code, target, target.gate);
    answered(res);
    return undefined;
  }

  function answerGated(req: IncomingMessage, res: ServerResponse, code: string, target: Target, gate: Gate): Promise<void> | undefined {
    const refusal = refusalOf(gate, now());
    if (refusal) return refuse(req, res, code, refusal);
    if (gate.locked) {
      if (wantsHtml(req))
        sendPage(res, 200, render('password', { title: 'Password required', code, query: queryOf(req.url ?? ''), error: null }));
      else
        sendProblem(
          res,
          401,
          'unauthorized',
          `the link "${code}" is protected by a password; POST it as {"password": …} to /links/${code}/unlock`,
        );
      answered(res);
      return undefined;
    }
    const go = (cache: string): undefined => {
      sendRedirect(
        res,
        gate.redirectStatus ?? status,
        locationOf(target.url, queryOf(req.url ?? ''), gate.forwardQuery ?? forwardQuery),
        cache,
      );
      if (req.method === 'GET') visits.record(target.id, now(), pipeline.clientOf(req), req.rawHeaders);
      answered(res);
      return undefined;
    };
    if (!guards(gate)) return go(CACHED_REDIRECT);
    // Only a person's GET counts: a HEAD (a link checker) or a bot only looks, uses no visit up, and is not shown the target.
    if (req.method !== 'GET' || looksLikeBot(req.headers['user-agent'] ?? '')) {
      if (gate.maxVisits === null) return show(req, res, code, target);
      return web.links.hasVisitsLeft(target.id).then(
        (left) => (left ? show(req, res, code, target) : refuse(req, res, code, 'used_up')),
        (err: unknown) => fail(req, res, err),
      );
    }
    if (gate.maxVisits === null) return go(UNCACHED);
    return web.links.claimVisit(target.id).then(
      (allowed) => (allowed ? go(UNCACHED) : refuse(req, res, code, 'used_up')),
      (err: unknown) => fail(req, res, err),
    );
  }

  /** A guarded link's state, for a look that does not count: a page or JSON, never the target. A bot's GET is recorded (as a bot's). */
  function show(req: IncomingMessage, res: ServerResponse, code: string, target: Target): undefined {
    res.setHeader('Cache-Control', UNCACHED);
    if (wantsHtml(req))
      sendPage(res, 200, render('guarded', { title: 'Open this link in a browser', code, message: guardedMessage(code) }));
    else sendJson(res, 200, { code, state: 'live', detail: guardedMessage(code) });
    if (req.method === 'GET') visits.record(target.id, now(), pipeline.clientOf(req), req.rawHeaders);
    answered(res);
    return undefined;
  }

  function refuse(req: IncomingMessage, res: ServerResponse, code: string, refusal: Refusal): undefined {
    sendClientError(req, res, { status: 410, code: 'gone', message: refusalMessage(code, refusal) }, render);
    answered(res);
    return undefined;
  }

  function fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    sendError(req, res, err, web);
    answered(res);
  }

  return (req, res, code) => {
    // Kept in this function, never passed on or captured, so that timing a redirect allocates nothing.
    const start = performance.now();
    let later: Promise<void> | undefined;
    try {
      const refused = pipeline.admit(req, 'redirect');
      if (refused) throw refused;
      // A segment that no code can spell needs no lookup.
      const found = CODE.test(code) ? resolver.resolveAtOnce(code) : null;
      later =
        found !== undefined
          ? answer(req, res, code, found ?? undefined)
          : resolver.lookup(code).then(
              (target) => answer(req, res, code, target),
              (err: unknown) => fail(req, res, err),
            );
    } catch (err) {
      fail(req, res, err);
    }
    if (later === undefined) times.observe(performance.now() - start);
    else {
      const began = start;
      later.then(
        () => times.observe(performance.now() - began),
        (err: unknown) => {
          fail(req, res, err);
          times.observe(performance.now() - began);
        },
      );
    }
  };
}
