import test from 'ava';
import fc from 'fast-check';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createLogger, jsonLine, lineFormat, memoryLogger, type Level, type LogStream } from '../../src/core/log.ts';
import { requestLine } from '../../src/http/access-log.ts';

/** A stream that keeps what is written, a terminal or not. */
function stream(isTTY?: boolean): LogStream & { text: () => string; lines: () => string[] } {
  let text = '';
  return {
    isTTY,
    write: (chunk: string) => (text += chunk),
    text: () => text,
    lines: () => text.split('\n').filter((line) => line !== ''),
  };
}

test('JSON lines: one object a line with time, level, msg and the fields, request id included', (t) => {
  const out = stream();
  const log = createLogger(out, { format: 'json' });
  log.info('request failed', { requestId: 'a1b2c3-1', path: '/x y', status: 500, nested: { a: [1, 2] }, missing: undefined });
  log.error('second', {});
  const lines = out.lines();
  t.is(lines.length, 2);
  t.true(out.text().endsWith('\n'));
  const first = JSON.parse(lines[0]!) as Record<string, unknown>;
  t.deepEqual(Object.keys(first), ['time', 'level', 'msg', 'requestId', 'path', 'status', 'nested']);
  t.regex(String(first['time']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.like(first, { level: 'info', msg: 'request failed', requestId: 'a1b2c3-1', path: '/x y', status: 500, nested: { a: [1, 2] } });
  t.like(JSON.parse(lines[1]!), { level: 'error', msg: 'second' });
});

test('JSON lines: an error is a field with its name, message, code and stack; a field cannot replace time, level or msg', (t) => {
  const out = stream();
  const err = Object.assign(new Error('disk full\nsecond line'), { code: 'ENOSPC' });
  createLogger(out, { format: 'json' }).error('could not write visits; will retry', { err, visits: 3, msg: 'spoofed', level: 'debug' });
  const [line = ''] = out.lines();
  t.false(line.slice(0, -1).includes('\n'), 'one line, the stack escaped inside it');
  const record = JSON.parse(line) as { level: string; msg: string; err: Record<string, string> };
  t.is(record.level, 'error');
  t.is(record.msg, 'could not write visits; will retry');
  t.is(record.err['name'], 'Error');
  t.is(record.err['message'], 'disk full\nsecond line');
  t.is(record.err['code'], 'ENOSPC');
  t.true(record.err['stack']?.includes('log.test.ts'), 'the stack says where it was thrown');
});

test('JSON lines: values JSON cannot hold are written as text (a bigint), not thrown', (t) => {
  const out = stream();
  createLogger(out, { format: 'json' }).info('big', { n: 2n ** 70n });
  t.is((JSON.parse(out.lines()[0]!) as { n: string }).n, '1180591620717411303424');
});

test('text lines: time level message key=value, a value with a space or quote JSON-quoted, an error as its stack', (t) => {
  const out = stream();
  const log = createLogger(out, { format: 'text' });
  log.warn('listening', { address: '127.0.0.1:8080', note: 'two words', quoted: 'a"b', n: 3, list: [1] });
  log.error('failed', { err: new Error('boom') });
  const [first = '', second = ''] = out.lines();
  t.regex(
    first,
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z warn listening address=127\.0\.0\.1:8080 note="two words" quoted="a\\"b" n=3 list=\[1\]$/,
  );
  t.regex(second, /^\S+ error failed err="Error: boom\\n {4}at /);
});

test('format auto is text on a terminal and JSON anywhere else (a pipe, a file, journald)', (t) => {
  const terminal = stream(true);
  createLogger(terminal, { format: 'auto' }).info('hello', { requestId: 'x-1' });
  t.regex(terminal.text(), /^\S+ info hello requestId=x-1\n$/);
  for (const isTTY of [false, undefined]) {
    const pipe = stream(isTTY);
    createLogger(pipe, { format: 'auto' }).info('hello', { requestId: 'x-1' });
    t.like(JSON.parse(pipe.text()), { level: 'info', msg: 'hello', requestId: 'x-1' });
  }
  t.is(lineFormat('json', stream(true))(0, 'info', 'm', undefined), '{"time":"1970-01-01T00:00:00.000Z","level":"info","msg":"m"}\n');
  t.is(lineFormat('text', stream(false))(0, 'info', 'm', undefined), '1970-01-01T00:00:00.000Z info m\n');
});

const LEVEL_CASES: Array<[Level, string[]]> = [
  ['debug', ['debug', 'info', 'warn', 'error']],
  ['info', ['info', 'warn', 'error']],
  ['warn', ['warn', 'error']],
  ['error', ['error']],
];

for (const [level, written] of LEVEL_CASES) {
  test(`level ${level} writes ${written.join(', ')}`, (t) => {
    const out = stream();
    const log = createLogger(out, { format: 'json', level });
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    t.deepEqual(
      out.lines().map((line) => (JSON.parse(line) as { level: string }).level),
      written,
    );
  });
}

test('the default is info, in text (what the bench tools use)', (t) => {
  const out = stream();
  const log = createLogger(out);
  log.debug('hidden');
  log.info('shown');
  t.regex(out.text(), /^\S+ info shown\n$/);
});

test('memoryLogger keeps text lines and the events as given, at every level unless told', (t) => {
  const log = memoryLogger();
  log.debug('d', { requestId: 'r-1' });
  log.error('e', { err: new Error('x') });
  t.is(log.lines.length, 2);
  t.regex(log.lines[0]!, /^\S+ debug d requestId=r-1$/);
  t.deepEqual(log.records[0], { level: 'debug', message: 'd', fields: { requestId: 'r-1' } });
  const quiet = memoryLogger('warn');
  quiet.info('dropped');
  quiet.warn('kept');
  t.deepEqual(
    quiet.records.map((r) => r.message),
    ['kept'],
  );
});

test('logLevel and logFormat default to info and auto, and a wrong value names the setting and what it takes', (t) => {
  const config = loadConfig({});
  t.is(config.logLevel, 'info');
  t.is(config.logFormat, 'auto');
  t.is(loadConfig({ env: { KURZ_LOG_LEVEL: 'debug', KURZ_LOG_FORMAT: 'json' } }).logLevel, 'debug');
  t.is(loadConfig({ flags: { 'log-format': 'text' } }).logFormat, 'text');
  t.throws(() => loadConfig({ env: { KURZ_LOG_LEVEL: 'verbose' } }), {
    instanceOf: ConfigError,
    message: 'logLevel (environment variable KURZ_LOG_LEVEL): must be one of debug, info, warn, error, got "verbose"',
  });
  t.throws(() => loadConfig({ flags: { 'log-format': 'xml' } }), {
    instanceOf: ConfigError,
    message: 'logFormat (flag --log-format): must be one of auto, json, text, got "xml"',
  });
});

test('the access log writes its JSON request line as jsonLine would, whatever the request held', (t) => {
  const line = requestLine(jsonLine);
  // Any UTF-16 unit: quotes, backslashes, control characters, U+2028 and lone surrogates included.
  const text = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)), maxLength: 40 });
  const maybe = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
  const fields = fc.record({
    requestId: text,
    client: text,
    method: maybe(text),
    path: maybe(text),
    status: maybe(fc.integer({ min: 100, max: 599 })),
    durationMs: fc.oneof(fc.double({ min: 0, max: 1e6 }), fc.constant(Number.NaN)),
    bytes: fc.oneof(fc.nat(), fc.constant(Number.NaN)),
    userAgent: maybe(text),
    referrer: maybe(text),
    aborted: maybe(fc.constant(true as const)),
  });
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 4_102_444_800_000 }),
      fields,
      (time, f) => line(time, f) === jsonLine(time, 'info', 'request', f),
    ),
    { numRuns: 1000 },
  );
  t.is(
    line(Date.UTC(2026, 0, 15, 12, 0, 0, 41), {
      requestId: '3f9a1c-2k',
      client: '203.0.113.7',
      method: 'GET',
      path: '/E1aiwo?ref="mail"',
      status: 302,
      durationMs: 0.042,
      bytes: 187,
      userAgent: 'Mozilla/5.0',
      referrer: undefined,
      aborted: undefined,
    }),
    '{"time":"2026-01-15T12:00:00.041Z","level":"info","msg":"request","requestId":"3f9a1c-2k","client":"203.0.113.7","method":"GET","path":"/E1aiwo?ref=\\"mail\\"","status":302,"durationMs":0.042,"bytes":187,"userAgent":"Mozilla/5.0"}\n',
  );
});
