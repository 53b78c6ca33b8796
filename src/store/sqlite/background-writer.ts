import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setPriority } from 'node:os';
import sea from 'node:sea';
import type { Database } from 'better-sqlite3';
import { isUnavailable } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { NODE_FLAGS } from '../../node-flags.ts';
import { VisitBuffer } from '../../visits/visit-buffer.ts';
import type { VisitEvents } from '../../visits/visit-events.ts';
import type { VisitRecorder } from '../../visits/visit-recorder.ts';
import type { WriteFault, WriteHealth } from './write-health.ts';

/** The hidden command that runs the background writer in its own process. */
export const BACKGROUND_WRITER_COMMAND = 'background';

/** How often the child writes the visits it was sent and checkpoints the WAL. */
export const BACKGROUND_INTERVAL_MS = 1000;

/** How often the child deletes raw visits past the retention period. */
const PRUNE_INTERVAL_MS = 3_600_000;

/** SQLite's default: pages of WAL after which a commit checkpoints by itself. */
const AUTO_CHECKPOINT_PAGES = 1000;

/**
 * How long the server waits at shutdown for the child to write some of its last visits: it waits as long
 * as the child reports progress at least this often.
 */
const FINISH_TIMEOUT_MS = 10_000;

/**
 * The child's nice value: it runs behind the server, so a saturated server keeps its core and the visits
 * wait (in the child's memory, as compact events) until there is time to write them.
 */
const CHILD_NICE = 19;

/** Parent to child. Sent with the advanced (structured clone) serialization, so the columns stay binary. */
type Message = { events: VisitEvents } | { finish: true };

/**
 * Child to parent: while it finishes, the visits it still has to write; and whenever it changes, the
 * fault its writes fail with (null when they succeed again), for the server's /healthz.
 */
type Report = { pending: number } | { fault: WriteFault | null };

