import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates `dir` and its missing parents, 0700 whatever the umask (they hold the database, its backups, the
 * first password: nobody else's business); folders that exist keep their mode. Unlike mkdirSync's recursive mode, which spins forever on some
 * special file systems (/proc), every step either succeeds or throws the system's error.
 */
export function ensureDir(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; !exists(d); d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
