import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';
import type { RateLimit } from '../auth/rate-limits.ts';
import type { ClientAddressHeader, Config } from '../config.ts';
import type { AppError } from '../core/errors.ts';
import { Histogram } from '../core/histogram.ts';
import { RequestCounter } from './request-counter.ts';

/** What the pipeline knows of a request, built on first use (a hook, a log line). */
export interface RequestContext {
  /** The client's address: the socket's, or from `clientAddressHeader` when the socket is a trusted proxy. */
  readonly client: string;
  /** The key the per-client limits count the client under (`limitKeyOf`): its address, or an IPv6 /64. */
  readonly limitKey: string;
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
  /**
   * The id a finished request is logged under (the access log's): its context's when something made one,
   * else a new id, without building a context that nothing would read after the log line.
   */
  loggedIdOf(req: IncomingMessage): string;
  /** The client's address (see RequestContext.client), without building a context: the redirect's. */
  clientOf(req: IncomingMessage): string;
  /**
   * The key the 404 limit counts and refuses `req` under: the client's limit key, or undefined for
   * `/healthz` and for a request whose client is a trusted proxy itself (a load balancer's health check
   * must not wait because a scanner behind it did).
   */
  notFoundKeyOf(req: IncomingMessage): string | undefined;
  requests: RequestCounter;
  /** Milliseconds from the edge taking a redirect to its answer (kurz_redirect_duration_seconds). */
  redirectTimes: Histogram;
}

/**
 * Upper bounds of the redirect's duration buckets, in seconds: a cached redirect takes tens of µs, a
 * store lookup on PostgreSQL a millisecond or more.
 */
export const REDIRECT_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/** The health check's path: never refused by the 404 limit. */
const HEALTH_PATH = '/healthz';

/** Route name of requests that no route took (404, 405, 501). */
export const UNMATCHED = 'unmatched';

/**
 * The concerns every request passes through, written once: client address (trusted proxies), request id,
 * the rate-limit hooks, the request counter, the redirect's durations. The edge admits every request, whoever
 * answers it; the redirect and Koa's one middleware report every answer, so no route can skip them.
 * Nothing is built for a request that no hook and no log line asks about.
 */
