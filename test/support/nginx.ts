import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { freePort, tempDir } from '../helpers.ts';

/** Debian's nginx (`make nginx` installs it). */
export const NGINX = '/usr/sbin/nginx';

/** The nginx configuration the README shows, as users deploy it. */
export const NGINX_CONF = join(import.meta.dirname, '..', '..', 'docs', 'nginx-kurz.conf');

/**
 * The README's nginx configuration, adapted for a test and nothing else: the upstream is `kurz` (the
 * test's server, `127.0.0.1:PORT`), nginx listens on `127.0.0.1:port` without TLS (the certificate lines
 * go). Every proxy_* line is used as it is.
 */
export function testServerBlock(kurz: string, port: number): string {
  const { host } = new URL(kurz);
  const conf = readFileSync(NGINX_CONF, 'utf8');
  const adapted = conf
    .replace(/^( *server )127\.0\.0\.1:8080;$/m, `$1${host};`)
    .replace(/^ *listen 443 ssl;$/m, `  listen 127.0.0.1:${port};`)
    .replace(/^ *listen \[::\]:443 ssl;\n/m, '')
    .replace(/^ *ssl_certificate(_key)? .*\n/gm, '');
  const directives = adapted.replace(/#.*$/gm, '');
  if (/:8080;|:443 |\bssl/.test(directives) || !directives.includes(`listen 127.0.0.1:${port};`))
    throw new Error(`${NGINX_CONF} changed shape; adapt testServerBlock`);
  return adapted;
}

/**
 * Starts Debian's nginx as the test's own process (no daemon, no master process, everything in a
 * temporary prefix) on a free port of 127.0.0.1, with the README's server block in front of `kurz`
 * (`http://127.0.0.1:PORT`); stops it when the test ends. Resolves with nginx's base URL once it accepts
 * connections.
 */
export async function startNginx(t: ExecutionContext, kurz: string): Promise<string> {
  const dir = tempDir(t);
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${testServerBlock(kurz, port)}
}
`,
  );
  const child = spawn(NGINX, ['-p', dir, '-e', join(dir, 'error.log'), '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const exited = once(child, 'exit');
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGQUIT');
    await exited;
  });
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${stderr}${readLog(dir)}`);
    if (Date.now() > deadline) throw new Error(`nginx did not accept connections on ${port} within 10 s: ${stderr}${readLog(dir)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return `http://127.0.0.1:${port}`;
}

function readLog(dir: string): string {
  try {
    return readFileSync(join(dir, 'error.log'), 'utf8');
  } catch {
    return '';
  }
}

/** Whether a connection to 127.0.0.1:port is accepted. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
