import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import test from 'ava';
import {
  BASE_ENV,
  BROWSER_UA,
  createKeyIn,
  freshDatabase,
  kurzScript,
  listen,
  startKurz,
  startServe,
  tempDir,
  waitFor,
} from '../helpers.ts';

interface AccessLine {
  time: string;
  level: string;
  msg: string;
  requestId: string;
  client: string;
  method: string;
  path: string;
  status?: number;
  durationMs: number;
  bytes: number;
  userAgent?: string;
  referrer?: string;
  aborted?: boolean;
}

const parse = (lines: string[]): AccessLine[] => lines.map((line) => JSON.parse(line) as AccessLine);

test('with accessLog on, every request gets one JSON line: redirects, their 404s, the API and the pages', async (t) => {
  const k = await startKurz(t, { accessLog: true, trustedProxies: '127.0.0.1' });
  const created = await k.postJson('/api/v1/links', { url: 'https://example.com/logged' });
  const { code } = (await created.json()) as { code: string };
  const redirect = await fetch(`${k.base}/${code}?q=1`, {
    redirect: 'manual',
    headers: { 'user-agent': BROWSER_UA, referer: 'https://news.example/item', 'x-forwarded-for': '203.0.113.9' },
  });
  const unknown = await fetch(`${k.base}/nosuchcode`, { redirect: 'manual' });
  const page = await fetch(`${k.base}/login`);
  const body = await page.text();
  t.deepEqual([created.status, redirect.status, unknown.status, page.status], [201, 302, 404, 200]);
  await waitFor(() => k.accessLog.length === 4);

  const [create, follow, missing, login] = parse(k.accessLog);
  for (const line of [create, follow, missing, login]) {
    t.is(line?.level, 'info');
    t.is(line?.msg, 'request');
    t.regex(line?.requestId ?? '', /^[0-9a-f]{6}-[0-9a-z]+$/);
    t.regex(line?.time ?? '', /^\d{4}-\d\d-\d\dT/);
    t.true((line?.durationMs ?? -1) >= 0);
  }
  t.like(create, { client: '127.0.0.1', method: 'POST', path: '/api/v1/links', status: 201, userAgent: BROWSER_UA });
  t.like(follow, {
    client: '203.0.113.9',
    method: 'GET',
    path: `/${code}?q=1`,
    status: 302,
    userAgent: BROWSER_UA,
    referrer: 'https://news.example/item',
  });
  t.like(missing, { method: 'GET', path: '/nosuchcode', status: 404, userAgent: 'node' });
  t.is(missing?.referrer, undefined, 'no referrer sent, none logged');
  t.like(login, { method: 'GET', path: '/login', status: 200 });
  t.true((login?.bytes ?? 0) > Buffer.byteLength(body), 'bytes count the head and the body sent');
  t.true((follow?.bytes ?? 0) > 0);
  t.is(new Set([create, follow, missing, login].map((line) => line?.requestId)).size, 4, 'ids are unique');
});

test('the access log line of an error has the id its answer and the error line carry', async (t) => {
  const k = await startKurz(t, { accessLog: true });
  await k.kurz.storage.close();
  const res = await k.get('/api/v1/links');
  t.is(res.status, 500);
  await waitFor(() => k.accessLog.length === 1);
  const [line] = parse(k.accessLog);
  t.is(line?.status, 500);
  t.is(line?.requestId, res.headers.get('x-request-id') ?? 'none');
  t.is(k.log.records.find((r) => r.message === 'request failed')?.fields['requestId'], line?.requestId);
});

test('with logFormat text the access log is text lines too', async (t) => {
  const k = await startKurz(t, { accessLog: true, logFormat: 'text' });
  t.is((await fetch(`${k.base}/robots.txt`)).status, 200);
  await waitFor(() => k.accessLog.length === 1);
  t.regex(
    k.accessLog[0]!,
    /^\S+ info request requestId=\S+ client=127\.0\.0\.1 method=GET path=\/robots\.txt status=200 durationMs=[\d.]+ bytes=\d+ userAgent=node$/,
  );
});

