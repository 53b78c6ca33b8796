import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import parseForwarded from 'forwarded-parse';
import proxyaddr from 'proxy-addr';
import type { RateLimit } from '../auth/rate-limits.ts';
import type { AppError } from '../errors.ts';
import { Histogram } from '../histogram.ts';
import { RequestCounter } from './request-counter.ts';

/** What the pipeline knows of a request, built on first use (a hook, a log line). */
export interface RequestContext {
  /** The client's address: the socket's, or from X-Forwarded-For when the socket is a trusted proxy. */
  readonly client: string;
  /** Unique within this process's life; in every log line about the request. */
  readonly id: string;
}

/**
 * A cross-cutting check run for every request before its handler: rate limits. `owner` is `redirect` or
 * `web` (Koa); the path is the request's. Returns the error to answer with, or undefined to let the
 * request on. A hook asks the pipeline for the request's context or client only when it needs them: on
 * the redirect every allocation counts.
 */
export type Hook = (req: IncomingMessage, owner: RequestOwner, pipeline: Pipeline) => AppError | undefined;

/** Who answers a request: the edge's redirect, or Koa. */
export type RequestOwner = 'redirect' | 'web';

export interface Pipeline {
  /** Runs the hooks for a request about to be handled; the first refusal is returned. */
  admit(req: IncomingMessage, owner: RequestOwner): AppError | undefined;
  /** The metrics hook: one answered request, by route (`redirect`, `GET /api/v1/links/:code`, …) and status. */
  answered(route: string, status: number): void;
  /** The request's context, the same object however often it is asked for. */
  contextOf(req: IncomingMessage): RequestContext;
  /** The client's address (see RequestContext.client), without building a context: the redirect's. */
  clientOf(req: IncomingMessage): string;
  requests: RequestCounter;
  /** Milliseconds from the edge taking a redirect to its answer (kurz_redirect_duration_seconds). */
  redirectTimes: Histogram;
}

/**
 * Upper bounds of the redirect's duration buckets, in seconds: a cached redirect takes tens of µs, a
 * store lookup on PostgreSQL a millisecond or more.
 */
export const REDIRECT_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/** Route name of requests that no route took (404, 405). */
export const UNMATCHED = 'unmatched';

/**
 * The concerns every request passes through, written once: client address (trusted proxies), request id,
 * the rate-limit hooks, the request counter, the redirect's durations. The edge admits every request, whoever
 * answers it; the redirect and Koa's one middleware report every answer, so no route can skip them.
 * Nothing is built for a request that no hook and no log line asks about.
 */
export function createPipeline(trustedProxies: string, hooks: readonly Hook[] = []): Pipeline {
  const clientOf = clientAddress(trustedProxies);
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
          return (client ??= clientOf(req));
        },
        get id() {
          return (id ??= `${prefix}-${(++sequence).toString(36)}`);
        },
      };
      contexts.set(req, request);
    }
    return request;
  }

  const pipeline: Pipeline = {
    admit(req, owner) {
      for (let i = 0; i < hooks.length; i++) {
        const refused = hooks[i]!(req, owner, pipeline);
        if (refused) return refused;
      }
      return undefined;
    },
    answered: (route, status) => requests.count(route, status),
    contextOf,
    clientOf,
    requests,
    redirectTimes: new Histogram(REDIRECT_BUCKETS),
  };
  return pipeline;
}

/**
 * The hook that refuses every request of a client that must wait under `limit` (the 404 limit: a client
 * scanning for codes gets 429 for everything, redirects included, and its lookups stop reaching the
 * store). While no client waits it costs one field test, and works out no client address; while one
 * does, the others cost a map lookup each: nothing is allocated either way.
 */
export function refuseWaitingClients(limit: RateLimit): Hook {
  return (req, _owner, pipeline) => (limit.mayWait ? limit.check(pipeline.clientOf(req)) : undefined);
}

/**
 * The client address of a request: the socket's, unless the socket is a trusted proxy; then the nearest
 * address its `Forwarded` header (RFC 7239), or else its `X-Forwarded-For`, names that is not itself a
 * trusted proxy. A header from a peer that is not trusted is never read.
 */
export function clientAddress(trustedProxies: string): (req: IncomingMessage) => string {
  if (trustedProxies === '') return (req) => req.socket.remoteAddress ?? '';
  const trust = proxyaddr.compile(trustedProxies.split(',').map((s) => s.trim()));
  return (req) => {
    const socket = req.socket.remoteAddress ?? '';
    const forwarded = req.headers.forwarded;
    if (forwarded === undefined || !trust(socket, 0)) return proxyaddr(req, trust);
    // Nearest hop last, as proxies append.
    const hops = forwardedFor(forwarded);
    if (hops === undefined) return proxyaddr(req, trust);
    let client = socket;
    for (let i = hops.length - 1; i >= 0 && trust(client, hops.length - 1 - i); i--) {
      const hop = hops[i]!;
      if (!isIP(hop)) break;
      client = hop;
    }
    return client;
  };
}

/** The `for` addresses of a Forwarded header, ports and brackets removed; undefined when it is malformed. */
function forwardedFor(header: string): string[] | undefined {
  try {
    return parseForwarded(header).map((element) => {
      const node = element['for'] ?? '';
      const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(node);
      if (v6) return v6[1]!;
      return node.includes('.') ? node.replace(/:\d+$/, '') : node;
    });
  } catch {
    return undefined;
  }
}
