import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { getPriority, setPriority } from 'node:os';
import sea from 'node:sea';
import { isUnavailable } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { NODE_FLAGS } from '../node-flags.ts';
import type { VisitStore } from '../store/ports.ts';
import type { BackgroundWriter, WriterDatabase, WriterHost } from '../store/writer-ports.ts';
import { cachedBotCheck } from '../visits/classify.ts';
import { VisitBacklog } from '../visits/visit-backlog.ts';
import { VisitBuffer } from '../visits/visit-buffer.ts';
import type { VisitEvents } from '../visits/visit-events.ts';
import { VisitHandover, writtenThrough } from '../visits/visit-handover.ts';
import type { VisitRecorder } from '../visits/visit-recorder.ts';
import { receive, send as sendTo } from './channel.ts';
import { fromWriter, toWriter } from './writer-channel.ts';

/** The hidden command that runs the background writer in its own process. */
export const BACKGROUND_WRITER_COMMAND = 'background';

/** How often the child writes the visits it was sent and checkpoints the WAL. */
const BACKGROUND_INTERVAL_MS = 1000;

/** How often the child deletes raw visits past the retention period. */
const PRUNE_INTERVAL_MS = 3_600_000;

/**
 * How long the server waits at shutdown for the child to write some of its last visits: it waits as long
 * as the child reports progress at least this often.
 */
const FINISH_TIMEOUT_MS = 10_000;

/**
 * The child's nice value: it runs behind the server, so a saturated server keeps its core and the visits
 * wait (as compact events) until there is time to write them.
 */
const CHILD_NICE = 19;

/**
 * Visits handed to the child and not yet written, at most (and at most the configured backlog): more wait
 * in the server as compact events rather than in the IPC queue. The child writes what it was sent every
 * second, so this caps its rate at about this many a second (above the server's half load), and at
 * shutdown it writes them in a second or two.
 */
const WINDOW = 32_768;

/** Distinct user agents whose bot verdict is kept, for the visits only counted (VisitBacklog). */
const BOT_CHECKS = 1000;

/**
 * Waits before starting another child, by how many in a row died without writing anything; after one more,
 * the server writes its visits itself.
 */
const RESTART_DELAYS_MS = [0, 1000, 5000];

/**
 * Moves the server's writes that nobody waits for out of its event loop, into a child process with its
 * own connection (a process, because two SQLite libraries in one process break each other's file locks,
 * and the executable cannot load the addon into a worker thread):
 * - visits: the child gets each flush of events over IPC, classifies them (user agent, country, visitor
 *   hash), writes them with their rollups every second, and deletes raw visits past the retention period.
 * - WAL checkpoints: a checkpoint ends with an fsync of the database file, which inline stalled redirects.
 * If the child dies, the server starts another and hands it exactly the visits the dead one had not written
 * (VisitHandover: the receipt the child keeps with every chunk it commits says which); if children keep
 * dying before writing anything, the server writes visits and checkpoints itself again. `flags` are the
 * settings the child needs besides the database's (`kurz background` reads them like any command).
 */