test('a client that hangs up before any answer is logged as aborted, with no status', async (t) => {
  const k = await startKurz(t, { accessLog: true });
  // kurz behind a listener of the test's own, which sees the request arrive.
  const arrived: string[] = [];
  const base = await listen(t, (req, res) => {
    arrived.push(req.url ?? '');
    k.kurz.callback(req, res);
  });
  const socket = connect(Number(new URL(base).port), '127.0.0.1');
  await once(socket, 'connect');
  // A body announced as 100 bytes of which 8 come: kurz waits for the rest.
  socket.write(`POST /api/v1/links HTTP/1.1\r\nHost: kurz.test\r\nAuthorization: Bearer ${k.key}\r\n`);
  socket.write('Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"url":');
  await waitFor(() => arrived.length === 1);
  socket.destroy();
  await waitFor(() => k.accessLog.length === 1);
  const [line] = parse(k.accessLog);
  t.like(line, { method: 'POST', path: '/api/v1/links', aborted: true });
  t.is(line?.status, undefined);
  // Logged as a debug line of the same request, not a stack on stderr.
  const ended = () => k.log.records.find((r) => r.message === 'the connection ended before the answer was sent');
  await waitFor(() => ended() !== undefined);
  t.like(ended(), { level: 'debug', fields: { requestId: line?.requestId } });
});

test('with accessLog off (the default) nothing is written for any request', async (t) => {
  const k = await startKurz(t);
  const created = await k.postJson('/api/v1/links', { url: 'https://example.com/quiet' });
  const { code } = (await created.json()) as { code: string };
  t.is((await fetch(`${k.base}/${code}`, { redirect: 'manual' })).status, 302);
  t.is((await fetch(`${k.base}/nosuchcode`)).status, 404);
  t.is((await fetch(`${k.base}/healthz`)).status, 200);
  // Lines are written a turn of the event loop after the answer: give them the chance to appear.
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(k.accessLog, []);
});