export interface BackgroundWriter {
  /**
   * Hands a flush of visit events to the child; false when it is gone (the caller then writes them
   * itself). A send that fails afterwards hands the events to `giveBack`.
   */
  offload(events: VisitEvents, giveBack: (events: VisitEvents) => void): boolean;
  /** The fault the child's writes (visits, checkpoints) fail with, as it last reported; undefined when none. */
  readonly fault: WriteFault | undefined;
  /** Asks the child to write what it holds and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Moves the server's writes that nobody waits for out of its event loop, into a child process with its
 * own connection (a process, because two SQLite libraries in one process break each other's file locks,
 * and the executable cannot load the addon into a worker thread):
 * - visits: the child gets each flush of events over IPC, classifies them (user agent, country, visitor
 *   hash), writes them with their rollups every second, and deletes raw visits past the retention period.
 * - WAL checkpoints: a checkpoint ends with an fsync of the database file, which inline stalled redirects.
 * If the child dies, the server writes visits and checkpoints itself again; the visits the child held
 * (at most one interval's) are lost, as the server's own buffer would be in a crash. `flags` are the
 * settings the child needs besides the database (`kurz background` reads them like any command).
 */
export function startBackgroundWriter(db: Database, flags: readonly string[], log: Logger): BackgroundWriter {
  // The executable embeds kurz's Node options; `node` takes them before the script.
  const self = sea.isSea() ? [] : [...NODE_FLAGS, process.argv[1] ?? ''];
  const child: ChildProcess = spawn(process.execPath, [...self, BACKGROUND_WRITER_COMMAND, '--db', db.name, ...flags], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  let stopping = false;
  let alive = true;
  let fault: WriteFault | undefined;
  const exited = once(child, 'exit').catch(() => undefined);
  // Neither the child nor its IPC channel may keep the server alive while it serves.
  child.unref();
  child.channel?.unref();
  db.pragma('wal_autocheckpoint = 0');
  child.on('message', (report: Report) => {
    if ('fault' in report) fault = report.fault ?? undefined;
  });
  child.on('exit', (code, signal) => {
    alive = false;
    fault = undefined;
    if (stopping) return;
    db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    log.error('the background process stopped; writing visits and checkpointing inline again', { code, signal });
  });
  child.on('error', (err) => log.error('could not start the background process', { err }));
  log.info('background process started', { pid: child.pid });

  return {
    get fault() {
      return fault;
    },
    offload(events, giveBack) {
      if (!alive || !child.connected) return false;
      const message: Message = { events };
      child.send(message, (err) => {
        if (err) giveBack(events);
      });
      return true;
    },
    async stop() {
      stopping = true;
      if (!alive) return;
      child.ref();
      const message: Message = { finish: true };
      child.send(message, () => undefined);
      const giveUp = (): void => {
        log.error('the background process stopped making progress; its last visits are lost', { pid: child.pid });
        child.kill('SIGKILL');
      };
      const timer = setTimeout(giveUp, FINISH_TIMEOUT_MS);
      let left = Number.POSITIVE_INFINITY;
      child.on('message', (report: Report) => {
        if (!('pending' in report) || report.pending >= left) return;
        const { pending } = report;
        if (left === Number.POSITIVE_INFINITY && pending > 0) log.info('writing the last visits before stopping', { visits: pending });
        left = pending;
        timer.refresh();
      });
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The child's side: tells the server of a fault its writes fail with, or that they succeed again (undefined). */
export function reportFault(fault: WriteFault | undefined): void {
  const report: Report = { fault: fault ?? null };
  if (process.connected) process.send?.(report);
}

/**
 * The child's side: buffer the events the server sends, hand them to `recorder` and checkpoint every
 * interval, prune every hour, until the server asks it to finish or goes away (its IPC channel closes);
 * then write the rest and close. A checkpoint that fails for a fault of the file tells `health` (a
 * checkpoint with nothing to copy proves nothing, so one that succeeds does not end a fault).
 */
export function runBackgroundWriter(db: Database, recorder: VisitRecorder, health: WriteHealth, log: Logger): Promise<void> {
  setPriority(CHILD_NICE);
  const visits = new VisitBuffer({
    write: (events) => recorder.add(events),
    flushSize: Number.POSITIVE_INFINITY,
    flushInterval: BACKGROUND_INTERVAL_MS,
  });
  visits.start();
  const prune = (): void => {
    recorder.prune().then(
      (deleted) => deleted > 0 && log.info('pruned raw visits past the retention period', { visits: deleted }),
      (err: unknown) => isUnavailable(err) || log.error('could not prune visits', { err }),
    );
  };
  prune();
  const checkpoint = (): void => {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch (err) {
      if (health.failed(err) === err) log.error('could not checkpoint the database', { err });
    }
  };

  return new Promise((resolve) => {
    const timer = setInterval(checkpoint, BACKGROUND_INTERVAL_MS);
    const pruning = setInterval(prune, PRUNE_INTERVAL_MS);
    let finished = false;
    const finish = async (): Promise<void> => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      clearInterval(pruning);
      visits.stop();
      const progress = (): void => {
        const report: Report = { pending: recorder.pending };
        if (process.connected) process.send?.(report);
      };
      progress();
      const reporting = setInterval(progress, FINISH_TIMEOUT_MS / 4);
      await recorder.idle();
      clearInterval(reporting);
      if (recorder.pending > 0) log.error('stopping with visits the database did not take; they are lost', { visits: recorder.pending });
      health.close();
      db.close();
      if (process.connected) process.disconnect();
      resolve();
    };
    process.on('message', (message: Message) => {
      if ('events' in message) visits.addEvents(message.events);
      else void finish();
    });
    process.once('disconnect', () => void finish());
    // Ctrl-C in a terminal and systemd's stop reach the whole process group, this child too.
    process.on('SIGTERM', () => void finish());
    process.on('SIGINT', () => void finish());
  });
}
