// Builds dist/kurz_VERSION_ARCH.deb with dpkg-deb: the executable, the systemd unit of docs/kurz.service, the
// settings file docs/kurz.env as a conffile, the man page and the completions (both from the command table), and
// the maintainer scripts that make the kurz user and enable the service.
// Usage: node scripts/deb.ts ARCH EXECUTABLE   (ARCH: amd64 or arm64)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { completionScript } from '../src/cli/completion.ts';
import { manPage } from '../src/cli/manual.ts';
import { listedCommands } from '../src/cli/run.ts';
import { VERSION } from '../src/core/version.ts';

const [arch, executable] = process.argv.slice(2);
if ((arch !== 'amd64' && arch !== 'arm64') || !executable) throw new Error('usage: node scripts/deb.ts amd64|arm64 EXECUTABLE');

// An executable of the other architecture would install and then fail at its first start: refuse it here. ELF's
// e_machine (bytes 18-19, little-endian): 0x3e x86-64, 0xb7 AArch64.
const MACHINES = { amd64: 0x3e, arm64: 0xb7 } as const;
const header = readFileSync(executable).subarray(0, 20);
const machine = header.readUInt16LE(18);
if (header.subarray(0, 4).toString('latin1') !== '\x7fELF' || machine !== MACHINES[arch]) {
  const found = Object.entries(MACHINES).find(([, m]) => m === machine)?.[0] ?? `ELF machine 0x${machine.toString(16)}`;
  console.error(
    `scripts/deb.ts: ${executable} is not an ${arch} executable (it is ${header.subarray(0, 4).toString('latin1') === '\x7fELF' ? found : 'not ELF'})`,
  );
  process.exit(2);
}

const root = join('build', `deb-${arch}`);
rmSync(root, { recursive: true, force: true });

/** Writes `content` at `path` inside the package, with `mode`. */
function put(path: string, content: string | Buffer, mode = 0o644): void {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
  writeFileSync(file, content);
  chmodSync(file, mode);
}

