// Startup of the single executable: time from exec to the first successful HTTP response, over 10 runs.
// Usage: node bench/startup.ts dist/kurz
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const RUNS = 10;
const binary = resolve(process.argv[2] ?? 'dist/kurz');

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  return typeof address === 'object' && address ? address.port : 0;
}

function healthy(port: number): Promise<boolean> {
  return new Promise((done) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz' }, (res) => {
      res.resume();
      done(res.statusCode === 200);
    });
    req.on('error', () => done(false));
    req.end();
  });
}

/** One start in a fresh folder (new database); `home` decides whether the addon cache is warm. */
async function oneStart(home: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'kurz-startup-'));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(binary, ['serve'], { cwd: dir, env: { PATH: '/nonexistent', HOME: home, KURZ_PORT: String(port) }, stdio: 'ignore' });
  const deadline = started + 10_000;
  while (!(await healthy(port))) {
    if (performance.now() > deadline) throw new Error('kurz did not answer within 10 s');
  }
  const ms = performance.now() - started;
  child.kill('SIGTERM');
  await once(child, 'exit');
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

const home = mkdtempSync(join(tmpdir(), 'kurz-home-'));
const cold = await oneStart(home);
const warm: number[] = [];
for (let i = 0; i < RUNS; i++) warm.push(await oneStart(home));
rmSync(home, { recursive: true, force: true });
warm.sort((a, b) => a - b);
const median = ((warm[4] ?? 0) + (warm[5] ?? 0)) / 2;
console.log(`binary: ${binary} (${(statSync(binary).size / 1024 / 1024).toFixed(1)} MiB)`);
console.log(`first start ever (unpacks the SQLite addon): ${cold.toFixed(0)} ms`);
console.log(
  `${RUNS} starts, exec to first HTTP 200: min ${warm[0]?.toFixed(0)} ms, median ${median.toFixed(0)} ms, max ${warm.at(-1)?.toFixed(0)} ms`,
);
