import { createHash } from 'node:crypto';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { blocklistParser, linesOf, parseBlocklist, type Blocklist, type BlocklistFile } from './blocklist.ts';

/** The configured blocklist files, read: the list, and a digest of their names and contents. */
export interface LoadedBlocklist {
  list: Blocklist;
  /** SHA-256 of every file's name and bytes: equal digests, equal lists. */
  digest: string;
  /** The paths as configured, in the list's order. */
  paths: readonly string[];
  /** Milliseconds spent reading and parsing. */
  ms: number;
}

/** Lines parsed between two turns of the event loop, so that a large reload never holds the server for long. */
const LINES_PER_TURN = 250;
/** Bytes hashed between two turns of the event loop. */
const BYTES_PER_TURN = 1 << 18;

/** The configured paths of the `blocklist` setting. */
export function blocklistPaths(setting: string): string[] {
  return setting === '' ? [] : setting.split(',');
}

/** Reads and parses every file at once (a start, a CLI command). Throws an Error naming the file that cannot be read. */
export function readBlocklistFiles(paths: readonly string[]): LoadedBlocklist {
  const started = performance.now();
  const hash = createHash('sha256');
  const files: BlocklistFile[] = [];
  for (const path of paths) {
    const bytes = readOrExplain(path, () => readFileSync(path));
    hash.update(`${path}\0`).update(bytes).update('\0');
    files.push(parseBlocklist(bytes, basename(path)));
  }
  return { list: { files }, digest: hash.digest('hex'), paths, ms: performance.now() - started };
}

/**
 * Reads and parses every file again, a slice at a time between other work (a reload while serving).
 * Resolves with undefined when their digest is `unless` (nothing changed: nothing is parsed). Rejects with
 * an Error naming the file that cannot be read.
 */
export async function loadBlocklistFiles(paths: readonly string[], unless?: string): Promise<LoadedBlocklist | undefined> {
  const started = performance.now();
  const hash = createHash('sha256');
  const contents: Buffer[] = [];
  for (const path of paths) {
    const bytes = await readOrExplainAsync(path, () => readFile(path));
    hash.update(`${path}\0`);
    for (let at = 0; at < bytes.length; at += BYTES_PER_TURN) {
      hash.update(bytes.subarray(at, at + BYTES_PER_TURN));
      await yieldToLoop();
    }
    hash.update('\0');
    contents.push(bytes);
  }
  const digest = hash.digest('hex');
  if (digest === unless) return undefined;
  const files: BlocklistFile[] = [];
  for (const [i, path] of paths.entries()) {
    const parser = blocklistParser(basename(path));
    let lines = 0;
    for (const line of linesOf(contents[i] ?? Buffer.alloc(0))) {
      parser.line(line);
      if (++lines % LINES_PER_TURN === 0) await yieldToLoop();
    }
    contents[i] = Buffer.alloc(0);
    files.push(parser.result());
  }
  return { list: { files }, digest, paths, ms: performance.now() - started };
}

/**
 * Calls `changed` when a file may have changed: on the file system's events for each file's folder (which
 * also sees a new file renamed into place, as editors and download scripts replace one), and, for what
 * those miss (network file systems, a symbolic link's target), when a poll every `pollMs` finds another
 * size, time or inode than the poll before (`ready` resolves once the first has looked). Events in a burst
 * are answered once, `settleMs` after the last. `close` stops it.
 */
export function watchFiles(
  paths: readonly string[],
  changed: () => void,
  { pollMs, settleMs }: { pollMs: number; settleMs: number },
): { ready: Promise<void>; close(): void } {
  let settle: NodeJS.Timeout | undefined;
  const soon = (): void => {
    clearTimeout(settle);
    settle = setTimeout(changed, settleMs).unref();
  };
  const watchers: FSWatcher[] = [];
  const names = new Map<string, Set<string>>();
  for (const path of paths) {
    const dir = dirname(resolve(path));
    names.set(dir, (names.get(dir) ?? new Set()).add(basename(path)));
  }
  for (const [dir, files] of names) {
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => {
        if (name === null || files.has(String(name))) soon();
      });
      // A folder that goes away stops its events; the poll carries on.
      watcher.on('error', () => watcher.close());
      watchers.push(watcher);
    } catch {
      // No events for this folder (none exists, or no inotify): the poll carries on.
    }
  }
  let last: string | undefined;
  let polling = false;
  const poll = setInterval(() => {
    if (polling) return;
    polling = true;
    signature(paths)
      .then((now) => {
        if (last !== undefined && now !== last) soon();
        last = now;
      })
      .finally(() => (polling = false));
  }, pollMs).unref();
  const ready = signature(paths).then((now) => void (last ??= now));
  return {
    ready,
    close() {
      clearInterval(poll);
      clearTimeout(settle);
      for (const watcher of watchers) watcher.close();
    },
  };
}

/** What the poll compares: each file's inode, size and modification time (or that it is missing). */
async function signature(paths: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    paths.map((path) =>
      stat(path).then(
        (s) => `${s.ino}:${s.size}:${s.mtimeMs}`,
        (err: NodeJS.ErrnoException) => err.code ?? 'error',
      ),
    ),
  );
  return parts.join(',');
}

function readOrExplain(path: string, read: () => Buffer): Buffer {
  try {
    return read();
  } catch (err) {
    throw cannotRead(path, err);
  }
}

async function readOrExplainAsync(path: string, read: () => Promise<Buffer>): Promise<Buffer> {
  try {
    return await read();
  } catch (err) {
    throw cannotRead(path, err);
  }
}

function cannotRead(path: string, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'a folder, not a file' : code;
  return new Error(`cannot read ${path}: ${why ?? (err as Error).message}`, { cause: err });
}