export function startBackgroundWriter(host: WriterHost, flags: readonly string[], log: Logger, backlogLimit: number): BackgroundWriter {
  // The executable embeds kurz's Node options; `node` takes them before the script.
  const self = sea.isSea() ? [] : [...NODE_FLAGS, process.argv[1] ?? ''];
  const handover = new VisitHandover();
  /** Flushes not sent yet (the window is full, or a child is starting): past the limit, counts alone. */
  const backlog = new VisitBacklog(backlogLimit, cachedBotCheck(BOT_CHECKS));
  const window = Math.min(WINDOW, backlogLimit);
  let giveBack: ((events: VisitEvents) => void) | undefined;
  let current: { child: ChildProcess; finishing: boolean } | undefined;
  let restart: NodeJS.Timeout | undefined;
  /** Children in a row that died without writing anything. */
  let failedStarts = 0;
  let stopping = false;
  let abandoned = false;
  /** The server writes its visits itself. */
  let inline = false;
  let stopped: (() => void) | undefined;
  let finishTimer: NodeJS.Timeout | undefined;
  let fault: string | undefined;
  const waiting = (): number => handover.unconfirmed + backlog.length;

  function start(): void {
    restart = undefined;
    const name = randomBytes(8).toString('hex');
    const child = spawn(process.execPath, [...self, BACKGROUND_WRITER_COMMAND, '--handover', name, ...host.flags, ...flags], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
      env: host.env && { ...process.env, ...host.env },
    });
    const writer = { child, finishing: false };
    current = writer;
    // Neither the child nor its IPC channel may keep the server alive while it serves.
    if (!stopping) {
      child.unref();
      child.channel?.unref();
    }
    receive(child, fromWriter, log, (report) => {
      finishTimer?.refresh();
      // A child started while stopping has made itself nice 19 by its first report.
      if (stopping) catchUp(child);
      if ('fault' in report) fault = report.fault ?? undefined;
      if (!('written' in report)) return;
      failedStarts = 0;
      handover.confirm(report.written);
      send();
    });
    let over = false;
    const end = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (over) return;
      over = true;
      void ended(writer, name, code, signal);
    };
    child.on('error', (err) => {
      log.error('could not start the background process', { err });
      // A process that never started may never close either.
      if (child.pid === undefined) end(null, null);
    });
    // After its last message: what it confirmed is known, and its receipt is final.
    child.once('close', end);
    log.info('background process started', { pid: child.pid });
    send();
  }

  /** Sends what the window allows; once stopping and everything is sent, asks the child to finish. */
  function send(): void {
    const writer = current;
    if (writer === undefined || !writer.child.connected) return;
    while (backlog.length > 0 && handover.unconfirmed < window) {
      // While serving, counts go a window at a time, and the rest keep adding up here; at the stop, all at once.
      const events = backlog.shift(stopping ? Number.POSITIVE_INFINITY : window - handover.unconfirmed)!;
      handover.sent(events);
      // A send that fails finds the child gone: its end hands on what it had not written.
      sendTo(writer.child, toWriter, { events });
    }
    if (stopping && backlog.length === 0 && !writer.finishing) {
      writer.finishing = true;
      sendTo(writer.child, toWriter, { finish: true });
    }
  }

  async function ended(
    writer: NonNullable<typeof current>,
    name: string,
    code: number | null,
    signal: NodeJS.Signals | null,
  ): Promise<void> {
    const receipt = await host.takeReceipt(name);
    if (current === writer) current = undefined;
    fault = undefined;
    const left = handover.unwritten(receipt);
    backlog.unshift(left);
    if (abandoned) {
      // Killed while it closed the database, after it had written every visit: nothing is lost.
      if (waiting() === 0)
        log.warn(`the background process wrote every visit but did not exit within ${FINISH_TIMEOUT_MS / 1000} s; stopped it`, {
          pid: writer.child.pid,
        });
      else
        log.error('the background process stopped making progress; its last visits are lost', { pid: writer.child.pid, visits: waiting() });
      stopped?.();
      return;
    }
    if (writer.finishing && code === 0 && waiting() === 0) {
      stopped?.();
      return;
    }
    // It finished as asked, but the database did not take all it held (a fault of the file): another
    // process, with a connection of its own, tries again.
    const refused = writer.finishing && code === 0;
    failedStarts++;
    const delay = RESTART_DELAYS_MS[failedStarts - 1];
    if (delay === undefined) {
      inline = true;
      host.checkpointInline(true);
      const back: VisitEvents[] = [];
      for (let events = backlog.shift(); events !== undefined; events = backlog.shift()) back.push(events);
      if (stopping) {
        const why = refused ? 'the database did not take the last visits' : 'the background process keeps stopping';
        log.error(`${why}; they are lost`, { code, signal, visits: countOf(back) });
        stopped?.();
        return;
      }
      log.error('the background process keeps stopping; writing visits and checkpointing inline again', { code, signal });
      for (const events of back) giveBack?.(events);
      return;
    }
    if (refused)
      log.warn('the background process finished with visits the database did not take; starting another to try again', {
        visits: left.length,
        inMs: delay,
      });
    else log.error('the background process stopped; starting another', { code, signal, unwritten: left.length, inMs: delay });
    restart = setTimeout(start, delay);
    if (!stopping) restart.unref();
  }

  host.checkpointInline(false);
  start();

  return {
    get fault() {
      return fault;
    },
    get detailDropped() {
      return backlog.dropped;
    },
    offload(events, back) {
      if (inline) return false;
      giveBack = back;
      backlog.add(events, handover.unconfirmed);
      send();
      return true;
    },
    async stop() {
      stopping = true;
      if (inline) return;
      const done = new Promise<void>((resolve) => (stopped = resolve));
      current?.child.ref();
      current?.child.channel?.ref();
      if (current) catchUp(current.child);
      restart?.ref();
      // More than a window's detail would take the child seconds: their counts are written, not their detail.
      if (waiting() > window) backlog.countAll();
      const left = waiting();
      if (left > 0) log.info('writing the last visits before stopping', { visits: left, detailDropped: backlog.dropped });
      finishTimer = setTimeout(() => {
        abandoned = true;
        if (current) current.child.kill('SIGKILL');
        else {
          clearTimeout(restart);
          log.error('the background process stopped making progress; its last visits are lost', { visits: waiting() });
          stopped?.();
        }
      }, FINISH_TIMEOUT_MS);
      send();
      await done;
      clearTimeout(finishTimer);
    },
  };
}

