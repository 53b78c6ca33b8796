import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sea from 'node:sea';

// In the source tree this file is src/assets.ts; in the bundle, build/kurz.cjs. Both sit one level below the root.
const ROOT = join(import.meta.dirname, '..');

/** A file shipped with kurz (views, icons), by its path from the project root: from inside the executable, or from disk. */
export function readAsset(path: string): Buffer {
  if (sea.isSea()) return Buffer.from(sea.getRawAsset(path) as ArrayBuffer);
  return readFileSync(join(ROOT, path));
}
