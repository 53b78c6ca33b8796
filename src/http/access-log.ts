import { Worker } from 'node:worker_threads';
import { WELCOME_PATH } from '../auth/users.ts';
import { firstHeader } from '../core/raw-headers.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MessagePort } from 'node:worker_threads';
import { isoTime, jsonLine, type LineFormat, type LogStream } from '../core/log.ts';
import type { Pipeline } from './pipeline.ts';

/** Bytes of lines that start a write at once. */
const MAX_PENDING = 64 * 1024;

/** How long the first line of a batch waits for others before it is written, in ms. */
const FLUSH_MS = 100;

/** What Linux writes to a pipe at once, whole (POSIX's PIPE_BUF). */
const PIPE_BUF = 4096;

/** Bytes handed to the log thread and not yet written past which new lines are dropped (and counted). */
const MAX_BEHIND = 16 * 1024 * 1024;

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
  const lines = batchedLines(out, (count) =>
    format(Date.now(), 'warn', 'access log lines dropped: the log was not taken fast enough', { dropped: count }),
  );
  const line = requestLine(format);
  return {
    log(req, res) {
      const start = performance.now();
      const socket = req.socket;
      const before = socket.bytesWritten;
      res.on('close', () => {
        lines.add(
          line(Date.now(), {
            requestId: pipeline.loggedIdOf(req),
            client: pipeline.clientOf(req),
            method: req.method,
            path: withoutSecrets(req.url),
            // None when the client went before an answer was begun.
            status: res.headersSent ? res.statusCode : undefined,
            durationMs: Math.round((performance.now() - start) * 1000) / 1000,
            bytes: socket.bytesWritten - before,
            // From the raw headers: `req.headers` would build an object of them all, which the redirect never needs.
            userAgent: firstHeader(req.rawHeaders, 'user-agent'),
            referrer: withoutSecrets(firstHeader(req.rawHeaders, 'referer')),
            // The client went away before the whole answer was sent.
            aborted: res.writableFinished ? undefined : true,
          }),
        );
      });
    },
    drained: lines.drained,
  };
}

/** What a `request` line says, in its order: a string absent or an undefined field is left out. */
export type RequestFields = {
  requestId: string;
  client: string;
  method: string | undefined;
  path: string | undefined;
  status: number | undefined;
  durationMs: number;
  bytes: number;
  userAgent: string | undefined;
  referrer: string | undefined;
  aborted: true | undefined;
};

/**
 * The `request` line in `format`. In JSON it is written out field by field, the same line `jsonLine` makes
 * of these fields (their order, JSON.stringify's escaping of each string and number): it is the log's
 * hottest line, and its fields are known here, which `jsonLine`'s are not (README, _Access log_, has what
 * each way costs). Any other format is the log's own.
 */
export function requestLine(format: LineFormat): (time: number, fields: RequestFields) => string {
  if (format !== jsonLine) return (time, fields) => format(time, 'info', 'request', fields);
  return (time, f) => {
    let line = `{"time":"${isoTime(time)}","level":"info","msg":"request","requestId":${JSON.stringify(f.requestId)},"client":${JSON.stringify(f.client)}`;
    if (f.method !== undefined) line += `,"method":${JSON.stringify(f.method)}`;
    if (f.path !== undefined) line += `,"path":${JSON.stringify(f.path)}`;
    if (f.status !== undefined) line += `,"status":${jsonNumber(f.status)}`;
    line += `,"durationMs":${jsonNumber(f.durationMs)},"bytes":${jsonNumber(f.bytes)}`;
    if (f.userAgent !== undefined) line += `,"userAgent":${JSON.stringify(f.userAgent)}`;
    if (f.referrer !== undefined) line += `,"referrer":${JSON.stringify(f.referrer)}`;
    return f.aborted === undefined ? `${line}}\n` : `${line},"aborted":true}\n`;
  };
}

/**
 * Lines written in batches, in order: by MAX_PENDING bytes when requests come fast, else FLUSH_MS after the
 * first line of a batch (a write per line would cost a system call each). Each line is encoded straight into
 * the batch's buffer. To a file, a pipe or a socket (a stream with a descriptor, not a terminal) a thread of its
 * own writes them, so that a slow disk or a reader that lags never holds up the event loop: each batch's memory
 * is handed to it, not copied, and it writes whole lines at most PIPE_BUF at a time (see `logThread`). When the
 * thread is MAX_BEHIND bytes behind, new lines are dropped and counted until it catches up, and `dropped` makes
 * the line that says so. Anything else (a terminal, a test's array) gets `out.write`.
 */
