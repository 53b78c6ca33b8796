import { closeSync, fchmodSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config.ts';
import { ensureDir } from '../core/ensure-dir.ts';
import { ADMIN_PASSWORD_FILE } from '../core/file-modes.ts';

/**
 * Where the first start writes the generated admin password when no terminal shows it; undefined for an
 * in-memory database, which has no folder (and whose password ends with the process anyway).
 */
export function firstPasswordPath(config: Pick<Config, 'db'>): string | undefined {
  return config.db === ':memory:' ? undefined : join(dirname(config.db), ADMIN_PASSWORD_FILE);
}

/**
 * Writes the generated admin password to `path` (in the folder of the `db` setting: the SQLite database's,
 * or PostgreSQL's data folder), readable by kurz's user alone whatever the umask: a missing folder is made
 * 0700 (ensureDir; an existing one keeps its mode, as kurz's other files do, and `kurz check` warns of it),
 * the file is created anew (never through a link planted there) 0600, and set so again before anything is
 * written to it. Throws the system's error.
 */
export function writeFirstPassword(path: string, password: string): void {
  ensureDir(dirname(path));
  rmSync(path, { force: true });
  const fd = openSync(path, 'wx', 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, `${password}\n`);
  } finally {
    closeSync(fd);
  }
}

/** Removes the file once a password of the admin's own choosing is set; absent is fine. */
export function removeFirstPassword(path: string | undefined): void {
  if (path !== undefined) rmSync(path, { force: true });
}
