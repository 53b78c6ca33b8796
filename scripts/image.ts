// Builds dist/kurz-image.tar: an OCI image archive (with docker's manifest.json beside it) holding the
// executable, the system libraries it links, and a non-root user; no shell, no package manager, no daemon.
// Usage: node scripts/image.ts OUTPUT amd64=EXECUTABLE [arm64=EXECUTABLE]   (SOURCE_DATE_EPOCH fixes every date)
// An arm64 executable's libraries come from Debian's cross packages (/usr/aarch64-linux-gnu), found by running
// its loader under qemu-user, as `make binary ARCH=arm64` installs them.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { VERSION } from '../src/core/version.ts';

const [output, ...builds] = process.argv.slice(2);
const executables = builds.map((build) => build.split('=') as [string, string]);

/** The user kurz runs as: no name clash with the host's users, and never root. */
const UID = 10001;
const PORT = 8080;
const epoch = Number(process.env['SOURCE_DATE_EPOCH'] ?? 0);
const created = new Date(epoch * 1000).toISOString();

type Entry =
  { path: string; kind: 'dir'; mode: number; uid?: number } | { path: string; kind: 'file'; mode: number; body: Buffer; uid?: number };

/** How to list an architecture's libraries (ldd's format), and the folder they are read from. */
const LOADERS: Record<string, { command: string[]; sysroot: string; env?: Record<string, string> }> = {
  amd64: { command: ['ldd'], sysroot: '' },
  // What ldd does: the loader, told to list the libraries instead of running the program.
  arm64: {
    command: ['qemu-aarch64-static', '-L', '/usr/aarch64-linux-gnu'],
    sysroot: '/usr/aarch64-linux-gnu',
    env: { LD_TRACE_LOADED_OBJECTS: '1' },
  },
};

