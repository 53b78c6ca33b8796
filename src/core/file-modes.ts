import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The first start's generated admin password, written beside the database when no terminal shows it. */
export const ADMIN_PASSWORD_FILE = 'kurz-admin-password';

/** A file or folder of kurz's that its group or others may open, and the command that closes it. */
export interface ExposedFile {
  path: string;
  /** The permission bits, e.g. `0644`. */
  mode: string;
  /** Who besides the owner may open it: `its group`, `others` or `its group and others`. */
  openTo: string;
  fix: string;
}

/**
 * The files kurz keeps beside the SQLite database `database` (the file, its -wal and -shm, the first
 * password's file) and their folder, when their group or others have any permission on them: they hold the
 * session secret, the code key and every hash. kurz creates them 0600 in 0700 but never changes the mode of
 * what exists (its owner may have chosen it), so this is what it warns about. Missing files are skipped.
 */
export function exposedFiles(database: string): ExposedFile[] {
  const folder = dirname(database);
  const files = [database, `${database}-wal`, `${database}-shm`, join(folder, ADMIN_PASSWORD_FILE)];
  return [...files.map((path) => exposed(path, '600')), exposed(folder, '700')].filter((e) => e !== undefined);
}

/** One line for a person: the file, who may open it, its mode and the command to run. */
export function describeExposed(file: ExposedFile): string {
  return `${file.path} is open to ${file.openTo} (mode ${file.mode}): run ${file.fix}`;
}

function exposed(path: string, wanted: string): ExposedFile | undefined {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
  if ((mode & 0o077) === 0) return undefined;
  const who = [mode & 0o070 ? 'its group' : '', mode & 0o007 ? 'others' : ''].filter((w) => w !== '');
  return { path, mode: `0${mode.toString(8).padStart(3, '0')}`, openTo: who.join(' and '), fix: `chmod ${wanted} ${shellWord(path)}` };
}

/** `path` as one shell word: quoted when it holds anything but letters, digits and `_ . / -`. */
function shellWord(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}
