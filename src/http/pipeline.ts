import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { AppError } from '../errors.ts';
import { RequestCounter } from './request-counter.ts';

/** What every request carries through the pipeline, built on first use. */
export interface RequestContext {
  /** The route that answered it, as the route table names it (`GET /api/v1/links/:code`), or `redirect`. */
  route: string;
  /** The client's address: the socket's, or from X-Forwarded-For when the socket is a trusted proxy. */
  readonly client: string;
  /** Unique within this process's life; in every log line about the request. */
  readonly id: string;
}

/**
 * A cross-cutting check run for every request before its handler, at the edge or in Koa: authentication,
 * rate limits. Returns the error to answer with, or undefined to let the request on.
 */
export type Hook = (req: IncomingMessage, request: RequestContext) => AppError | undefined;

export interface Pipeline {
  /** Runs the hooks for a request about to be handled by `route`; the first refusal is returned. */
  admit(req: IncomingMessage, route: string): AppError | undefined;
  /** The metrics hook: one answered request. */
  answered(route: string, status: number): void;
  /** Starts the context of a request that Koa handles; counted when its response finishes. */
  begin(req: IncomingMessage, res: ServerResponse): RequestContext;
  /** The context `begin` started for `req`, or a new one (a redirect's, which starts none). */
  contextOf(req: IncomingMessage): RequestContext;
  requests: RequestCounter;
}

/** Route name of requests that no route took (404, 405). */
export const UNMATCHED = 'unmatched';

/**
 * The concerns every request passes through, written once: client address (trusted proxies), request id,
 * the authentication and rate-limit hooks, the request counter. The edge calls them for the redirect and
 * for every request it passes to Koa, so no route can skip them.
 */
export function createPipeline(trustedProxies: string, hooks: readonly Hook[] = []): Pipeline {
  const trust = proxyaddr.compile(trustedProxies === '' ? [] : trustedProxies.split(',').map((s) => s.trim()));
  const requests = new RequestCounter();
  const contexts = new WeakMap<IncomingMessage, RequestContext>();
  const prefix = randomBytes(3).toString('hex');
  let sequence = 0;

  function contextFor(req: IncomingMessage, route: string): RequestContext {
    let client: string | undefined;
    let id: string | undefined;
    return {
      route,
      get client() {
        return (client ??= proxyaddr(req, trust));
      },
      get id() {
        return (id ??= `${prefix}-${(++sequence).toString(36)}`);
      },
    };
  }

  return {
    admit(req, route) {
      if (hooks.length === 0) return undefined;
      const request = contexts.get(req) ?? contextFor(req, route);
      for (const hook of hooks) {
        const refused = hook(req, request);
        if (refused) return refused;
      }
      return undefined;
    },
    answered: (route, status) => requests.count(route, status),
    begin(req, res) {
      const request = contextFor(req, UNMATCHED);
      contexts.set(req, request);
      res.once('finish', () => requests.count(request.route, res.statusCode));
      return request;
    },
    contextOf: (req) => contexts.get(req) ?? contextFor(req, UNMATCHED),
    requests,
  };
}