test('kurz serve with KURZ_ACCESS_LOG=on writes the access lines with its log, on standard error', async (t) => {
  const db = await freshDatabase(t);
  const key = await createKeyIn(db);
  const kurz = await startServe(t, { ...db.env, KURZ_ACCESS_LOG: 'on', KURZ_LOG_FORMAT: 'json' });
  const created = await fetch(`${kurz.url}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/served' }),
  });
  const { code } = (await created.json()) as { code: string };
  for (let i = 0; i < 3; i++) t.is((await fetch(`${kurz.url}/${code}`, { redirect: 'manual' })).status, 302);
  const requests = () =>
    kurz
      .output()
      .stderr.split('\n')
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => JSON.parse(line) as AccessLine);
  await waitFor(() => requests().length === 4);
  t.is(await kurz.stop(), 0);
  t.deepEqual(
    requests().map((line) => `${line.method} ${line.path} ${line.status}`),
    ['POST /api/v1/links 201', `GET /${code} 302`, `GET /${code} 302`, `GET /${code} 302`],
  );
  t.false(kurz.output().stdout.includes('"msg":"request"'), 'standard output keeps only what kurz says to the person starting it');
});

/** These tests ask for hundreds of unknown codes, which the 404 limit would refuse. */
const MANY_NOT_FOUND = { KURZ_NOT_FOUND_RATE_LIMIT: '1000000' };

/** The access lines in a kurz process's standard error, in the order written; a line still being read is left out. */
const servedLines = (stderr: string): AccessLine[] =>
  stderr
    .slice(0, stderr.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line) as AccessLine);

test('kurz serve writes the access line of every request answered before it stops, however soon after it is stopped', async (t) => {
  const db = await freshDatabase(t);
  const kurz = await startServe(t, { ...db.env, ...MANY_NOT_FOUND, KURZ_ACCESS_LOG: 'on', KURZ_LOG_FORMAT: 'json' });
  const paths = Array.from({ length: 300 }, (_, i) => `/nosuchcode${i}`);
  const statuses = await Promise.all(paths.map(async (path) => (await fetch(`${kurz.url}${path}`)).status));
  t.true(statuses.every((status) => status === 404));
  // Stopped at once: the lines still waiting for their batch are written before kurz exits.
  t.is(await kurz.stop(), 0);
  t.deepEqual(
    servedLines(kurz.output().stderr)
      .map((line) => line.path)
      .sort(),
    [...paths].sort(),
  );
});

test('a log destination that takes nothing for a while holds up no request, and loses no line', async (t) => {
  const db = await freshDatabase(t);
  const kurz = await startServe(t, { ...db.env, ...MANY_NOT_FOUND, KURZ_ACCESS_LOG: 'on', KURZ_LOG_FORMAT: 'json' });
  // Standard error is a pipe the test stops reading: once it and the pipe's buffer are full, a write to it waits.
  kurz.child.stderr!.pause();
  // Lines of 3 KB: under PIPE_BUF, so that each is written whole, whatever else kurz logs meanwhile.
  const query = 'q='.padEnd(3000, 'x');
  const paths = Array.from({ length: 200 }, (_, i) => `/nosuchcode${i}?${query}`);
  for (const path of paths) t.is((await fetch(`${kurz.url}${path}`)).status, 404);
  // 200 lines of 3 KB each went nowhere meanwhile: more than the pipe (64 KB) and the reader's buffer hold.
  t.true(kurz.output().stderr.length < 200 * 3000);
  kurz.child.stderr!.resume();
  await waitFor(() => servedLines(kurz.output().stderr).length === paths.length);
  t.is(await kurz.stop(), 0);
  t.deepEqual(
    servedLines(kurz.output().stderr).map((line) => line.path),
    paths,
  );
});

test('a log destination that stalls for longer than 16 MB of lines: requests are still answered, and the lines kept out are counted in the log', async (t) => {
  const db = await freshDatabase(t);
  const kurz = await startServe(t, { ...db.env, ...MANY_NOT_FOUND, KURZ_ACCESS_LOG: 'on', KURZ_LOG_FORMAT: 'json' });
  kurz.child.stderr!.pause();
  // 2,600 lines of 7 KB: 18 MB, more than kurz keeps waiting for its log's reader.
  const query = 'q='.padEnd(7000, 'x');
  const paths = Array.from({ length: 2600 }, (_, i) => `/nosuchcode${i}?${query}`);
  for (const path of paths) t.is((await fetch(`${kurz.url}${path}`)).status, 404);
  kurz.child.stderr!.resume();
  // The first request kurz logs once its log caught up carries the count of the lines kept out; those sent while
  // it is still behind are kept out too.
  const dropped = () =>
    kurz
      .output()
      .stderr.split('\n')
      .filter((line) => line.includes('access log lines dropped'))
      .map((line) => JSON.parse(line) as { level: string; dropped: number });
  let afters = 0;
  await waitFor(async () => {
    afters += 1;
    t.is((await fetch(`${kurz.url}/after`)).status, 404);
    return dropped().length === 1 && servedLines(kurz.output().stderr).some((line) => line.path === '/after');
  });
  t.is(await kurz.stop(), 0);
  const written = servedLines(kurz.output().stderr).map((line) => line.path);
  const first = written.filter((path) => path !== '/after');
  const [note] = dropped();
  t.is(note?.level, 'warn');
  t.true((note?.dropped ?? 0) > 0);
  t.is(written.length + (note?.dropped ?? 0), paths.length + afters, 'every request is either written or counted');
  t.deepEqual(first, paths.slice(0, first.length), 'the lines written are the first, in order');
  t.true(
    written.slice(first.length).every((path) => path === '/after'),
    'and after them only requests made once the log caught up',
  );
});

test('to a file, two workers and the primary write their batches whole: every line of the file is one whole line, none lost', async (t) => {
  const db = await freshDatabase(t);
  const logFile = join(tempDir(t), 'kurz.log');
  // Standard error appends to a file, as `kurz serve 2>>kurz.log` has it: each process's log thread writes batches of up to 64 KB there.
  const stderr = openSync(logFile, 'a');
  const child = spawn(process.execPath, [kurzScript(), 'serve', '--workers', '2'], {
    env: { ...BASE_ENV, ...db.env, ...MANY_NOT_FOUND, KURZ_PORT: '0', KURZ_ACCESS_LOG: 'on', KURZ_LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', stderr],
  });
  closeSync(stderr);
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const exited = once(child, 'exit');
  let stdout = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d));
  await waitFor(() => /open http:\/\/127\.0\.0\.1:\d+\//.test(stdout));
  const url = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout)![1]!;
  // Lines of 3 KB, 600 of them from 20 clients at once: both workers log at the same time, each many batches longer than PIPE_BUF.
  const query = 'q='.padEnd(3000, 'x');
  const paths = Array.from({ length: 600 }, (_, i) => `/nosuchcode${i}?${query}`);
  for (let i = 0; i < paths.length; i += 20)
    await Promise.all(paths.slice(i, i + 20).map(async (path) => t.is((await fetch(`${url}${path}`)).status, 404)));
  child.kill('SIGTERM');
  t.is((await exited)[0], 0);
  const lines = readFileSync(logFile, 'utf8').split('\n');
  t.is(lines.pop(), '', 'the file ends with a whole line');
  const logged = lines.map((line) => JSON.parse(line) as AccessLine).filter((line) => line.msg === 'request');
  t.deepEqual(logged.map((line) => line.path).sort(), [...paths].sort());
});
