import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { loadBlocklistFiles, readBlocklistFiles, watchFiles } from '../../src/blocklist/files.ts';
import { tempDir, waitFor } from '../helpers.ts';

test('the blocklist setting takes local paths, comma-separated, and refuses a URL saying why', (t) => {
  t.is(loadConfig({ env: { KURZ_BLOCKLIST: ' /a/hosts.txt , lists/urlhaus.txt ' } }).blocklist, '/a/hosts.txt,lists/urlhaus.txt');
  t.is(loadConfig().blocklist, '');
  t.throws(() => loadConfig({ env: { KURZ_BLOCKLIST: '/a/hosts.txt,https://urlhaus.abuse.ch/downloads/text_online/' } }), {
    instanceOf: ConfigError,
    message:
      'blocklist (environment variable KURZ_BLOCKLIST): "https://urlhaus.abuse.ch/downloads/text_online/" is a URL, but kurz never downloads anything: fetch the list into a local file with a timer (see the README, "Blocklists") and name that file',
  });
  t.throws(() => loadConfig({ file: { blocklist: ['/a/hosts.txt'] } }), { message: /must be a string of comma-separated file paths/ });
});

test('reads every file, names each by its file name, and names a file it cannot read', (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'hosts.txt'), '\uFEFF0.0.0.0 evil.example\n');
  writeFileSync(join(dir, 'urls.txt'), 'http://evil.example/x.exe\n');
  const loaded = readBlocklistFiles([join(dir, 'hosts.txt'), join(dir, 'urls.txt')]);
  t.deepEqual(
    loaded.list.files.map((f) => [f.name, [...f.hosts, ...f.urls]]),
    [
      ['hosts.txt', ['evil.example']],
      ['urls.txt', ['http://evil.example/x.exe']],
    ],
  );
  t.throws(() => readBlocklistFiles([join(dir, 'hosts.txt'), join(dir, 'missing.txt')]), {
    message: `cannot read ${join(dir, 'missing.txt')}: no such file`,
  });
  t.throws(() => readBlocklistFiles([dir]), { message: `cannot read ${dir}: a folder, not a file` });
});

test('a reload reads the files between other work, and says when nothing changed', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'hosts.txt');
  const lines = Array.from({ length: 12_345 }, (_, i) => `0.0.0.0 host${i}.example`);
  writeFileSync(path, lines.join('\n'));
  const first = readBlocklistFiles([path]);
  t.is(await loadBlocklistFiles([path], first.digest), undefined, 'the same bytes: nothing to parse');
  // The event loop keeps turning while a reload parses.
  let turns = 0;
  const ticking = setInterval(() => turns++, 0);
  writeFileSync(path, [...lines, '0.0.0.0 one-more.example'].join('\n'));
  const next = await loadBlocklistFiles([path], first.digest);
  clearInterval(ticking);
  t.not(next?.digest, first.digest);
  t.is(next?.list.files[0]?.hosts.size, 12_346);
  t.true(turns > 0, 'timers ran during the reload');
  await t.throwsAsync(loadBlocklistFiles([join(dir, 'missing.txt')]), { message: /cannot read .*missing\.txt: no such file/ });
});

test('a file renamed into place is seen through its folder’s events', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'hosts.txt');
  writeFileSync(path, 'a.example\n');
  writeFileSync(join(dir, 'other.txt'), 'x');
  let calls = 0;
  // A poll far beyond the test's length: only the events can tell.
  const watcher = watchFiles([path], () => calls++, { pollMs: 3_600_000, settleMs: 10 });
  t.teardown(() => watcher.close());
  writeFileSync(join(dir, 'hosts.txt.tmp'), 'b.example\n');
  renameSync(join(dir, 'hosts.txt.tmp'), path);
  await waitFor(() => calls > 0);
  t.true(calls > 0);
});

test('a change the folder’s events cannot see (the target of a symbolic link) is found by the poll', async (t) => {
  const lists = tempDir(t);
  const elsewhere = join(tempDir(t), 'real');
  mkdirSync(elsewhere);
  writeFileSync(join(elsewhere, 'hosts.txt'), 'a.example\n');
  const path = join(lists, 'hosts.txt');
  symlinkSync(join(elsewhere, 'hosts.txt'), path);
  let calls = 0;
  const watcher = watchFiles([path], () => calls++, { pollMs: 20, settleMs: 10 });
  t.teardown(() => watcher.close());
  await watcher.ready;
  writeFileSync(join(elsewhere, 'hosts.txt'), 'a.example\nb.example\n');
  await waitFor(() => calls > 0);
  t.true(calls > 0);
});
