import type { RequestListener } from 'node:http';
import type { WebServices } from '../context.ts';
import { UNMATCHED } from '../http/pipeline.ts';
import type { AccessLog } from '../http/access-log.ts';
import { sendError } from '../http/problems.ts';
import { redirectHandler, redirectSegment } from './redirect.ts';

/**
 * The front door, the one request listener: a redirect (`GET|HEAD /CODE`) is answered here, everything
 * else by Koa. Both pass through the same pipeline (web.pipeline): every request is admitted by its hooks
 * (the redirect's by the redirect, the rest here), and every answer is counted by whoever gave it. With
 * an access log, every request is logged from here.
 */
export function createEdge(web: WebServices, koa: RequestListener, accessLog?: AccessLog): RequestListener {
  const redirect = redirectHandler(web);
  const { pipeline } = web;
  return (req, res) => {
    if (accessLog !== undefined) accessLog(req, res);
    const segment = redirectSegment(req);
    if (segment !== undefined) {
      redirect(req, res, segment);
      return;
    }
    const refused = pipeline.admit(req, 'web');
    if (!refused) koa(req, res);
    else {
      sendError(req, res, refused, web);
      pipeline.answered(UNMATCHED, res.statusCode);
    }
  };
}
