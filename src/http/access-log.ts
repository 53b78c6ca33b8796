import { WELCOME_PATH } from '../auth/users.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LineFormat, LogStream } from '../core/log.ts';
import type { Pipeline } from './pipeline.ts';

/** Characters of lines held before they are written, however busy the turn of the event loop. */
const MAX_PENDING = 64 * 1024;

/** Logs one request: called by the edge as the request comes in, it writes the line once the answer is done. */
export type AccessLog = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The access log (setting accessLog): one `request` line per request, whoever answers it, once its response
 * is sent or its client went away (`aborted`): request id, client address, method, path, status, duration,
 * bytes sent (head and body), user agent and referrer. The lines of one turn of the event loop go out in one write
 * (a write per request would cost a system call each).
 */
export function createAccessLog(out: LogStream, format: LineFormat, pipeline: Pipeline): AccessLog {
  let pending = '';
  const flush = (): void => {
    const text = pending;
    pending = '';
    if (text !== '') out.write(text);
  };
  return (req, res) => {
    const start = performance.now();
    const socket = req.socket;
    const before = socket.bytesWritten;
    res.once('close', () => {
      const { id, client } = pipeline.contextOf(req);
      const first = pending === '';
      pending += format(Date.now(), 'info', 'request', {
        requestId: id,
        client,
        method: req.method,
        path: withoutSecrets(req.url),
        // None when the client went before an answer was begun.
        status: res.headersSent ? res.statusCode : undefined,
        durationMs: Math.round((performance.now() - start) * 1000) / 1000,
        bytes: socket.bytesWritten - before,
        userAgent: req.headers['user-agent'],
        referrer: withoutSecrets(req.headers.referer),
        // The client went away before the whole answer was sent.
        ...(res.writableFinished ? {} : { aborted: true }),
      });
      if (pending.length >= MAX_PENDING) flush();
      else if (first) setImmediate(flush);
    });
  };
}

/** A path or URL as logged: the token of a one-time link to set a password is never written. */
function withoutSecrets(url: string | undefined): string | undefined {
  const at = url?.indexOf(WELCOME_PATH) ?? -1;
  return at === -1 ? url : `${url!.slice(0, at + WELCOME_PATH.length)}…`;
}
