import { spawn, type ChildProcess } from 'node:child_process';
import sea from 'node:sea';
import type { Database } from 'better-sqlite3';
import type { Logger } from '../log.ts';

/** The hidden command that runs the checkpoint loop in its own process. */
export const CHECKPOINT_COMMAND = 'wal-checkpointer';

/** How often the child checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 1000;

/** SQLite's default: pages of WAL after which a commit checkpoints by itself. */
const AUTO_CHECKPOINT_PAGES = 1000;

/**
 * Moves WAL checkpoints out of the server's event loop. A checkpoint ends with an fsync of the database
 * file, and done inline (SQLite's auto-checkpoint, inside whichever commit crosses 1000 pages) it stalled
 * redirects for tens of milliseconds. The server turns auto-checkpoints off and starts kurz itself as a child
 * that runs PASSIVE checkpoints every second on its own connection; a separate process, because two SQLite
 * libraries in one process would break each other's file locks. If the child dies, auto-checkpoints return.
 */
export function startWalCheckpointer(db: Database, dbPath: string, cacheDir: string, log: Logger): { stop(): void } {
  const self = sea.isSea() ? [] : [process.argv[1] ?? ''];
  const child: ChildProcess = spawn(process.execPath, [...self, CHECKPOINT_COMMAND, '--db', dbPath, '--cache-dir', cacheDir], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let stopping = false;
  // Neither the child nor its IPC channel may keep the server alive after it closed.
  child.unref();
  child.channel?.unref();
  db.pragma('wal_autocheckpoint = 0');
  child.on('exit', (code, signal) => {
    if (stopping) return;
    db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    log.error('the WAL checkpointer stopped; checkpointing inline again', { code, signal });
  });
  child.on('error', (err) => log.error('could not start the WAL checkpointer', { err }));
  log.info('WAL checkpointer started', { pid: child.pid });
  return {
    stop() {
      stopping = true;
      child.kill('SIGTERM');
    },
  };
}

/** The child's side: checkpoint every second until the parent goes away (its IPC channel closes). */
export function runCheckpoints(db: Database): Promise<void> {
  return new Promise((resolve) => {
    const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), CHECKPOINT_INTERVAL_MS);
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      db.close();
      if (process.connected) process.disconnect();
      resolve();
    };
    process.once('disconnect', finish);
    process.once('SIGTERM', finish);
  });
}