export function createPipeline(settings: Pick<Config, 'trustedProxies' | 'clientAddressHeader'>, hooks: readonly Hook[] = []): Pipeline {
  const clientOf = clientAddress(settings.trustedProxies, settings.clientAddressHeader);
  const trusted = trustedProxy(settings.trustedProxies);
  const requests = new RequestCounter();
  // Kept on the request itself: an entry in a WeakMap costs the garbage collector more, at every request.
  const CONTEXT: unique symbol = Symbol('kurz request context');
  const prefix = randomBytes(3).toString('hex');
  let sequence = 0;
  const newId = (): string => `${prefix}-${(++sequence).toString(36)}`;

  const holder = (req: IncomingMessage): IncomingMessage & { [CONTEXT]?: RequestContext } => req;

  function contextOf(req: IncomingMessage): RequestContext {
    const held = holder(req);
    let request = held[CONTEXT];
    if (!request) {
      let client: string | undefined;
      let id: string | undefined;
      let limitKey: string | undefined;
      request = {
        get client() {
          return (client ??= clientOf(req));
        },
        get limitKey() {
          return (limitKey ??= limitKeyOf(this.client));
        },
        get id() {
          return (id ??= newId());
        },
      };
      held[CONTEXT] = request;
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
    loggedIdOf: (req) => holder(req)[CONTEXT]?.id ?? newId(),
    clientOf,
    notFoundKeyOf(req) {
      const client = clientOf(req);
      if (trusted(client)) return undefined;
      const url = req.url ?? '';
      if (url.startsWith(HEALTH_PATH) && (url.length === HEALTH_PATH.length || url[HEALTH_PATH.length] === '?')) return undefined;
      return limitKeyOf(client);
    },
    requests,
    redirectTimes: new Histogram(REDIRECT_BUCKETS),
  };
  return pipeline;
}

/**
 * The hook that refuses every request of a client that must wait under `limit` (the 404 limit: a client
 * scanning for codes gets 429 for everything, redirects included, and its lookups stop reaching the
 * store). `/healthz` and a trusted proxy's own requests are never refused (see Pipeline.notFoundKeyOf).
 * While no client waits it costs one field test, and works out no client address; while one does, the
 * others cost a map lookup each: nothing is allocated either way.
 */
export function refuseWaitingClients(limit: RateLimit): Hook {
  return (req, _owner, pipeline) => {
    if (!limit.mayWait) return undefined;
    const key = pipeline.notFoundKeyOf(req);
    return key === undefined ? undefined : limit.check(key);
  };
}

/** The headers a proxy names a client in: a request with any of them came through one. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/** True when `req` carries any header a proxy names a client in, whoever sent it. */
export function hasForwardingHeader(req: IncomingMessage): boolean {
  return FORWARDING_HEADERS.some((name) => req.headers[name] !== undefined);
}

/** Whether an address is one of `trustedProxies` (addresses or CIDR ranges, comma-separated); none when empty. */
export function trustedProxy(trustedProxies: string): (address: string) => boolean {
  if (trustedProxies === '') return () => false;
  const trust = proxyaddr.compile(trustedProxies.split(',').map((s) => s.trim()));
  return (address) => address !== '' && trust(address, 0);
}

/**
 * The client address of a request: the socket's, unless the socket is a trusted proxy; then, walking the
 * one header `header` names from its right-most (nearest) hop inwards while the hop reached is a trusted
 * proxy, the first address that is not. No other header is ever read, and none from a peer that is not
 * trusted. A hop that is no address (malformed, `unknown`, an obfuscated name) ends the walk at the last
 * trusted one.
 */
export function clientAddress(trustedProxies: string, header: ClientAddressHeader): (req: IncomingMessage) => string {
  if (trustedProxies === '') return (req) => req.socket.remoteAddress ?? '';
  const trusted = trustedProxy(trustedProxies);
  const hopsOf = header === 'forwarded' ? forwardedFor : forwardedList;
  return (req) => {
    let client = req.socket.remoteAddress ?? '';
    if (!trusted(client)) return client;
    const value = req.headers[header];
    if (typeof value !== 'string') return client;
    // Nearest hop last, as proxies append.
    const hops = hopsOf(value);
    for (let i = hops.length - 1; i >= 0 && trusted(client); i--) {
      const hop = hops[i]!;
      if (isIP(hop) === 0) break;
      client = hop;
    }
    return client;
  };
}

/** The hops of an X-Forwarded-For header: bare addresses, or bracketed IPv6 and IPv4 with a port. */
function forwardedList(header: string): string[] {
  return header.split(',').map((hop) => withoutPort(hop.trim()));
}

/**
 * The `for` node of each element of a Forwarded header (RFC 7239), ports and brackets removed: '' for an
 * element without one, which ends the walk there. Elements are split at every comma, quoted or not: what
 * a client wrote (an unclosed quote) must never run into the elements its proxies appended after it.
 */
function forwardedFor(header: string): string[] {
  return header.split(',').map((element) => {
    for (const pair of element.split(';')) {
      const at = pair.indexOf('=');
      if (at === -1 || pair.slice(0, at).trim().toLowerCase() !== 'for') continue;
      let node = pair.slice(at + 1).trim();
      if (node.length >= 2 && node.startsWith('"') && node.endsWith('"')) node = node.slice(1, -1);
      return withoutPort(node);
    }
    return '';
  });
}

/** `[v6]:port` and `[v6]` -> v6, `a.b.c.d:port` -> a.b.c.d; anything else unchanged. */
function withoutPort(node: string): string {
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(node);
  if (v6) return v6[1]!;
  return /^[\d.]+:\d+$/.test(node) ? node.slice(0, node.indexOf(':')) : node;
}

/**
 * The key every per-client limit counts an address under: an IPv6 address by its /64 (one customer's
 * prefix: a host given one can take any address in it), written `2001:db8:0:1::/64`; an IPv4 address,
 * also IPv4-mapped IPv6 (`::ffff:192.0.2.1`), by itself. Anything else (no address) unchanged.
 */
export function limitKeyOf(address: string): string {
  if (!address.includes(':') || !ipaddr.IPv6.isValid(address)) return address;
  const ip = ipaddr.IPv6.parse(address);
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address().toString();
  return `${ip.parts
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