/** The last commit's date in the changelog's format (RFC 5322), or now outside a git checkout. */
function releaseDate(): string {
  try {
    return execFileSync('git', ['log', '-1', '--format=%aD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return new Date().toUTCString().replace('GMT', '+0000');
  }
}

/** gzip without a name or time in the header, so that the same input builds the same package. */
const gzip = (text: string) => gzipSync(text, { level: 9 });

mkdirSync(join(root, 'usr', 'bin'), { recursive: true });
copyFileSync(executable, join(root, 'usr', 'bin', 'kurz'));
chmodSync(join(root, 'usr', 'bin', 'kurz'), 0o755);

// The README's unit, as it is, but for the packaged executable's path and without its by-hand install notes.
const unit = readFileSync('docs/kurz.service', 'utf8');
if (!unit.includes('\nExecStart=/usr/local/bin/kurz serve\n'))
  throw new Error('docs/kurz.service: ExecStart=/usr/local/bin/kurz serve not found');
put(
  'usr/lib/systemd/system/kurz.service',
  unit.slice(unit.indexOf('[Unit]')).replace('\nExecStart=/usr/local/bin/kurz serve\n', '\nExecStart=/usr/bin/kurz serve\n'),
);
// Root's alone: it may hold secrets; systemd reads it as root before it starts kurz as the kurz user.
put('etc/kurz/kurz.env', readFileSync('docs/kurz.env'), 0o600);

const commands = await listedCommands();
put('usr/share/man/man8/kurz.8.gz', gzip(manPage(commands, VERSION)));
put('usr/share/bash-completion/completions/kurz', completionScript('bash', commands));
put('usr/share/zsh/vendor-completions/_kurz', completionScript('zsh', commands));
put('usr/share/fish/vendor_completions.d/kurz.fish', completionScript('fish', commands));

put(
  'usr/share/doc/kurz/copyright',
  `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: kurz
Comment: The executable embeds Node.js (MIT and others: https://github.com/nodejs/node/blob/main/LICENSE),
 SQLite (public domain) and kurz's npm dependencies, each under its own license (MIT, ISC, BSD or Apache-2.0).

Files: *
Copyright: kurz's authors
License: MIT
 Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
 documentation files (the "Software"), to deal in the Software without restriction, including without limitation
 the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
 permit persons to whom the Software is furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in all copies or substantial portions of
 the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO
 THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT,
 TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 SOFTWARE.
`,
);
put(
  'usr/share/doc/kurz/changelog.gz',
  gzip(`kurz (${VERSION}) stable; urgency=medium

  * kurz ${VERSION}: see the README for what it brings and how to upgrade.

 -- kurz maintainers <maintainers@kurz.invalid>  ${releaseDate()}
`),
);

// What lintian says of a Node single-executable application, and of a settings file that may hold secrets.
put(
  'usr/share/lintian/overrides/kurz',
  `# Node.js with kurz's code appended (a single-executable application): built by Node's project, not here.
kurz: embedded-library zlib [usr/bin/kurz]
kurz: hardening-no-pie [usr/bin/kurz]
# Stripping would cut the appended application out of the executable.
kurz: unstripped-binary-or-object [usr/bin/kurz]
# It may hold KURZ_DATABASE_URL, KURZ_METRICS_KEY or KURZ_OIDC_CLIENT_SECRET; systemd reads it as root.
kurz: non-standard-file-perm 0600 != 0644 [etc/kurz/kurz.env]
`,
);

/** The maintainer scripts, as debhelper would write them for a unit, plus the user, the folders and purge. */
const SCRIPTS: Record<string, string> = {
  postinst: `#!/bin/sh
set -e
if [ "$1" = configure ]; then
  # The state and cache folders, its alone; systemd makes them at start too (StateDirectory=, CacheDirectory=),
  # but kurz's own commands need them before.
  made=
  for dir in /var/lib/kurz /var/cache/kurz; do
    if [ ! -d "$dir" ]; then install -d -m 0700 "$dir" && made="$made $dir"; fi
  done
  # A system user and group of its own, with no login; its home is the state folder.
  if ! getent passwd kurz >/dev/null; then
    adduser --system --group --home /var/lib/kurz --no-create-home --gecos 'kurz URL shortener' kurz
  fi
  [ -z "$made" ] || chown kurz:kurz $made
fi
if [ "$1" = configure ] || [ "$1" = abort-upgrade ] || [ "$1" = abort-deconfigure ] || [ "$1" = abort-remove ]; then
  deb-systemd-helper unmask kurz.service >/dev/null || true
  # A new install enables it; an upgrade keeps what the admin chose.
  if deb-systemd-helper --quiet was-enabled kurz.service; then
    deb-systemd-helper enable kurz.service >/dev/null || true
  else
    deb-systemd-helper update-state kurz.service >/dev/null || true
  fi
  if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
    if [ -n "$2" ]; then action=restart; else action=start; fi
    deb-systemd-invoke $action kurz.service >/dev/null || true
  fi
fi
`,
  prerm: `#!/bin/sh
set -e
# SIGTERM: kurz answers what is in flight and writes its buffered visits before it exits.
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
  deb-systemd-invoke stop kurz.service >/dev/null || true
fi
`,
  postrm: `#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
  systemctl --system daemon-reload >/dev/null || true
fi
if [ "$1" = remove ] && command -v deb-systemd-helper >/dev/null; then
  deb-systemd-helper mask kurz.service >/dev/null || true
fi
if [ "$1" = purge ]; then
  if command -v deb-systemd-helper >/dev/null; then
    deb-systemd-helper purge kurz.service >/dev/null || true
    deb-systemd-helper unmask kurz.service >/dev/null || true
  fi
  # Purging is asking for the data to go: the database, its backups and the unpacked addon, then the user.
  rm -rf /var/lib/kurz /var/cache/kurz
  if getent passwd kurz >/dev/null && command -v deluser >/dev/null; then
    deluser --system --quiet kurz || true
  fi
fi
`,
};
for (const [name, script] of Object.entries(SCRIPTS)) put(`DEBIAN/${name}`, script, 0o755);
put('DEBIAN/conffiles', '/etc/kurz/kurz.env\n');
// What `debsums` checks an installed package against: every file but the conffiles, which dpkg tracks itself.
const files = readdirSync(root, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile())
  .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
  .filter((path) => !path.startsWith('DEBIAN/') && !path.startsWith('etc/'))
  .sort();
put(
  'DEBIAN/md5sums',
  files
    .map(
      (path) =>
        `${createHash('md5')
          .update(readFileSync(join(root, path)))
          .digest('hex')}  ${path}\n`,
    )
    .join(''),
);

// What dpkg-shlibdeps would find (there is no source package to run it on): Node's official builds need glibc 2.28
// and libstdc++ of GCC 5, but better-sqlite3's prebuilt addon, which the executable loads, needs glibc 2.34 and
// libstdc++ of GCC 11 (GLIBC_2.34, GLIBCXX_3.4.29 in `objdump -T`), on amd64 and arm64 alike; adduser makes the
// kurz user.
const DEPENDS = 'adduser, libc6 (>= 2.34), libgcc-s1, libstdc++6 (>= 11)';

const installedKiB = Number.parseInt(execFileSync('du', ['-sk', '--exclude=DEBIAN', root], { encoding: 'utf8' }), 10);
put(
  'DEBIAN/control',
  `Package: kurz
Version: ${VERSION}
Architecture: ${arch}
Maintainer: kurz maintainers <maintainers@kurz.invalid>
Installed-Size: ${installedKiB}
Depends: ${DEPENDS}
Section: web
Priority: optional
Description: self-hosted URL shortener in one executable
 kurz shortens links through a web form, a JSON API and its command line,
 counts visits without storing addresses, and keeps everything in one SQLite
 file (or PostgreSQL). This package runs it as the kurz.service systemd unit,
 as the kurz system user, with its settings in /etc/kurz/kurz.env and its
 database in /var/lib/kurz.
`,
);

mkdirSync('dist', { recursive: true });
const output = join('dist', `kurz_${VERSION}_${arch}.deb`);
execFileSync('dpkg-deb', ['--root-owner-group', '-Zxz', '--build', root, output], { stdio: ['ignore', 'ignore', 'inherit'] });
console.log(`built ${output} (${(statSync(output).size / 1024 / 1024).toFixed(1)} MiB)`);
