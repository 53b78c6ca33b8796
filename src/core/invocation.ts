import { existsSync } from 'node:fs';
import { basename, isAbsolute, relative } from 'node:path';
import sea from 'node:sea';

/** How this process was started, as `invocation` reads it. */
export interface Started {
  /** The executable's name as typed (`process.argv0`): `kurz` when found on the PATH, `dist/kurz`, `./kurz`… */
  readonly argv0: string;
  /** The script Node runs (`process.argv[1]`), for a bundle or the sources; unused for the executable. */
  readonly script: string;
  readonly cwd: string;
  /** The single executable (`node:sea`), rather than Node running a script. */
  readonly executable: boolean;
  /** Inside a container (Docker's `/.dockerenv` or Podman's `/run/.containerenv`). */
  readonly container: boolean;
}

/**
 * The command a person types on this machine to run kurz's CLI, as they started the server: `kurz` (on the
 * PATH), `dist/kurz` (the executable, as typed), `node build/kurz.cjs` (the bundle, from where it started),
 * or `docker exec CONTAINER kurz` for the executable in a container. The pages name it where they point to the CLI.
 */
export function invocation(started: Started): string {
  if (started.executable) {
    // The executable in a container is kurz's image (a bundle there is someone's own set-up, named as anywhere).
    if (started.container) return 'docker exec CONTAINER kurz';
    return started.argv0 === '' ? 'kurz' : started.argv0;
  }
  const script = started.script;
  // Node running something else that started kurz's server (a test runner, a script of one's own): no command to name.
  if (!ENTRY_POINTS.has(basename(script))) return 'kurz';
  const shown = isAbsolute(script) ? relative(started.cwd, script) : script;
  // A script outside the folder kurz started in is named in full: a relative path up and out helps no one.
  return `${basename(started.argv0) === 'node' ? 'node' : started.argv0 || 'node'} ${shown.startsWith('..') ? script : shown}`;
}

/** kurz's scripts for Node: the bundle (`make build`) and the sources' entry point. */
const ENTRY_POINTS: ReadonlySet<string> = new Set(['kurz.cjs', 'main.ts']);

let started: string | undefined;

/** This process's `invocation`, read once. */
export function cliCommand(): string {
  started ??= invocation({
    argv0: process.argv0,
    script: process.argv[1] ?? '',
    cwd: process.cwd(),
    executable: sea.isSea(),
    container: existsSync('/.dockerenv') || existsSync('/run/.containerenv'),
  });
  return started;
}