/**
 * Gives the child the server's own priority for its last writes: the server no longer serves, and at nice 19 a
 * machine busy with other work could starve it past FINISH_TIMEOUT_MS. Only where the system lets a process
 * raise another's priority (root, CAP_SYS_NICE or RLIMIT_NICE); elsewhere it finishes at nice 19.
 */
function catchUp(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) setPriority(child.pid, getPriority());
  } catch {
    // Not allowed here.
  }
}

function countOf(flushes: readonly VisitEvents[]): number {
  return flushes.reduce((sum, events) => sum + events.length, 0);
}

/** The child's side: tells the server of a fault its writes fail with, or that they succeed again (undefined). */
export function reportFault(fault: string | undefined): void {
  sendTo(process, fromWriter, { fault: fault ?? null });
}

/**
 * The child's side: buffer the events the server sends, hand them to the recorder every interval, tell the
 * server after each chunk it commits how far it has written, checkpoint every interval, prune every hour,
 * until the server asks it to finish or goes away (its IPC channel closes); then write the rest and close.
 * `store` keeps the receipt of each chunk, in the chunk's transaction.
 */
export function runWriterProcess(
  database: WriterDatabase,
  store: VisitStore,
  recorderOn: (store: VisitStore) => VisitRecorder,
  log: Logger,
): Promise<void> {
  setPriority(CHILD_NICE);
  const recorder = recorderOn({
    ...store,
    async addVisits(batch, receipt) {
      await store.addVisits(batch, receipt);
      if (receipt !== undefined) sendTo(process, fromWriter, { written: writtenThrough(receipt) });
    },
  });
  sendTo(process, fromWriter, { alive: true });
  const visits = new VisitBuffer({
    write: (events) => recorder.add(events),
    flushSize: Number.POSITIVE_INFINITY,
    flushInterval: BACKGROUND_INTERVAL_MS,
  });
  visits.start();
  // The prune under way, which `finish` waits for before it closes the database.
  let pruned: Promise<unknown> = Promise.resolve();
  const prune = (): void => {
    pruned = recorder.prune().then(
      (deleted) => deleted > 0 && log.info('pruned raw visits past the retention period', { visits: deleted }),
      (err: unknown) => isUnavailable(err) || log.error('could not prune visits', { err }),
    );
  };
  prune();

  return new Promise((resolve) => {
    const timer = setInterval(() => database.checkpoint(), BACKGROUND_INTERVAL_MS);
    const pruning = setInterval(prune, PRUNE_INTERVAL_MS);
    let finished = false;
    const finish = async (): Promise<void> => {
      if (finished) return;
      finished = true;
      sendTo(process, fromWriter, { alive: true });
      clearInterval(timer);
      clearInterval(pruning);
      visits.stop();
      await pruned;
      await recorder.idle();
      // The server hands what is not written to another writer; without a server, nobody will.
      if (recorder.pending > 0 && process.connected)
        log.warn('stopping with visits the database did not take', { visits: recorder.pending });
      else if (recorder.pending > 0)
        log.error('stopping with visits the database did not take; they are lost', { visits: recorder.pending });
      // With the server gone, nobody reads the receipt; a server reads and removes it itself.
      await database.close(!process.connected && recorder.pending === 0);
      if (process.connected) process.disconnect();
      resolve();
    };
    receive(process, toWriter, log, (message) => {
      if ('events' in message) visits.addEvents(message.events);
      else void finish();
    });
    process.once('disconnect', () => void finish());
    // Ctrl-C in a terminal and systemd's stop reach the whole process group, this child too: it goes on
    // until the server has handed it its last visits and says finish (or goes away).
    process.on('SIGTERM', () => undefined);
    process.on('SIGINT', () => undefined);
  });
}
