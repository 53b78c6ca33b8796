import type { RequestListener } from 'node:http';
import type { WebServices } from '../context.ts';
import { sendClientError, asClientError, INTERNAL_ERROR } from '../http/problems.ts';
import { redirectHandler, redirectSegment } from './redirect.ts';

/**
 * The front door, the one request listener: a redirect (`GET|HEAD /CODE`) is answered here, everything
 * else by Koa. Both pass through the same pipeline (web.pipeline): the redirect calls its hooks itself,
 * and every request handed to Koa is admitted and counted here, so a concern added there sees them all.
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
    const request = pipeline.begin(req, res);
    const refused = pipeline.admit(req, request.route);
    if (refused) sendClientError(req, res, asClientError(refused) ?? INTERNAL_ERROR, render);
    else koa(req, res);
  };
}
