import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import test from 'ava';
import { tempDir } from '../helpers.ts';

const MAIN = join(import.meta.dirname, '..', '..', 'src', 'main.ts');

/** Starts `kurz serve` as its own process with only the given environment; resolves once it prints its URL. */
async function startProcess(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [MAIN, 'serve', ...args], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout);
      if (m?.[1]) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`kurz exited with ${code}: ${stderr}`)));
  });
  return { child, url, exited, output: () => ({ stdout, stderr }) };
}

test('kurz serve listens, and on SIGTERM stops accepting, flushes buffered visits and exits 0', async (t) => {
  const dir = tempDir(t);
  const db = join(dir, 'data', 'kurz.db');
  const kurz = await startProcess({ KURZ_DB: db, KURZ_PORT: '0', KURZ_VISIT_FLUSH_INTERVAL: '60s', KURZ_PUBLIC_URL: 'https://s.example' });
  const created = await fetch(`${kurz.url}/api/v1/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/shutdown' }),
  });
  t.is(created.status, 201);
  const { code } = (await created.json()) as { code: string };
  for (let i = 0; i < 4; i++) t.is((await fetch(`${kurz.url}/${code}`, { redirect: 'manual' })).status, 302);

  kurz.child.kill('SIGTERM');
  const [exitCode] = await kurz.exited;
  t.is(exitCode, 0);
  t.regex(kurz.output().stderr, /stopped; visits flushed and database closed/);
  const file = new Sqlite(db, { readonly: true });
  t.teardown(() => file.close());
  t.is((file.prepare('SELECT visit_count AS n FROM links WHERE code = ?').get(code) as { n: number }).n, 4);
});

test('kurz serve refuses an invalid setting, naming the key, with exit code 2', async (t) => {
  const dir = tempDir(t);
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: { KURZ_DB: join(dir, 'k.db'), KURZ_CODE_LENGTH: '12' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const [exitCode] = await once(child, 'exit');
  t.is(exitCode, 2);
  t.is(stderr, 'kurz: invalid configuration: codeLength (environment variable KURZ_CODE_LENGTH): must be between 4 and 10, got 12\n');
});

test('flags override the environment', async (t) => {
  const dir = tempDir(t);
  const kurz = await startProcess({ KURZ_DB: join(dir, 'env.db'), KURZ_PORT: '0' }, ['--public-url', 'https://flag.example']);
  const res = await fetch(`${kurz.url}/api/v1/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/' }),
  });
  t.regex(((await res.json()) as { shortUrl: string }).shortUrl, /^https:\/\/flag\.example\//);
  kurz.child.kill('SIGINT');
  t.is((await kurz.exited)[0], 0);
});
