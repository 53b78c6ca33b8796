import { write } from 'node:fs';
import { WELCOME_PATH } from '../auth/users.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LineFormat, LogStream } from '../core/log.ts';
import type { Pipeline } from './pipeline.ts';

/** Characters of lines that start a write at once. */
const MAX_PENDING = 64 * 1024;

/** How long the first line of a batch waits for others before it is written, in ms. */
const FLUSH_MS = 100;

/** What Linux writes to a pipe at once, whole (POSIX's PIPE_BUF). */
const PIPE_BUF = 4096;
const NEWLINE = 0x0a;

/** How long a destination that takes nothing for now (a full non-blocking pipe) is left before the next try. */
const RETRY_MS = 10;

export interface AccessLog {
  /** Logs one request: called by the edge as the request comes in, it writes the line once the answer is done. */
  log(req: IncomingMessage, res: ServerResponse): void;
  /** Resolves once the lines of every request answered so far are written: kurz waits for it at stop. */
  drained(): Promise<void>;
}

/**
 * The access log (setting accessLog): one `request` line per request, whoever answers it, once its response
 * is sent or its client went away (`aborted`): request id, client address, method, path, status, duration,
 * bytes sent (head and body), user agent and referrer. Lines go out in batches (see `batchedLines`).
 */
export function createAccessLog(out: LogStream, format: LineFormat, pipeline: Pipeline): AccessLog {
  const lines = batchedLines(out);
  return {
    log(req, res) {
      const start = performance.now();
      const socket = req.socket;
      const before = socket.bytesWritten;
      res.on('close', () => {
        lines.add(
          format(Date.now(), 'info', 'request', {
            requestId: pipeline.loggedIdOf(req),
            client: pipeline.clientOf(req),
            method: req.method,
            path: withoutSecrets(req.url),
            // None when the client went before an answer was begun.
            status: res.headersSent ? res.statusCode : undefined,
            durationMs: Math.round((performance.now() - start) * 1000) / 1000,
            bytes: socket.bytesWritten - before,
            userAgent: req.headers['user-agent'],
            referrer: withoutSecrets(req.headers.referer),
            // The client went away before the whole answer was sent.
            aborted: res.writableFinished ? undefined : true,
          }),
        );
      });
    },
    drained: lines.drained,
  };
}

/**
 * Lines written in batches, in order: by MAX_PENDING characters when requests come fast, else FLUSH_MS after
 * the first line of a batch (a write per line would cost a system call each, and a write per turn of the event
 * loop still a few lines each). To a file or a pipe (a stream with a descriptor, not a terminal) the write runs
 * on the thread pool, one at a time, so that a slow disk or a reader that lags never holds up the event loop;
 * the lines that come meanwhile wait for the next write. Anything else (a terminal, a test's array) gets
 * `out.write`.
 */
function batchedLines(out: LogStream): { add(line: string): void; drained(): Promise<void> } {
  let fd = out.isTTY === true ? undefined : out.fd;
  let pending = '';
  let writing = false;
  let timer: NodeJS.Timeout | undefined;
  let waiting: Array<() => void> = [];

  const settle = (): void => {
    if (writing || pending !== '') return;
    const done = waiting;
    waiting = [];
    for (const resolve of done) resolve();
  };

  const begin = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (writing || pending === '') return settle();
    const text = pending;
    pending = '';
    if (fd === undefined) {
      out.write(text);
      return settle();
    }
    writing = true;
    send(fd, Buffer.from(text));
  };

  const later = (): void => {
    if (timer === undefined && pending !== '') timer = setTimeout(begin, FLUSH_MS);
  };

  const send = (to: number, bytes: Buffer): void => {
    const piece = wholeLines(bytes);
    write(to, bytes, 0, piece, null, (err, written) => {
      if (err?.code === 'EAGAIN') {
        setTimeout(() => send(to, bytes), RETRY_MS);
        return;
      }
      if (err) {
        // The descriptor failed (closed, say): the stream, and its own error handling, take the rest.
        fd = undefined;
        out.write(bytes.toString());
      } else if (written < bytes.length) {
        send(to, bytes.subarray(written));
        return;
      }
      writing = false;
      if (pending.length >= MAX_PENDING || waiting.length > 0) begin();
      else later();
    });
  };

  return {
    add(line) {
      pending += line;
      if (writing) return;
      if (pending.length >= MAX_PENDING) begin();
      else later();
    },
    drained: () =>
      new Promise((resolve) => {
        waiting.push(resolve);
        if (writing) return;
        begin();
      }),
  };
}

/**
 * How many of `bytes` to write at once: whole lines, at most PIPE_BUF of them (a longer line alone). A write
 * to a pipe that long is atomic, so the lines other writers put on the same standard error meanwhile (this
 * process's log, the background writer's, the workers') fall between lines, never inside one.
 */
function wholeLines(bytes: Buffer): number {
  if (bytes.length <= PIPE_BUF) return bytes.length;
  const last = bytes.lastIndexOf(NEWLINE, PIPE_BUF - 1);
  if (last !== -1) return last + 1;
  const first = bytes.indexOf(NEWLINE);
  return first === -1 ? bytes.length : first + 1;
}

/** A path or URL as logged: the token of a one-time link to set a password is never written. */
function withoutSecrets(url: string | undefined): string | undefined {
  const at = url?.indexOf(WELCOME_PATH) ?? -1;
  return at === -1 ? url : `${url!.slice(0, at + WELCOME_PATH.length)}…`;
}
