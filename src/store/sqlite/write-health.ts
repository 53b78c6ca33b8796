import { accessSync, chmodSync, constants, existsSync, statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database } from 'better-sqlite3';
import { AppError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { BUSY_TIMEOUT_MS } from './database.ts';
import * as q from './queries.ts';

/** What keeps SQLite from writing, as `/healthz` and the log name it. */
export type WriteFault = 'disk full' | 'read-only' | 'locked by another program' | 'I/O error';

/** What a client is told while the fault lasts, with a 503: nothing was stored, and trying later may work. */
const MESSAGES: Readonly<Record<WriteFault, string>> = {
  'disk full': 'the database cannot be written: the disk is full; try again later',
  'read-only': 'the database cannot be written: its file is read-only; try again later',
  'locked by another program': 'the database is locked by another program; try again in a moment',
  'I/O error': 'the database cannot be written: the disk reported an I/O error; try again later',
};

/** How often a probe looks whether the fault is gone, while there is one. */
const PROBE_MS = 1000;

/**
 * Free space under which the file system counts as full: room for a few batches of writes, so that a
 * probe does not declare the disk writable again for every page something else frees.
 */
const MIN_FREE_BYTES = 1 << 20;

export interface WriteHealth {
  /** The fault the connection's writes last failed with, until a probe finds its cause gone. */
  readonly fault: WriteFault | undefined;
  /**
   * `err` as the 503 the domain knows (AppError('unavailable') naming the fault) when it is one: the disk
   * full, the file read-only, the lock held by another process past the wait, an I/O error. The fault is
   * logged when it starts, and probed for until it is gone. Any other error is returned as it is.
   */
  failed(err: unknown): unknown;
  /** Stops the probe. */
  close(): void;
}

export interface WatchOptions {
  /** Which process's writes, in the log lines: the server's (default) or the background writer's. */
  process?: string;
  /** Hears of each fault as it starts, and of its end (undefined). */
  onChange?: (fault: WriteFault | undefined) => void;
}

/**
 * Watches the writes of one connection to the database file. A write that fails for a fault of the file
 * starts a fault; a probe then checks every second, writing nothing, whether its cause is gone: the write
 * lock can be taken (and dropped at once), the files and their folder may be written, the file system has
 * room. Only the probe ends a fault: on a nearly full disk, a write that fits in the WAL's room succeeds
 * while the next one fails, and the fault should not come and go with each. The start and the end of a
 * fault are logged once each.
 */
export function watchWrites(db: Database, log: Logger, options: WatchOptions = {}): WriteHealth {
  const who = options.process ?? 'server';
  const begin = db.prepare(q.BEGIN);
  const rollback = db.prepare(q.ROLLBACK);
  let fault: WriteFault | undefined;
  let since = 0;
  let probe: NodeJS.Timeout | undefined;

  function become(next: WriteFault | undefined, reason: string): void {
    if (next === fault) return;
    const was = fault;
    fault = next;
    if (next === undefined) {
      clearTimeout(probe);
      probe = undefined;
      const after = `${Math.round((Date.now() - since) / 1000)} s`;
      log.info('the database recovered: writes succeed again', { database: db.name, problem: was, after, process: who });
    } else {
      if (was === undefined) since = Date.now();
      log.error('the database cannot be written; answering 503 until it can', { database: db.name, problem: next, reason, process: who });
      probe ??= setTimeout(check, PROBE_MS).unref();
    }
    options.onChange?.(next);
  }

  function check(): void {
    probe = undefined;
    if (!db.open || fault === undefined) return;
    const still = probeFault();
    // A fault that goes on (as it was, or as another) keeps the probe going.
    if (still !== fault) become(still, 'found by the probe');
    else probe = setTimeout(check, PROBE_MS).unref();
  }

  /** The fault that would stop a write now, as far as can be told without writing; undefined if none. */
  function probeFault(): WriteFault | undefined {
    // A group commit between two of its jobs holds the lock: its outcome will tell.
    if (!db.inTransaction) {
      db.pragma('busy_timeout = 0');
      try {
        begin.run();
        rollback.run();
      } catch (err) {
        return faultOf(err, db.name) ?? fault;
      } finally {
        db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
    }
    return fileFault(db.name);
  }

  return {
    get fault() {
      return fault;
    },
    failed(err) {
      const found = db.open ? faultOf(err, db.name) : undefined;
      if (found === undefined) return err;
      become(found, describe(err));
      return new AppError('unavailable', MESSAGES[found]);
    },
    close() {
      clearTimeout(probe);
      probe = undefined;
    },
  };
}

/** SQLite's primary result codes (the extended ones start with these) and the OS's errors that are faults of the file. */
const SQLITE_FAULTS: ReadonlyArray<[string, WriteFault | 'diagnose']> = [
  ['SQLITE_FULL', 'disk full'],
  ['SQLITE_READONLY', 'read-only'],
  ['SQLITE_BUSY', 'locked by another program'],
  // SQLite reports a failed write() or fsync() as an I/O error without its errno: the files tell.
  ['SQLITE_IOERR', 'diagnose'],
  ['SQLITE_CANTOPEN', 'diagnose'],
];

const ERRNO_FAULTS: Readonly<Record<string, WriteFault | 'diagnose'>> = {
  ENOSPC: 'disk full',
  EDQUOT: 'disk full',
  EFBIG: 'disk full',
  EROFS: 'read-only',
  EPERM: 'read-only',
  EACCES: 'read-only',
  EIO: 'diagnose',
};

/** The fault `err` (or an error it was caused by) is, for the database at `file`; undefined when it is none. */
export function faultOf(err: unknown, file: string): WriteFault | undefined {
  for (let e = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    const kind = code.startsWith('SQLITE_') ? SQLITE_FAULTS.find(([prefix]) => code.startsWith(prefix))?.[1] : ERRNO_FAULTS[code];
    if (kind === 'diagnose') return fileFault(file) ?? 'I/O error';
    if (kind !== undefined) return kind;
  }
  return undefined;
}

/** 'read-only' or 'disk full' when the database's files or file system say so; undefined otherwise. */
function fileFault(file: string): WriteFault | undefined {
  if (file === ':memory:' || file === '') return undefined;
  const folder = dirname(file);
  const uid = process.getuid?.();
  for (const path of [file, `${file}-wal`, folder]) {
    try {
      if (path !== folder && !existsSync(path)) continue;
      accessSync(path, constants.W_OK);
      // access() misses a file system ext4 made read-only after a disk error; giving one of our files the
      // mode it has does not (it changes nothing else).
      const { mode, uid: owner } = statSync(path);
      if (path !== folder && (uid === 0 || uid === owner)) chmodSync(path, mode & 0o7777);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EROFS' || code === 'EPERM' || code === 'EACCES') return 'read-only';
    }
  }
  try {
    const fs = statfsSync(folder);
    // root may use the blocks a file system keeps back for it.
    const free = (process.getuid?.() === 0 ? fs.bfree : fs.bavail) * fs.bsize;
    if (free < MIN_FREE_BYTES) return 'disk full';
  } catch {
    // A folder that cannot be looked at says nothing about the disk.
  }
  return undefined;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  const cause = err.cause instanceof Error ? `: ${describe(err.cause)}` : '';
  return (typeof code === 'string' && !err.message.includes(code) ? `${code}: ${err.message}` : err.message) + cause;
}