function batchedLines(out: LogStream, dropped: (count: number) => string): { add(line: string): void; drained(): Promise<void> } {
  let thread = out.isTTY === true || out.fd === undefined ? undefined : startLogThread(out.fd);
  let batch = Buffer.allocUnsafeSlow(MAX_PENDING);
  let used = 0;
  let behind = 0;
  let lost = 0;
  let timer: NodeJS.Timeout | undefined;
  let waiting: Array<() => void> = [];

  const settle = (): void => {
    if (behind > 0 || used > 0) return;
    // Only a stop that waits for the last lines keeps kurz running for the thread.
    thread?.unref();
    const done = waiting;
    waiting = [];
    for (const resolve of done) resolve();
  };

  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (used === 0) return settle();
    send(batch, used);
    batch = thread === undefined ? batch : Buffer.allocUnsafeSlow(MAX_PENDING);
    used = 0;
    settle();
  };

  // `bytes` owns its memory (allocUnsafeSlow), which goes to the thread.
  const send = (bytes: Buffer, length: number): void => {
    if (thread === undefined) {
      out.write(bytes.toString('utf8', 0, length));
      return;
    }
    behind += length;
    thread.postMessage([bytes.buffer, bytes.byteOffset, length], [bytes.buffer as ArrayBuffer]);
  };

  const put = (line: string): void => {
    // A UTF-16 unit is at most 3 bytes of UTF-8.
    if (used + line.length * 3 > batch.length) flush();
    if (line.length * 3 <= batch.length) {
      used += batch.write(line, used);
      return;
    }
    // A line longer than a batch goes alone, in memory of its own (never the shared pool's: it is handed over).
    const alone = Buffer.allocUnsafeSlow(Buffer.byteLength(line));
    send(alone, alone.write(line));
  };

  thread?.on('message', (message: LogThreadMessage) => {
    if (typeof message === 'number') {
      behind -= message;
      return settle();
    }
    // The descriptor failed (closed, say): the stream, and its own error handling, take the rest, the batches
    // already handed over included (the thread gives each back).
    thread = undefined;
    behind = 0;
    out.write(message.unwritten);
    flush();
  });
  thread?.unref();

  return {
    add(line) {
      if (behind >= MAX_BEHIND) {
        lost += 1;
        return;
      }
      if (lost > 0) {
        put(dropped(lost));
        lost = 0;
      }
      put(line);
      timer ??= setTimeout(flush, FLUSH_MS);
    },
    drained: () =>
      new Promise((resolve) => {
        waiting.push(resolve);
        thread?.ref();
        flush();
      }),
  };
}

/** What the log thread answers for each batch: how many bytes it wrote, or, once a write failed, what it did not write. */
type LogThreadMessage = number | { unwritten: string };

function startLogThread(fd: number): Worker {
  return new Worker(
    `(${logThread.toString()})(require('node:fs'), require('node:worker_threads').parentPort, ${fd}, ${PIPE_BUF}, ${RETRY_MS});`,
    {
      eval: true,
      // Its own heap holds a batch or two at a time.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    },
  );
}

/**
 * The log thread: writes each batch it is handed to `fd`, then answers with its length. It runs in a worker, so it
 * uses nothing but its arguments. To a pipe or a socket each write is whole lines, at most PIPE_BUF of them (a
 * longer line alone): a write to a pipe that long is atomic, so the lines other writers put on the same standard
 * error meanwhile (this process's log, the background writer's, the workers') fall between lines, never inside
 * one. To a regular file, which no other write cuts into whatever its length, the batch in one write. A
 * destination that takes nothing for now (a full non-blocking pipe) is tried again `retryMs` later; after any other
 * failure it writes nothing more, and gives back the rest of that batch and every later one.
 */
function logThread(fs: typeof import('node:fs'), port: MessagePort, fd: number, pipeBuf: number, retryMs: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  // A write to a regular file is never cut into by another's (the kernel holds the file for it): a batch goes at once.
  let file = false;
  try {
    file = fs.fstatSync(fd).isFile();
  } catch {
    // Written as to a pipe: the first write says what is wrong with the descriptor.
  }
  const wholeLines = (bytes: Buffer): number => {
    if (file || bytes.length <= pipeBuf) return bytes.length;
    const last = bytes.lastIndexOf(0x0a, pipeBuf - 1);
    if (last !== -1) return last + 1;
    const first = bytes.indexOf(0x0a);
    return first === -1 ? bytes.length : first + 1;
  };
  let failed = false;
  port.on('message', ([memory, offset, length]: [ArrayBuffer, number, number]) => {
    let bytes = Buffer.from(memory, offset, length);
    if (failed) {
      port.postMessage({ unwritten: bytes.toString() } satisfies LogThreadMessage);
      return;
    }
    while (bytes.length > 0) {
      try {
        bytes = bytes.subarray(fs.writeSync(fd, bytes, 0, wholeLines(bytes)));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
          Atomics.wait(pause, 0, 0, retryMs);
          continue;
        }
        failed = true;
        port.postMessage({ unwritten: bytes.toString() } satisfies LogThreadMessage);
        return;
      }
    }
    port.postMessage(length satisfies LogThreadMessage);
  });
}

/** A number as JSON.stringify writes it, without its call: NaN and the infinities are null. */
const jsonNumber = (n: number): string => (Number.isFinite(n) ? `${n}` : 'null');

/** A path or URL as logged: the token of a one-time link to set a password is never written. */
function withoutSecrets(url: string | undefined): string | undefined {
  const at = url?.indexOf(WELCOME_PATH) ?? -1;
  return at === -1 ? url : `${url!.slice(0, at + WELCOME_PATH.length)}…`;
}
