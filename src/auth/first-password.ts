import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config.ts';

/** The file's name, in the folder of the `db` setting (the SQLite database's; PostgreSQL's data folder). */
const FILE_NAME = 'kurz-admin-password';

/**
 * Where the first start writes the generated admin password when no terminal shows it; undefined for an
 * in-memory database, which has no folder (and whose password ends with the process anyway).
 */
export function firstPasswordPath(config: Pick<Config, 'db'>): string | undefined {
  return config.db === ':memory:' ? undefined : join(dirname(config.db), FILE_NAME);
}

/**
 * Writes the generated admin password to `path`, readable by kurz's user alone whatever the umask: the
 * folder is created 0700, or set so when it is kurz's user's and open to others (but for the working
 * directory and the home folder, which are not kurz's to close); the file is created anew (never
 * through a link planted there) 0600, and set so again before anything is written to it. Throws the
 * system's error.
 */
export function writeFirstPassword(path: string, password: string): void {
  const dir = dirname(path);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const folder = statSync(dir);
  const shared = [process.cwd(), homedir()].map((d) => resolve(d)).includes(resolve(dir));
  if ((folder.mode & 0o077) !== 0 && folder.uid === process.getuid?.() && !shared) chmodSync(dir, 0o700);
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
