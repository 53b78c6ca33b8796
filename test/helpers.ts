import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { createApp, type Kurz } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { memoryLogger } from '../src/log.ts';

/** A clock that only moves when told to. */
export function fakeClock(start = Date.UTC(2026, 0, 15, 12, 0, 0)) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

/** A fresh directory under the OS temp dir, removed when the test ends. */
export function tempDir(t: ExecutionContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'kurz-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface TestKurz {
  /** Base URL of the listening server, http://127.0.0.1:PORT */
  base: string;
  kurz: Kurz;
  config: Config;
  clock: ReturnType<typeof fakeClock>;
  log: ReturnType<typeof memoryLogger>;
  /** Number of rows in the links table. */
  linkCount(): number;
  /** POST a JSON body (a string is sent as is) to `path`. */
  postJson(path: string, body: unknown): Promise<Response>;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
}

/**
 * Starts the real app on a fresh SQLite file, listening on 127.0.0.1 on a free port, with a fake clock.
 * `settings` are config-file values overriding the test defaults. Everything is torn down after the test.
 */
export async function startKurz(t: ExecutionContext, settings: Record<string, unknown> = {}): Promise<TestKurz> {
  const dir = tempDir(t);
  const config = loadConfig({ file: { db: join(dir, 'kurz.db'), port: 0, publicUrl: 'https://kurz.test', ...settings } });
  const clock = fakeClock();
  const log = memoryLogger();
  let counter = 0;
  const random = (size: number) => Buffer.alloc(size, ++counter);
  const kurz = createApp(config, { now: clock.now, random, log });
  const server = createServer(kurz.callback);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('server has no address');
  t.teardown(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
    kurz.close();
  });
  const base = `http://127.0.0.1:${address.port}`;
  const count = kurz.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM links');
  return {
    base,
    kurz,
    config,
    clock,
    log,
    linkCount: () => count.get()?.n ?? -1,
    postJson: (path, body) =>
      fetch(base + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
        redirect: 'manual',
      }),
    get: (path, headers = {}) => fetch(base + path, { headers, redirect: 'manual' }),
  };
}

/** Accept header a browser sends for a page. */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Polls `condition` on the event loop until it holds; throws after `ms` so a test fails instead of hanging. */
export async function waitFor(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
