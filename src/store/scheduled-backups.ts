import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, rmSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import sea from 'node:sea';
import type { Config } from '../config.ts';
import type { Deps } from '../deps.ts';
import { ensureDir } from '../core/ensure-dir.ts';

/** A scheduled backup's name: kurz- and its start in UTC, so that names sort by time. */
const BACKUP = /^kurz-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.db$/;

/** What a backup that was killed leaves: `kurz backup`'s temporary file. */
const PARTIAL = /^kurz-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.db\.partial-\d+$/;

/**
 * The copy runs behind the server, but not at the background writer's 19: visits can wait, a backup is due,
 * and at 19 any other busy process on the machine starved it for minutes.
 */
const CHILD_NICE = 10;

export interface ScheduledBackups {
  /** Stops the schedule; a backup under way is killed (its temporary file goes with the next one). */
  stop(): Promise<void>;
}

/**
 * Every `backupInterval`, runs `kurz backup` (the command a person runs: SQLite's online backup, consistent,
 * checked, renamed into place) in a process of its own at a low priority (nice 10), so the server never waits
 * for the copy, into backupDir (made if missing) as kurz-<UTC start>.db; then deletes the oldest beyond
 * backupKeep and any temporary file a killed backup left. Logs each backup and each failure; a failure
 * changes nothing else, and the next backup runs on time. Undefined when backups are off.
 */
export function scheduleBackups(config: Config, deps: Deps): ScheduledBackups | undefined {
  if (config.backupInterval === 0) return undefined;
  let stopped = false;
  let running: BackupCommand | undefined;
  let timer: NodeJS.Timeout;
  /** When the last backup began (the schedule's start, before the first). */
  let started = deps.now();

  const backUp = async (): Promise<void> => {
    started = deps.now();
    const file = join(config.backupDir, `kurz-${new Date(started).toISOString().replaceAll(':', '-')}.db`);
    const failed = (error: string): void => deps.log.error('scheduled backup failed; kurz goes on serving', { file, error });
    try {
      ensureDir(config.backupDir);
      running = backupCommand(config, file);
      const { code, signal, stdout, stderr } = await running.exited;
      if (stopped) deps.log.info('scheduled backup stopped with the server', { file });
      else if (code !== 0) failed(stderr.trim().replace(/^kurz: /, '') || `exit code ${code}, signal ${signal}`);
      else {
        const removed = removeOldest(config);
        const pages = Number(/backed up (\d+) pages/.exec(stdout)?.[1] ?? 0);
        deps.log.info('backup written', {
          file,
          pages,
          ms: deps.now() - started,
          ...(removed.length > 0 ? { removed: removed.join(',') } : {}),
        });
      }
      removePartial(config);
    } catch (err) {
      failed((err as Error).message);
    } finally {
      running = undefined;
    }
    if (!stopped) arm();
  };
  // A timer may fire a few milliseconds before its time by the wall clock (Node measures it from the event
  // loop's cached time): the backup then waits those out, so that two never begin less than an interval apart.
  const runOnce = (): void => {
    if (started + config.backupInterval > deps.now()) arm();
    else void backUp();
  };
  /** Sets the timer for an interval after the last start. */
  function arm(): void {
    timer = setTimeout(runOnce, Math.max(0, started + config.backupInterval - deps.now())).unref();
  }

  arm();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      running?.kill();
      await running?.exited.catch(() => undefined);
    },
  };
}

interface BackupCommand {
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  kill(): void;
}

/** `kurz backup FILE` of the database of `config`, in a process of its own at CHILD_NICE. */
function backupCommand(config: Config, file: string): BackupCommand {
  const child = spawn(process.execPath, [...self(), 'backup', '--db', config.db, '--cache-dir', config.cacheDir, file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    if (child.pid !== undefined) setPriority(child.pid, CHILD_NICE);
  } catch {
    // It runs at the server's priority then.
  }
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const closed = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  return {
    exited: closed.then(([code, signal]) => ({ code, signal, stdout, stderr })),
    kill: () => child.kill('SIGTERM'),
  };
}

/** Deletes the oldest scheduled backups beyond backupKeep; returns their names. */
function removeOldest(config: Config): string[] {
  const backups = readdirSync(config.backupDir)
    .filter((n) => BACKUP.test(n))
    .sort();
  const old = backups.slice(0, Math.max(0, backups.length - config.backupKeep));
  for (const name of old) rmSync(join(config.backupDir, name), { force: true });
  return old;
}

/** Deletes what backups that were killed left: only ever called between backups. */
function removePartial(config: Config): void {
  for (const name of readdirSync(config.backupDir).filter((n) => PARTIAL.test(n))) rmSync(join(config.backupDir, name), { force: true });
}

/** The arguments that run this program again: its script, unless it is the single executable. */
function self(): string[] {
  return sea.isSea() ? [] : [process.argv[1] ?? ''];
}
