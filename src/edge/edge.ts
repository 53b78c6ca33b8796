import type { RequestListener } from 'node:http';
import type { WebServices } from '../context.ts';
import { UNMATCHED } from '../http/pipeline.ts';
import { sendClientError, asClientError, INTERNAL_ERROR } from '../http/problems.ts';
import { redirectHandler, redirectSegment } from './redirect.ts';

/**
 * The front door, the one request listener: a redirect (`GET|HEAD /CODE`) is answered here, everything
 * else by Koa. Both pass through the same pipeline (web.pipeline): every request is admitted by its hooks
 * (the redirect's by the redirect, the rest here), and every answer is counted by whoever gave it.
 */
export function createEdge(web: WebServices, koa: RequestListener): RequestListener {
  const redirect = redirectHandler(web);
  const { pipeline, render } = web;
  return (req, res) => {
    const segment = redirectSegment(req);
    if (segment !== undefined) {
      redirect(req, res, segment);
      return;
    }
    const refused = pipeline.admit(req, 'web');
    if (!refused) koa(req, res);
    else {
      sendClientError(req, res, asClientError(refused) ?? INTERNAL_ERROR, render);
      pipeline.answered(UNMATCHED, res.statusCode);
    }
  };
}
