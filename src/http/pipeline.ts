import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { AppError } from '../errors.ts';
import { RequestCounter } from './request-counter.ts';

/** What the pipeline knows of a request, built on first use (a hook, a log line). */
export interface RequestContext {
  /** The client's address: the socket's, or from X-Forwarded-For when the socket is a trusted proxy. */
  readonly client: string;
  /** Unique within this process's life; in every log line about the request. */
  readonly id: string;
}

/**
 * A cross-cutting check run for every request before its handler: authentication, rate limits. `owner`
 * is `redirect` or `web` (Koa); the path is the request's. Returns the error to answer with, or undefined
 * to let the request on.
 */
export type Hook = (req: IncomingMessage, request: RequestContext, owner: RequestOwner) => AppError | undefined;

/** Who answers a request: the edge's redirect, or Koa. */
export type RequestOwner = 'redirect' | 'web';

export interface Pipeline {
  /** Runs the hooks for a request about to be handled; the first refusal is returned. */
  admit(req: IncomingMessage, owner: RequestOwner): AppError | undefined;
  /** The metrics hook: one answered request, by route (`redirect`, `GET /api/v1/links/:code`, …) and status. */
  answered(route: string, status: number): void;
  /** The request's context, the same object however often it is asked for. */
  contextOf(req: IncomingMessage): RequestContext;
  requests: RequestCounter;
}

/** Route name of requests that no route took (404, 405). */
export const UNMATCHED = 'unmatched';

/**
 * The concerns every request passes through, written once: client address (trusted proxies), request id,
 * the authentication and rate-limit hooks, the request counter. The edge admits every request, whoever
 * answers it; the redirect and Koa's one middleware report every answer, so no route can skip them.
 * Nothing is built for a request that no hook and no log line asks about.
 */
export function createPipeline(trustedProxies: string, hooks: readonly Hook[] = []): Pipeline {
  const trust = proxyaddr.compile(trustedProxies === '' ? [] : trustedProxies.split(',').map((s) => s.trim()));
  const requests = new RequestCounter();
  const contexts = new WeakMap<IncomingMessage, RequestContext>();
  const prefix = randomBytes(3).toString('hex');
  let sequence = 0;

  function contextOf(req: IncomingMessage): RequestContext {
    let request = contexts.get(req);
    if (!request) {
      let client: string | undefined;
      let id: string | undefined;
      request = {
        get client() {
          return (client ??= proxyaddr(req, trust));
        },
        get id() {
          return (id ??= `${prefix}-${(++sequence).toString(36)}`);
        },
      };
      contexts.set(req, request);
    }
    return request;
  }

  return {
    admit(req, owner) {
      if (hooks.length === 0) return undefined;
      const request = contextOf(req);
      for (const hook of hooks) {
        const refused = hook(req, request, owner);
        if (refused) return refused;
      }
      return undefined;
    },
    answered: (route, status) => requests.count(route, status),
    contextOf,
    requests,
  };
}
