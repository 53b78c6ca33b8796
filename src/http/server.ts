import { createServer, STATUS_CODES, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from '../config.ts';

/** The longest request-target (path and query) answered; the edge answers longer ones 414, as most proxies do. */
export const MAX_REQUEST_TARGET = 8192;

/** How often the server looks for requests past their timeouts: a slow client is cut off within this of its limit. */
const TIMEOUT_CHECK_MS = 1000;

export type ServerLimits = Pick<Config, 'maxHeaderSize' | 'headersTimeout' | 'requestTimeout' | 'keepAliveTimeout'>;

/**
 * The HTTP server every kurz process listens with (`serve`, each worker, the tests): slow clients are
 * disconnected with 408 once their headers take longer than `headersTimeout` or their whole request
 * longer than `requestTimeout`; headers over `maxHeaderSize` get 431. Those answers, written before any
 * request exists, say what went wrong as problem+json.
 */
export function createHttpServer(config: ServerLimits, listener: RequestListener): Server {
  const server = createServer(
    {
      maxHeaderSize: config.maxHeaderSize,
      headersTimeout: config.headersTimeout,
      requestTimeout: config.requestTimeout,
      keepAliveTimeout: config.keepAliveTimeout,
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
    listener,
  );
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(config, err, socket));
  return server;
}

/**
 * What Node's own clientError handling does (an answer unless a response is under way, then the socket is
 * destroyed), with a message saying which limit the client broke.
 */
function answerClientError(config: ServerLimits, err: NodeJS.ErrnoException, socket: Duplex): void {
  const response = (socket as Duplex & { _httpMessage?: { _headerSent: boolean } | null })._httpMessage;
  if (socket.writable && !response?._headerSent) {
    const [status, detail] = clientErrorOf(config, err.code);
    const body = JSON.stringify({ type: 'about:blank', title: STATUS_CODES[status], status, code: 'invalid', detail });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

function clientErrorOf(config: ServerLimits, code: string | undefined): [number, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, `the request line and headers are larger than ${config.maxHeaderSize} bytes`];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'the chunk extensions of the request body are too large'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [
        408,
        `the request took too long to arrive: its headers must come within ${config.headersTimeout / 1000} s, ` +
          `all of it within ${config.requestTimeout / 1000} s`,
      ];
    default:
      return [400, 'the request is not valid HTTP/1.1'];
  }
}
