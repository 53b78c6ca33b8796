import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { exportedLink, freshDatabase, runCli, startServe, tempDir, waitFor } from '../helpers.ts';
import { createThrough, freshRequest as once } from '../support/fresh-connection.ts';

/** The blocklist from the command line: the commands that store a target check it; `serve` follows the file. */

/** A CLI runner on a fresh database whose `blocklist` is one file holding `text`. */
async function kurzWith(t: ExecutionContext, text: string) {
  const dir = tempDir(t);
  const file = join(dir, 'hosts.txt');
  writeFileSync(file, text);
  const env = { ...(await freshDatabase(t)).env, KURZ_PUBLIC_URL: 'https://s.example', KURZ_BLOCKLIST: file };
  return Object.assign((...args: string[]) => runCli(args, env), { env, dir, file });
}

test('create, edit and import refuse a listed target with exit code 1 and store nothing', async (t) => {
  const kurz = await kurzWith(t, '0.0.0.0 evil.example\n');
  const refused = await kurz('create', 'https://evil.example/x');
  t.is(refused.code, 1);
  t.is(refused.stderr, `kurz: url's host "evil.example" is on a blocklist (in hosts.txt)\n`);
  t.is(refused.stdout, '');

  const made = await kurz('create', 'https://good.example/x', '--alias', 'good');
  t.is(made.code, 0, made.stderr);
  const edit = await kurz('edit', 'good', '--url', 'https://evil.example/y');
  t.is(edit.code, 1);
  t.regex(edit.stderr, /is on a blocklist \(in hosts\.txt\)/);

  const record = (code: string, url: string) => JSON.stringify(exportedLink(code, url));
  writeFileSync(
    join(kurz.dir, 'in.ndjson'),
    `${record('fine', 'https://good.example/fine')}\n${record('bad', 'https://evil.example/bad')}\n`,
  );
  const imported = await kurz('import', join(kurz.dir, 'in.ndjson'));
  t.is(imported.code, 1);
  t.regex(imported.stderr, /line 2: url's host "evil\.example" is on a blocklist \(in hosts\.txt\)/);

  const list = await kurz('list', '--json');
  t.deepEqual(
    (JSON.parse(list.stdout) as Array<{ code: string; url: string }>).map((l) => [l.code, l.url]),
    [['good', 'https://good.example/x']],
    'the edit changed nothing and the import imported nothing',
  );
  // Moving in links an old instance had blocked: with the list turned off (a server blocks them at its next pass).
  const moved = await kurz('import', join(kurz.dir, 'in.ndjson'), '--blocklist', '');
  t.is(moved.code, 0, moved.stderr);
  t.is(moved.stdout, 'imported 2 links, skipped 0 already present\n');
});

test('a blocklist file that cannot be read, or a URL for one, is a configuration error (exit 2) naming it', async (t) => {
  const kurz = await kurzWith(t, 'evil.example\n');
  const missing = join(kurz.dir, 'gone.txt');
  const unreadable = await runCli(['create', 'https://good.example/', '--blocklist', missing], kurz.env);
  t.is(unreadable.code, 2);
  t.is(unreadable.stderr, `kurz: invalid configuration: blocklist: cannot read ${missing}: no such file\n`);
  const url = await runCli(['create', 'https://good.example/', '--blocklist', 'https://urlhaus.abuse.ch/downloads/text_online/'], kurz.env);
  t.is(url.code, 2);
  t.regex(
    url.stderr,
    /^kurz: invalid configuration: blocklist \(flag --blocklist\): "https:\/\/urlhaus\.abuse\.ch\/downloads\/text_online\/" is a URL, but kurz never downloads anything: fetch the list into a local file with a timer/,
  );
  const both = await runCli(['create', 'https://good.example/', '--blocklist', `${kurz.file},,${kurz.file}`], kurz.env);
  t.is(both.code, 2);
  t.regex(both.stderr, /must not hold an empty path/);
});

test('kurz serve --workers 2 follows a list renamed into place: the link answers 410 from every worker, which all refuse the target', async (t) => {
  const kurz = await kurzWith(t, '# URLhaus: nothing yet\n');
  const env = { ...kurz.env, KURZ_WORKERS: '2' };
  const made = await runCli(['keys', 'create', '--name', 'tests', '--json'], env);
  t.is(made.code, 0, made.stderr);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  const server = await startServe(t, env);
  const target = 'http://soon-bad.example/payload.exe';
  const code = await createThrough(server.url, key, target);
  // New connections spread over both workers; from its second lookup on, each holds the link in its cache.
  for (let i = 0; i < 8; i++) t.is((await once(`${server.url}/${code}`)).status, 302);

  // As a download script replaces it: written beside it, then renamed over it.
  writeFileSync(`${kurz.file}.part`, `# URLhaus\n${target}\n`);
  renameSync(`${kurz.file}.part`, kurz.file);
  await waitFor(async () => (await once(`${server.url}/${code}`)).status === 410, 20_000);

  // The primary blocked the link only once both workers had the new list: from the first 410 on, none stores the target.
  for (let i = 0; i < 8; i++) {
    const again = await once(`${server.url}/api/v1/links`, { method: 'POST', body: { url: target }, key });
    t.is(again.status, 400);
    t.regex(again.body, /url is on a blocklist \(in hosts\.txt\)/);
  }
  // The other worker drops its cached copy at its next read of the change log (every 250 ms).
  let streak = 0;
  await waitFor(async () => {
    const answer = await once(`${server.url}/${code}`);
    streak =
      answer.status === 410 && /was disabled because its target is on a blocklist of malicious sites/.test(answer.body) ? streak + 1 : 0;
    return streak >= 8;
  }, 5000);
  const log = server.output().stderr;
  t.is(log.match(/link blocked: its target is on a blocklist/g)?.length, 1, 'one process screens');
  t.regex(
    log,
    new RegExp(
      `link blocked: its target is on a blocklist code=${code} host=soon-bad\\.example rule=${target.replace(/[./]/g, '\\$&')} list=hosts\\.txt`,
    ),
  );
  t.true(
    (log.match(/blocklist loaded file=\S+hosts\.txt hosts=0 domains=0 urls=1/g)?.length ?? 0) >= 3,
    'the primary and both workers loaded it',
  );

  const listed = await runCli(['list', '--blocked'], env);
  t.is(listed.code, 0, listed.stderr);
  t.regex(listed.stdout, new RegExp(`${code}\\s.*\\(blocked\\) http://soon-bad\\.example/payload\\.exe`));
  t.is(await server.stop(), 0);
});
