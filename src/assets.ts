import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sea from 'node:sea';

/** A file shipped with kurz (views, icons), by its path from the project root: from inside the executable, or from disk. */
export function readAsset(path: string): Buffer {
  if (sea.isSea()) return Buffer.from(sea.getRawAsset(path) as ArrayBuffer);
  // This file is src/assets.ts, or build/kurz.cjs once bundled: one level below the root either way.
  // (Inside the executable there is no such folder, hence not read at load time.)
  return readFileSync(join(import.meta.dirname, '..', path));
}
