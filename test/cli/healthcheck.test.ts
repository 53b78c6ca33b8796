import { createServer } from 'node:net';
import test from 'ava';
import { backend, listen, runCli, startKurz } from '../helpers.ts';

const portOf = (base: string) => new URL(base).port;

test('healthcheck exits 0 while kurz answers ok, and 1 naming the problem when its database does not', async (t) => {
  const k = await startKurz(t);
  const env = { KURZ_HOST: '127.0.0.1', KURZ_PORT: portOf(k.base) };
  const ok = await runCli(['healthcheck'], env);
  t.is(ok.code, 0, ok.stderr);
  t.is(ok.stdout, `ok: ${k.base}/healthz (${backend})\n`);
  await k.kurz.storage.close();
  const down = await runCli(['healthcheck'], env);
  t.is(down.code, 1);
  t.is(down.stderr, `kurz: healthcheck: ${k.base}/healthz answered 503: database unreachable\n`);
});

test('healthcheck reaches a kurz listening on every interface through loopback', async (t) => {
  const k = await startKurz(t);
  const result = await runCli(['healthcheck'], { KURZ_HOST: '0.0.0.0', KURZ_PORT: portOf(k.base) });
  t.is(result.code, 0, result.stderr);
});

test('healthcheck exits 1 when nothing listens on the port', async (t) => {
  const free = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => free.once('listening', resolve));
  const port = (free.address() as { port: number }).port;
  await new Promise((resolve) => free.close(resolve));
  const result = await runCli(['healthcheck'], { KURZ_PORT: String(port) });
  t.is(result.code, 1);
  t.is(result.stderr, `kurz: healthcheck: no answer from http://127.0.0.1:${port}/healthz: ECONNREFUSED\n`);
});

test('healthcheck exits 1 when something other than kurz answers on the port', async (t) => {
  const other = await listen(t, (_req, res) =>
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>\n<hr>\n<center>nginx</center>\n'),
  );
  const result = await runCli(['healthcheck'], { KURZ_PORT: portOf(other) });
  t.is(result.code, 1);
  t.is(result.stderr, `kurz: healthcheck: ${other}/healthz answered 404: <h1>Not Found</h1> <hr> <center>nginx</center>\n`);
});

test('healthcheck gives up after 5 s on a server that never answers', async (t) => {
  const silent = await listen(t, () => undefined);
  const started = Date.now();
  const result = await runCli(['healthcheck'], { KURZ_PORT: portOf(silent) });
  t.is(result.code, 1);
  t.is(result.stderr, `kurz: healthcheck: no answer from ${silent}/healthz: no answer within 5 s\n`);
  t.true(Date.now() - started < 15_000);
});

test('healthcheck takes no arguments and refuses a bad port with exit 2', async (t) => {
  t.is((await runCli(['healthcheck', 'extra'], {})).code, 2);
  const bad = await runCli(['healthcheck'], { KURZ_PORT: 'eighty' });
  t.is(bad.code, 2);
  t.regex(bad.stderr, /KURZ_PORT/);
});
