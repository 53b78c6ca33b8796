import { spawn } from 'node:child_process';
import { once } from 'node:events';
import test from 'ava';
import { BASE_ENV, createKeyIn, freshDatabase, kurzScript, runCli, sqliteOnly, startKurz, startServe, waitFor } from '../helpers.ts';

type Line = Record<string, unknown> & { time: string; level: string; msg: string };

/** Every line of `text`, each of which must be one JSON object. */
function jsonLines(text: string): Line[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
}

test('kurz serve logs JSON lines when its log is not a terminal (the default, logFormat auto), its key masked', async (t) => {
  const db = await freshDatabase(t);
  const kurz = await startServe(t, { ...db.env, KURZ_LOG_FORMAT: 'auto', KURZ_METRICS_KEY: 'metrics-key-not-to-be-logged' });
  await waitFor(() => kurz.output().stderr.includes('"msg":"listening"'));
  t.is(await kurz.stop(), 0);
  const { stderr } = kurz.output();
  const lines = jsonLines(stderr);
  const messages = lines.map((line) => line.msg);
  for (const msg of ['starting kurz', 'listening', 'shutting down', 'stopped; visits flushed and database closed'])
    t.true(messages.includes(msg), msg);
  for (const line of lines) t.regex(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.like(
    lines.find((line) => line.msg === 'listening'),
    { level: 'info', workers: 1 },
  );
  t.regex(String(lines.find((line) => line.msg === 'starting kurz')?.['config']), /metricsKey=\*\*\* /);
  t.false(stderr.includes('metrics-key-not-to-be-logged'));
});

test('logLevel warn leaves the info lines out; debug adds the visit flushes', async (t) => {
  const db = await freshDatabase(t);
  const quiet = await startServe(t, { ...db.env, KURZ_LOG_LEVEL: 'warn' });
  t.is(await quiet.stop(), 0);
  t.is(quiet.output().stderr, '', 'nothing at warn or above happened');

  const key = await createKeyIn(db);
  const chatty = await startServe(t, { ...db.env, KURZ_LOG_LEVEL: 'debug', KURZ_LOG_FORMAT: 'json', KURZ_VISIT_FLUSH_INTERVAL: '50ms' });
  const created = await fetch(`${chatty.url}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/debug' }),
  });
  const { code } = (await created.json()) as { code: string };
  t.is((await fetch(`${chatty.url}/${code}`, { redirect: 'manual' })).status, 302);
  await waitFor(() => chatty.output().stderr.includes('"msg":"visits handed on"'));
  t.is(await chatty.stop(), 0);
  const flush = jsonLines(chatty.output().stderr).find((line) => line.msg === 'visits handed on');
  t.like(flush, { level: 'debug', visits: 1 });
  t.is(typeof flush?.['ms'], 'number');
});

sqliteOnly(
  'on a terminal kurz serve logs text lines: time level message key=value',
  'one run is enough: the format does not depend on the backend',
  async (t) => {
    const db = await freshDatabase(t);
    // script(1) runs kurz on a pseudo-terminal: its standard error is a TTY, as in an interactive shell.
    const child = spawn('script', ['-qfec', `${process.execPath} ${kurzScript()} serve`, '/dev/null'], {
      env: { ...BASE_ENV, KURZ_PORT: '0', KURZ_LOG_FORMAT: 'auto', ...db.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    const exited = once(child, 'exit');
    t.teardown(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    await waitFor(() => output.includes('kurz is running: open http://'));
    child.kill('SIGTERM');
    await exited;
    t.regex(output, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info listening address=127\.0\.0\.1:\d+ /m);
    t.false(output.includes('{"time"'), 'no JSON on a terminal');
  },
);

test('every line about a request carries its request id, which the error answer carries as X-Request-Id', async (t) => {
  const k = await startKurz(t);
  const created = await k.postJson('/api/v1/links', { url: 'https://example.com/ids' });
  const { code } = (await created.json()) as { code: string };
  // A client error from Koa: its answer carries an id too, and nothing is logged.
  const refused = await k.postJson('/api/v1/links', { url: 'not a url' });
  t.is(refused.status, 400);
  t.regex(refused.headers.get('x-request-id') ?? '', /^[0-9a-f]{6}-[0-9a-z]+$/);
  t.false(k.log.records.some((r) => r.message === 'request failed'));

  await k.kurz.storage.close();
  const api = await k.get(`/api/v1/links/${code}`);
  const redirect = await fetch(`${k.base}/unknown1`, { redirect: 'manual' });
  t.is(api.status, 500);
  t.is(redirect.status, 500);
  const failures = k.log.records.filter((r) => r.message === 'request failed');
  t.deepEqual(
    failures.map((r) => [r.level, r.fields['requestId'], r.fields['path']]),
    [
      ['error', api.headers.get('x-request-id'), `/api/v1/links/${code}`],
      ['error', redirect.headers.get('x-request-id'), '/unknown1'],
    ],
  );
  t.not(api.headers.get('x-request-id'), redirect.headers.get('x-request-id'));
  t.true(failures[0]!.fields['err'] instanceof Error, 'the error is logged with its stack');
  t.false((await api.text()).includes('at '), 'and never sent');
});

// Issue 23: a database URL's password, in either place, reaches no log line and no error.
test('an unreachable PostgreSQL is named in the error and the log without the password of its URL', async (t) => {
  const url = 'postgres://kurz:user-password-s3cret@127.0.0.1:1/kurz?password=query-password-s3cret&connect_timeout=2';
  for (const args of [['list'], ['serve', '--port', '0']]) {
    const result = await runCli(args, { KURZ_DATABASE_URL: url, KURZ_LOG_FORMAT: 'json' });
    t.not(result.code, 0);
    t.regex(
      result.stderr,
      /cannot connect to PostgreSQL at postgres:\/\/kurz:\*\*\*@127\.0\.0\.1:1\/kurz\?password=\*\*\*&connect_timeout=2: /,
    );
    t.false(result.stderr.includes('s3cret'), result.stderr);
    t.false(result.stdout.includes('s3cret'), result.stdout);
  }
});