/** The system libraries the executable loads, where its loader finds them (better-sqlite3's addon needs the same ones). */
function libraries(arch: string, file: string): Entry[] {
  const { command, sysroot, env: traced } = LOADERS[arch] ?? { command: [], sysroot: '' };
  const [program = 'ldd', ...args] = command;
  const env = { ...process.env, ...traced };
  const text = execFileSync(program, [...args, file], { encoding: 'utf8', env });
  const paths = [...text.matchAll(/(?:=> )?(\/\S+) \(0x/g)].map((m) => m[1] ?? '');
  if (!paths.some((p) => p.includes('libc.so'))) throw new Error(`no libc found for ${file}:\n${text}`);
  return paths.map((path) => ({ path, kind: 'file', mode: 0o755, body: readFileSync(realpathSync(sysroot + path)) }));
}

/** The folders above `files`, parents first. */
function foldersOf(files: Entry[]): Entry[] {
  const folders = new Set<string>();
  for (const file of files)
    for (let at = file.path.indexOf('/', 1); at !== -1; at = file.path.indexOf('/', at + 1)) folders.add(file.path.slice(0, at));
  return [...folders].sort().map((path) => ({ path, kind: 'dir', mode: 0o755 }));
}

function rootfs(arch: string, executable: string): Entry[] {
  const files = [
    text('/etc/passwd', `root:x:0:0:root:/root:/sbin/nologin\nkurz:x:${UID}:${UID}:kurz:/data:/sbin/nologin\n`),
    text('/etc/group', `root:x:0:\nkurz:x:${UID}:\n`),
    // glibc's resolver reads it for the order of /etc/hosts and DNS (webhooks, OIDC discovery).
    text('/etc/nsswitch.conf', 'passwd: files\ngroup: files\nhosts: files dns\n'),
    { path: '/usr/bin/kurz', kind: 'file' as const, mode: 0o755, body: readFileSync(executable) },
    ...libraries(arch, executable),
  ];
  return [
    ...foldersOf(files),
    { path: '/tmp', kind: 'dir', mode: 0o1777 },
    // kurz creates the database 0600 in a 0700 folder; a named volume starts as a copy of this one.
    { path: '/data', kind: 'dir', mode: 0o700, uid: UID },
    ...files,
  ];
}

function text(path: string, body: string): Entry {
  return { path, kind: 'file', mode: 0o644, body: Buffer.from(body) };
}

/** A ustar archive of `entries` in the given order, every date `epoch`: the same input gives the same bytes. */
function tar(entries: { name: string; mode: number; uid: number; body?: Buffer }[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const header = Buffer.alloc(512);
    const put = (value: string, at: number, length: number) => header.write(value, at, length, 'utf8');
    const octal = (value: number, at: number, length: number) => put(value.toString(8).padStart(length - 1, '0'), at, length - 1);
    if (Buffer.byteLength(entry.name) > 100) throw new Error(`name too long for ustar: ${entry.name}`);
    put(entry.name, 0, 100);
    octal(entry.mode, 100, 8);
    octal(entry.uid, 108, 8);
    octal(entry.uid, 116, 8);
    octal(entry.body?.length ?? 0, 124, 12);
    octal(epoch, 136, 12);
    put(entry.body ? '0' : '5', 156, 1);
    put('ustar\u000000', 257, 8);
    header.fill(' ', 148, 156);
    let sum = 0;
    for (const byte of header) sum += byte;
    put(sum.toString(8).padStart(6, '0') + '\u0000 ', 148, 8);
    parts.push(header);
    if (entry.body) parts.push(entry.body, Buffer.alloc((512 - (entry.body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** What every architecture's image runs, and how. */
const CONFIG = {
  User: `${UID}:${UID}`,
  Env: [
    'KURZ_HOST=0.0.0.0',
    `KURZ_PORT=${PORT}`,
    'KURZ_DB=/data/kurz.db',
    // The addon is unpacked where a read-only root (with a tmpfs /tmp) still lets it be written.
    'KURZ_CACHE_DIR=/tmp/kurz',
    'HOME=/data',
  ],
  Entrypoint: ['/usr/bin/kurz'],
  Cmd: ['serve'],
  WorkingDir: '/data',
  ExposedPorts: { [`${PORT}/tcp`]: {} },
  Volumes: { '/data': {} },
  StopSignal: 'SIGTERM',
  // Not part of OCI's image config: docker's extension, which docker reads (podman only from docker-format images).
  Healthcheck: { Test: ['CMD', '/usr/bin/kurz', 'healthcheck'], Interval: 30e9, Timeout: 10e9, StartPeriod: 10e9, Retries: 3 },
  Labels: {
    'org.opencontainers.image.title': 'kurz',
    'org.opencontainers.image.version': VERSION,
    'org.opencontainers.image.description': 'A self-hosted URL shortener',
  },
};

const blobs = new Map<string, Buffer>();
function blob(mediaType: string, data: Buffer | string) {
  const body = Buffer.isBuffer(data) ? data : Buffer.from(data);
  const digest = sha256(body);
  blobs.set(digest, body);
  return { mediaType, digest: `sha256:${digest}`, size: body.length };
}

/** One architecture's image: its layer, config and manifest, as blobs. */
function image(arch: string, executable: string) {
  const layerTar = tar(
    rootfs(arch, executable).map((e) => ({
      name: e.path.slice(1) + (e.kind === 'dir' ? '/' : ''),
      mode: e.mode,
      uid: e.uid ?? 0,
      body: e.kind === 'file' ? e.body : undefined,
    })),
  );
  const config = {
    created,
    architecture: arch,
    os: 'linux',
    config: CONFIG,
    rootfs: { type: 'layers', diff_ids: [`sha256:${sha256(layerTar)}`] },
    history: [{ created, created_by: 'scripts/image.ts: kurz, its libraries, /etc/passwd' }],
  };
  const configBlob = blob('application/vnd.oci.image.config.v1+json', JSON.stringify(config));
  const layerBlob = blob('application/vnd.oci.image.layer.v1.tar+gzip', gzipSync(layerTar, { level: 9 }));
  const manifest = blob(
    'application/vnd.oci.image.manifest.v1+json',
    JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: configBlob, layers: [layerBlob] }),
  );
  return { arch, manifest, configBlob, layerBlob, unpacked: layerTar.length };
}

if (!output || executables.length === 0 || executables.some(([arch, file]) => !(arch in LOADERS) || !file))
  throw new Error('usage: node scripts/image.ts OUTPUT amd64=EXECUTABLE [arm64=EXECUTABLE]');
const images = executables.map(([arch, file]) => image(arch, file));
const names = [`kurz:${VERSION}`, 'kurz:latest'];
const index = {
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.index.v1+json',
  manifests: images.map(({ arch, manifest }) => ({
    ...manifest,
    platform: { architecture: arch, os: 'linux' },
    annotations: { 'io.containerd.image.name': `docker.io/library/kurz:${VERSION}`, 'org.opencontainers.image.ref.name': VERSION },
  })),
};
// What docker load reads when it does not read the OCI index (docker before 25, and `docker save`'s own
// format), which knows no platforms: the first image takes the plain names, the others their architecture's.
const dockerManifest = images.map(({ arch, configBlob, layerBlob }, i) => ({
  Config: `blobs/sha256/${configBlob.digest.slice(7)}`,
  RepoTags: i === 0 ? names : names.map((name) => `${name}-${arch}`),
  Layers: [`blobs/sha256/${layerBlob.digest.slice(7)}`],
}));

const archive = tar([
  { name: 'blobs/', mode: 0o755, uid: 0 },
  { name: 'blobs/sha256/', mode: 0o755, uid: 0 },
  ...[...blobs.keys()].sort().map((digest) => ({ name: `blobs/sha256/${digest}`, mode: 0o644, uid: 0, body: blobs.get(digest) })),
  { name: 'oci-layout', mode: 0o644, uid: 0, body: Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' })) },
  { name: 'index.json', mode: 0o644, uid: 0, body: Buffer.from(JSON.stringify(index)) },
  { name: 'manifest.json', mode: 0o644, uid: 0, body: Buffer.from(JSON.stringify(dockerManifest)) },
]);
mkdirSync('dist', { recursive: true });
writeFileSync(output, archive);
const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
const each = images.map(({ arch, manifest, unpacked }) => `linux/${arch} ${mib(unpacked)} unpacked, ${manifest.digest}`);
console.log(`built ${output} (${mib(statSync(output).size)}): ${names.join(', ')}; ${each.join('; ')}`);
