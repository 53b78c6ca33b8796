import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import sea from 'node:sea';
import type { Database } from 'better-sqlite3';
import type { Logger } from '../log.ts';
import { VisitBuffer } from '../stats/visit-buffer.ts';
import { createLinkStore, type VisitCount } from './link-store.ts';

/** The hidden command that runs the background loop in its own process. */
export const BACKGROUND_COMMAND = 'background';

/** How often the child writes the visits it was sent and checkpoints the WAL. */
export const BACKGROUND_INTERVAL_MS = 1000;

/** SQLite's default: pages of WAL after which a commit checkpoints by itself. */
const AUTO_CHECKPOINT_PAGES = 1000;

/**
 * Rows per transaction in the child: fewer commits than the server's 50 (each one makes the server's
 * connection drop its page cache), small enough that a create in the server, which needs the write lock
 * too, waits a few milliseconds at most.
 */
const CHUNK = 500;

/** How long the server waits for the child to write its last visits at shutdown. */
const FINISH_TIMEOUT_MS = 10_000;

/** Numbers per visit count on the wire: id, count, lastVisitAt. */
const FIELDS = 3;

/** Parent to child. Sent with the advanced (structured clone) serialization, so the array stays binary. */
type Message = { visits: Float64Array } | { finish: true };

export interface Background {
  /** Hands a flush of visit counts to the child; false when it is gone (the caller then writes them itself). */
  offload(counts: VisitCount[]): boolean;
  /** Asks the child to write what it holds and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Moves the server's writes that nobody waits for out of its event loop, into a child process with its
 * own connection (a separate process, because two SQLite libraries in one process break each other's file
 * locks):
 * - visit counts: on a large table every visited link is a random page, and writing thousands of them per
 *   second took the server's event loop. The child gets each flush over IPC and buffers it like the server.
 * - WAL checkpoints: a checkpoint ends with an fsync of the database file; inline (SQLite's auto-checkpoint,
 *   inside whichever commit crosses 1000 pages) it stalled redirects for tens of milliseconds.
 * If the child dies, the server writes visits and checkpoints itself again; the counts the child held
 * (at most one interval's) are lost, as the server's own buffer would be in a crash.
 */
export function startBackground(
  db: Database,
  dbPath: string,
  cacheDir: string,
  log: Logger,
  writeHere: (counts: VisitCount[]) => void,
): Background {
  const self = sea.isSea() ? [] : [process.argv[1] ?? ''];
  const child: ChildProcess = spawn(process.execPath, [...self, BACKGROUND_COMMAND, '--db', dbPath, '--cache-dir', cacheDir], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  let stopping = false;
  let alive = true;
  const exited = once(child, 'exit').catch(() => undefined);
  // Neither the child nor its IPC channel may keep the server alive while it serves.
  child.unref();
  child.channel?.unref();
  db.pragma('wal_autocheckpoint = 0');
  child.on('exit', (code, signal) => {
    alive = false;
    if (stopping) return;
    db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    log.error('the background process stopped; writing visits and checkpointing inline again', { code, signal });
  });
  child.on('error', (err) => log.error('could not start the background process', { err }));
  log.info('background process started', { pid: child.pid });

  return {
    offload(counts) {
      if (!alive || !child.connected) return false;
      const message: Message = { visits: pack(counts) };
      // A send that fails (the child died meanwhile) gives the counts back to the server.
      child.send(message, (err) => {
        if (err) writeHere(counts);
      });
      return true;
    },
    async stop() {
      stopping = true;
      if (!alive) return;
      child.ref();
      const message: Message = { finish: true };
      child.send(message, () => undefined);
      const timer = setTimeout(() => {
        log.error('the background process did not finish in time; its last visits are lost', { pid: child.pid });
        child.kill('SIGKILL');
      }, FINISH_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The child's side: buffer the visits the server sends (merged per link, as in the server), write them and
 * checkpoint every interval, until the server asks it to finish or goes away (its IPC channel closes); then
 * write the rest and close.
 */
export function runBackground(db: Database, log: Logger): Promise<void> {
  const links = createLinkStore(db);
  const visits = new VisitBuffer({
    write: (counts) => links.addVisits(counts),
    flushSize: Number.POSITIVE_INFINITY,
    flushInterval: BACKGROUND_INTERVAL_MS,
    chunk: CHUNK,
    log,
  });
  visits.start();

  return new Promise((resolve) => {
    const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), BACKGROUND_INTERVAL_MS);
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      visits.stop();
      db.close();
      if (process.connected) process.disconnect();
      resolve();
    };
    process.on('message', (message: Message) => {
      if ('visits' in message) visits.restore(unpack(message.visits));
      else finish();
    });
    process.once('disconnect', finish);
    process.once('SIGTERM', finish);
  });
}

function pack(counts: VisitCount[]): Float64Array {
  const visits = new Float64Array(counts.length * FIELDS);
  let i = 0;
  for (const c of counts) {
    visits[i++] = c.id;
    visits[i++] = c.count;
    visits[i++] = c.lastVisitAt;
  }
  return visits;
}

function* unpack(visits: Float64Array): Generator<VisitCount> {
  for (let i = 0; i + FIELDS <= visits.length; i += FIELDS) {
    yield { id: visits[i]!, count: visits[i + 1]!, lastVisitAt: visits[i + 2]! };
  }
}
