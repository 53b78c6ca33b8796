import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import proxyaddr from 'proxy-addr';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { hasForwardingHeader } from '../../http/pipeline.ts';
import { send } from '../../http/respond.ts';
import { METRICS_CONTENT_TYPE } from '../metrics.ts';

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/**
 * GET /metrics, in Prometheus's text format: for a socket from the addresses of `metricsAllow` (by default
 * this machine only) on a request that carries no forwarding header, and for anyone sending `metricsKey`
 * as a bearer token. Neither a session nor an API key opens it.
 */
export function metricsHandlers(web: WebServices) {
  const { config } = web;
  const allowed = config.metricsAllow === '' ? () => false : proxyaddr.compile(config.metricsAllow.split(','));
  const key = config.metricsKey === '' ? undefined : digest(config.metricsKey);

  /** Throws the 401 or 403 a scrape gets when neither its address nor its key lets it in. */
  function checkAccess(ctx: Context): void {
    const given = BEARER.exec(ctx.get('Authorization'))?.[1];
    if (key && given !== undefined) {
      if (timingSafeEqual(digest(given), key)) return;
      throw new AppError('unauthorized', 'the metrics key is wrong (setting metricsKey)');
    }
    // The socket's own address, and only for a request no proxy passed on: behind a proxy on this machine
    // every request comes from it, and what a header names can be made up.
    if (!hasForwardingHeader(ctx.req) && allowed(ctx.req.socket.remoteAddress ?? '', 0)) return;
    if (key) {
      ctx.res.setHeader('WWW-Authenticate', 'Bearer realm="kurz metrics"');
      throw new AppError(
        'unauthorized',
        '/metrics needs the metrics key from this address: send "Authorization: Bearer KEY" (setting metricsKey)',
      );
    }
    throw new AppError(
      'forbidden',
      '/metrics answers only the addresses in the setting metricsAllow; add the scraper\'s address there, or set metricsKey and send it as "Authorization: Bearer KEY"',
    );
  }

  return {
    async showMetrics(ctx: Context): Promise<void> {
      checkAccess(ctx);
      const text = await web.scrapeMetrics();
      send(ctx.res, 200, { 'Content-Type': METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store' }, text);
    },
  };
}

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}
