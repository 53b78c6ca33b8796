import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Context } from 'koa';
import type { Services } from '../../app.ts';
import { AppError } from '../../errors.ts';
import { linkNotFound, notFoundMessage } from '../../links/service.ts';
import type { Target } from '../../store/link-store.ts';
import { PROBLEM_TYPE, problem, surelyWantsJson } from '../respond.ts';

const CODE = /^[A-Za-z0-9_-]{1,64}$/;
const HEADERS_AFTER_LOCATION = { 'Cache-Control': 'private, max-age=90', 'Content-Length': '0' };

/**
 * Answers a found, live link: queues the visit (GET only: HEAD comes from link checkers and unfurlers,
 * not from people following the link) and writes a bodiless redirect straight to the socket.
 */
function redirectTo(s: Services, req: IncomingMessage, res: ServerResponse, target: Target): void {
  if (req.method === 'GET') s.visits.record(target.id, s.now());
  res.writeHead(s.config.redirectStatus, { Location: target.url, ...HEADERS_AFTER_LOCATION });
  res.end();
}

/** The 404 of an unknown code, as the Koa path would write it for a JSON client. */
function notFound(res: ServerResponse, code: string): void {
  const body = JSON.stringify(problem(404, 'not_found', notFoundMessage(code)));
  res.writeHead(404, { 'Content-Type': PROBLEM_TYPE, 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

/**
 * The hot path, in front of Koa: `GET|HEAD /CODE` is answered here with one cache lookup when the link is
 * live, or unknown and the client surely wants JSON (scanners of random codes should cost next to nothing).
 * Everything else — kurz's own paths (`reserved`), browsers' 404 pages, deleted codes (410), odd spellings —
 * goes to Koa.
 */
export function redirectFirst(s: Services, koa: RequestListener, reserved: ReadonlySet<string>): RequestListener {
  return (req, res) => {
    const { method, url = '' } = req;
    if ((method === 'GET' || method === 'HEAD') && url.charCodeAt(0) === 47 /* / */) {
      const end = url.indexOf('?');
      const code = end === -1 ? url.slice(1) : url.slice(1, end);
      if (CODE.test(code)) {
        let target: Target | undefined;
        try {
          target = s.links.targetByCode(code);
        } catch {
          // The database failed: Koa's route meets the same failure and answers it properly (logged 500).
          return koa(req, res);
        }
        if (target === undefined && surelyWantsJson(req.headers.accept) && !reserved.has(code.toLowerCase())) return notFound(res, code);
        if (target !== undefined && !target.deleted) return redirectTo(s, req, res, target);
      }
    }
    koa(req, res);
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
      ctx.respond = false;
      redirectTo(s, ctx.req, ctx.res, target);
    },
  };
}
