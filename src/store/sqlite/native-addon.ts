import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import sea from 'node:sea';
import { ensureDir } from '../../core/ensure-dir.ts';

/** Name of the better-sqlite3 addon among the single executable's assets. */
export const ADDON_ASSET = 'better_sqlite3.node';

/**
 * Inside the single executable, unpacks the SQLite addon into `cacheDir` (once per content hash) and loads
 * it; outside it, returns undefined and better-sqlite3 finds its addon in node_modules.
 * Throws with a message naming the directory when it cannot be written.
 */
export function loadNativeBinding(cacheDir: string): object | undefined {
  if (!sea.isSea()) return undefined;
  const bytes = Buffer.from(sea.getRawAsset(ADDON_ASSET) as ArrayBuffer);
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const file = join(cacheDir, `better_sqlite3-${hash}.node`);
  if (!isIntact(file, bytes)) writeAtomically(cacheDir, file, bytes);
  const module = { exports: {} };
  process.dlopen(module, file);
  return module.exports;
}

function isIntact(file: string, bytes: Buffer): boolean {
  try {
    return readFileSync(file).equals(bytes);
  } catch {
    return false;
  }
}

// Written to a unique temporary name and renamed into place: a process starting at the same moment
// sees either no file or the whole file, never half of one.
function writeAtomically(dir: string, file: string, bytes: Buffer): void {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    ensureDir(dir);
    const fd = openSync(temp, 'wx', 0o700);
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (err) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // The folder itself is unusable; nothing was written.
    }
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(`cannot unpack the SQLite addon into the cache directory ${dir} (${reason}); make it writable or set KURZ_CACHE_DIR`, {
      cause: err,
    });
  }
}
