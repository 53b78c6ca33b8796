import type { RequestListener } from 'node:http';
import type { WebServices } from '../context.ts';
import type { AccessLog } from '../http/access-log.ts';
import { UNMATCHED } from '../http/pipeline.ts';
import { sendClientError, sendError } from '../http/problems.ts';
import { HSTS } from '../http/respond.ts';
import { MAX_REQUEST_TARGET } from '../http/server.ts';
import { redirectHandler, redirectSegment } from './redirect.ts';

const URI_TOO_LONG = {
  status: 414,
  code: 'invalid',
  message: `the request URL is longer than ${MAX_REQUEST_TARGET} characters`,
} as const;

/**
 * The front door, the one request listener: a redirect (`GET|HEAD /CODE`) is answered here, everything
 * else by Koa. Both pass through the same pipeline (web.pipeline): every request is admitted by its hooks
 * (the redirect's by the redirect, the rest here), and every answer is counted by whoever gave it. A
 * request-target over MAX_REQUEST_TARGET is answered 414 before either sees it. With an access log, every
 * request is logged from here. With an https public URL, every answer tells browsers to come back over
 * https only (HSTS): set here, but by the redirect itself for its answers (redirect.ts), so that a redirect
 * writes all its headers at once.
 */
export function createEdge(web: WebServices, koa: RequestListener, accessLog?: AccessLog['log']): RequestListener {
  const hsts = web.config.publicUrl.startsWith('https:');
  const redirect = redirectHandler(web, hsts);
  const { pipeline, render } = web;
  return (req, res) => {
    if (accessLog !== undefined) accessLog(req, res);
    const tooLong = req.url!.length > MAX_REQUEST_TARGET;
    const segment = tooLong ? undefined : redirectSegment(req);
    if (segment !== undefined) {
      redirect(req, res, segment);
      return;
    }
    if (hsts) res.setHeader('Strict-Transport-Security', HSTS);
    if (tooLong) {
      sendClientError(req, res, URI_TOO_LONG, render);
      pipeline.answered(UNMATCHED, res.statusCode);
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
