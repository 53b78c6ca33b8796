import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebServices } from '../context.ts';
import { goneMessage, notFoundMessage, type Target } from '../links/link.ts';
import { sendClientError, sendError } from '../http/problems.ts';
import { sendRedirect } from '../http/respond.ts';
import { RESERVED_PATHS } from '../reserved-paths.ts';

/** The redirect's name in the request counter. */
export const REDIRECT_ROUTE = 'redirect';

const CODE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The segment a request for a redirect names: a GET or HEAD of one path segment (a query string is
 * ignored, percent-encoding decoded) that is not one of kurz's own paths. Undefined for anything else.
 */
export function redirectSegment(req: IncomingMessage): string | undefined {
  const { method, url = '' } = req;
  if ((method !== 'GET' && method !== 'HEAD') || url.charCodeAt(0) !== 47 /* / */) return undefined;
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
 */
export function redirectHandler(web: WebServices): (req: IncomingMessage, res: ServerResponse, segment: string) => void {
  const { resolver, visits, pipeline, render, now } = web;
  const status = web.config.redirectStatus;

  function answer(req: IncomingMessage, res: ServerResponse, code: string, target: Target | undefined): void {
    if (!target) sendClientError(req, res, { status: 404, code: 'not_found', message: notFoundMessage(code) }, render);
    else if (target.deleted) sendClientError(req, res, { status: 410, code: 'gone', message: goneMessage(code) }, render);
    else {
      sendRedirect(res, status, target.url);
      if (req.method === 'GET') visits.record(target.id, now());
    }
    pipeline.answered(REDIRECT_ROUTE, res.statusCode);
  }

  function fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    sendError(req, res, err, web);
    pipeline.answered(REDIRECT_ROUTE, res.statusCode);
  }

  return (req, res, code) => {
    try {
      const refused = pipeline.admit(req, 'redirect');
      if (refused) throw refused;
      // A segment that no code can spell needs no lookup.
      const found = CODE.test(code) ? resolver.resolveAtOnce(code) : null;
      if (found !== undefined) {
        answer(req, res, code, found ?? undefined);
        return;
      }
    } catch (err) {
      fail(req, res, err);
      return;
    }
    resolver.lookup(code).then(
      (target) => {
        try {
          answer(req, res, code, target);
        } catch (err) {
          fail(req, res, err);
        }
      },
      (err: unknown) => fail(req, res, err),
    );
  };
}
