import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'koa';
import type { Services } from '../../app.ts';
import { AppError } from '../../errors.ts';
import { linkNotFound, notFoundMessage } from '../../links/service.ts';
import type { Target } from '../../store/link-store.ts';
import { surelyWantsJson, writeProblem } from '../respond.ts';

const CODE = /^[A-Za-z0-9_-]{1,64}$/;
const HEADERS_AFTER_LOCATION = { 'Cache-Control': 'private, max-age=90', 'Content-Length': '0' };

/**
 * Answers a found, live link: writes a bodiless redirect straight to the socket and queues the visit (GET
 * only: HEAD comes from link checkers and unfurlers, not from people following the link). The head comes
 * first: if Node refuses it (a target that is not a valid header value), nothing was counted or sent.
 */
function redirectTo(s: Services, req: IncomingMessage, res: ServerResponse, target: Target): void {
  res.writeHead(s.config.redirectStatus, { Location: target.url, ...HEADERS_AFTER_LOCATION });
  if (req.method === 'GET') s.visits.record(target.id, s.now());
  res.end();
}

/**
 * The redirect's fast path, in front of Koa: `GET|HEAD /CODE` is answered here with one cache lookup when
 * the link is live, or unknown and the client surely wants JSON (scanners of random codes should cost next to
 * nothing). Returns false, having touched nothing, for everything else — kurz's own paths (`reserved`),
 * browsers' 404 pages, deleted codes (410), odd spellings. A failing database throws, before anything is
 * written; `fastPathsFirst` then hands the request to Koa, whose route answers it with a logged 500.
 */
export function redirectFirst(s: Services, reserved: ReadonlySet<string>): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const { method, url = '' } = req;
    if ((method !== 'GET' && method !== 'HEAD') || url.charCodeAt(0) !== 47 /* / */) return false;
    const end = url.indexOf('?');
    const code = end === -1 ? url.slice(1) : url.slice(1, end);
    if (!CODE.test(code)) return false;
    const target = s.links.targetByCode(code);
    if (target === undefined) {
      if (!surelyWantsJson(req.headers.accept) || reserved.has(code.toLowerCase())) return false;
      writeProblem(res, { status: 404, code: 'not_found', message: notFoundMessage(code) });
      return true;
    }
    if (target.deleted) return false;
    redirectTo(s, req, res, target);
    return true;
  };
}

/** GET|HEAD /:code through Koa: what the fast path passes on (percent-encoded codes) and the 404/410 answers. */
export function redirectHandlers(s: Services) {
  return {
    redirect(ctx: Context): void {
      const code = ctx.params['code'] ?? '';
      const target = CODE.test(code) ? s.links.targetByCode(code) : undefined;
      if (!target) throw linkNotFound(code);
      if (target.deleted) throw new AppError('gone', `the link "${code}" was deleted; its code is not reused`);
      redirectTo(s, ctx.req, ctx.res, target);
      ctx.respond = false;
    },
  };
}
