import test, { type ExecutionContext } from 'ava';
import { freshDatabase, runCli, startServe, waitFor } from '../helpers.ts';
import { createThrough, freshRequest as once } from '../support/fresh-connection.ts';

const WORKERS = 2;

/** `kurz serve --workers 2` on a fresh database of the test's backend, its environment, and an API key made in it. */
async function workersServing(t: ExecutionContext, extra: Record<string, string> = {}) {
  const env = { ...(await freshDatabase(t)).env, KURZ_WORKERS: String(WORKERS), ...extra };
  const made = await runCli(['keys', 'create', '--name', 'tests', '--json'], env);
  if (made.code !== 0) throw new Error(made.stderr);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  const kurz = await startServe(t, env);
  return { env, key, kurz };
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const workerPids = (stderr: string): number[] =>
  (/workers started workers=\d+ pids=([\d,]+)/.exec(stderr)?.[1] ?? '').split(',').map(Number);

test.serial('creations spread over the workers get distinct codes that every worker resolves', async (t) => {
  const { key, kurz } = await workersServing(t);
  t.is(workerPids(kurz.output().stderr).length, WORKERS);
  const urls = Array.from({ length: 200 }, (_, i) => `https://example.com/page/${i}`);
  const codes = await Promise.all(urls.map((url) => createThrough(kurz.url, key, url)));
  t.is(new Set(codes).size, urls.length);
  for (const [i, code] of codes.entries()) {
    for (let n = 0; n < WORKERS; n++) t.is((await once(`${kurz.url}/${code}`)).location, urls[i]!);
  }
});

test.serial('an edit through one worker, or through the CLI, reaches every worker within a second', async (t) => {
  const { env, key, kurz } = await workersServing(t);
  const code = await createThrough(kurz.url, key, 'https://example.com/before');
  /** Every worker holds the code in its cache (each has room, so from its first lookup there). */
  const warm = async () => {
    for (let i = 0; i < 4 * WORKERS; i++) await once(`${kurz.url}/${code}`);
  };
  /** Asks over new connections until every answer is `url`; the time from `since` to the last stale answer. */
  const staleFor = async (since: number, url: string): Promise<number> => {
    let lastStale = since;
    for (let fresh = 0; fresh < 10 * WORKERS;) {
      const answer = (await once(`${kurz.url}/${code}`)).location;
      if (answer === url) fresh++;
      else [fresh, lastStale] = [0, performance.now()];
      if (performance.now() - since > 5000) break;
    }
    return lastStale - since;
  };

  await warm();
  const edited = await once(`${kurz.url}/api/v1/links/${code}`, { method: 'PATCH', body: { url: 'https://example.com/api-edit' }, key });
  t.is(edited.status, 200);
  const byApi = await staleFor(performance.now(), 'https://example.com/api-edit');
  t.log(`API edit: the last stale answer ${byApi.toFixed(0)} ms after the edit`);
  t.true(byApi < 1000);

  await warm();
  const cli = await runCli(['edit', code, '--url', 'https://example.com/cli-edit'], env);
  t.is(cli.code, 0, cli.stderr);
  const byCli = await staleFor(performance.now(), 'https://example.com/cli-edit');
  t.log(`CLI edit: the last stale answer ${byCli.toFixed(0)} ms after the edit`);
  t.true(byCli < 1000);
});

test.serial('a verdict on a link waiting for review, through the API or the CLI, reaches every worker within a second', async (t) => {
  const { env, key, kurz } = await workersServing(t, { KURZ_REVIEW_NEW_LINKS: 'members' });
  t.is((await runCli(['users', 'add', 'alice'], env)).code, 0);
  const held = async (alias: string) => {
    const made = await runCli(['create', `https://example.com/${alias}`, '--alias', alias, '--as', 'alice'], env);
    t.is(made.code, 0, made.stderr);
    // Every worker holds it in its cache (from its first lookup there), answering "being reviewed".
    for (let i = 0; i < 4 * WORKERS; i++) t.is((await once(`${kurz.url}/${alias}`)).status, 403);
  };
  /** Asks over new connections until every answer has `status`; the time from `since` to the last other answer. */
  const staleFor = async (alias: string, since: number, status: number): Promise<number> => {
    let lastStale = since;
    for (let fresh = 0; fresh < 10 * WORKERS;) {
      if ((await once(`${kurz.url}/${alias}`)).status === status) fresh++;
      else [fresh, lastStale] = [0, performance.now()];
      if (performance.now() - since > 5000) break;
    }
    return lastStale - since;
  };

  await held('by-api');
  t.is((await once(`${kurz.url}/api/v1/links/by-api/approve`, { method: 'POST', key })).status, 200);
  const byApi = await staleFor('by-api', performance.now(), 302);
  t.log(`API approval: the last stale answer ${byApi.toFixed(0)} ms after it`);
  t.true(byApi < 1000);

  await held('by-cli');
  const cli = await runCli(['review', 'reject', 'by-cli'], env);
  t.is(cli.code, 0, cli.stderr);
  const byCli = await staleFor('by-cli', performance.now(), 410);
  t.log(`CLI rejection: the last stale answer ${byCli.toFixed(0)} ms after it`);
  t.true(byCli < 1000);
});

test.serial('a link’s new redirect rules, set through one worker, reach every worker within a second', async (t) => {
  const { key, kurz } = await workersServing(t);
  const code = await createThrough(kurz.url, key, 'https://example.com/ruled');
  // Every worker holds the plain link in its cache (from its first lookup there).
  for (let i = 0; i < 4 * WORKERS; i++) t.is((await once(`${kurz.url}/${code}`)).status, 302);
  const rules = [{ conditions: [{ type: 'ip-address', matchValue: '127.0.0.0/8' }], refuse: 451 }];
  const since = performance.now();
  t.is((await once(`${kurz.url}/api/v1/links/${code}/rules`, { method: 'PUT', body: { rules }, key })).status, 200);
  let lastStale = since;
  for (let fresh = 0; fresh < 10 * WORKERS;) {
    if ((await once(`${kurz.url}/${code}`)).status === 451) fresh++;
    else [fresh, lastStale] = [0, performance.now()];
    if (performance.now() - since > 5000) break;
  }
  t.log(`rules set: the last stale answer ${(lastStale - since).toFixed(0)} ms after the PUT`);
  t.true(lastStale - since < 1000);
});

test.serial(
  'a split link: one visitor gets one variant from every worker, and a paused variant, set through one, reaches every worker within a second',
  async (t) => {
    const { key, kurz } = await workersServing(t);
    const A = 'https://example.com/a';
    const B = 'https://example.com/b';
    const split = (pausedA: boolean) => [
      { url: A, weight: 1, paused: pausedA },
      { url: B, weight: 1, paused: !pausedA },
    ];
    const made = await once(`${kurz.url}/api/v1/links`, {
      method: 'POST',
      body: { url: 'https://example.com/split', split: split(false) },
      key,
    });
    t.is(made.status, 201, made.body);
    const { code } = JSON.parse(made.body) as { code: string };
    // The workers read the salt their primary made: the same visitor (address and user agent) draws alike in each.
    const first = (await once(`${kurz.url}/${code}`)).location;
    t.true([A, B].includes(first));
    for (let i = 0; i < 8 * WORKERS; i++) t.is((await once(`${kurz.url}/${code}`)).location, first);
    // Pause the variant this visitor gets: every worker sends them to the other.
    const other = first === A ? B : A;
    const since = performance.now();
    const edit = await once(`${kurz.url}/api/v1/links/${code}`, { method: 'PATCH', body: { split: split(first === A) }, key });
    t.is(edit.status, 200, edit.body);
    let lastStale = since;
    for (let fresh = 0; fresh < 10 * WORKERS;) {
      if ((await once(`${kurz.url}/${code}`)).location === other) fresh++;
      else [fresh, lastStale] = [0, performance.now()];
      if (performance.now() - since > 5000) break;
    }
    t.log(`split paused: the last stale answer ${(lastStale - since).toFixed(0)} ms after the PATCH`);
    t.true(lastStale - since < 1000);
  },
);

test.serial('visits through every worker are counted once each, and SIGTERM stops them all with the visits written', async (t) => {
  const { env, key, kurz } = await workersServing(t, { KURZ_VISIT_FLUSH_INTERVAL: '60s' });
  const code = await createThrough(kurz.url, key, 'https://example.com/counted');
  const visits = 50;
  for (let i = 0; i < visits; i++) t.is((await once(`${kurz.url}/${code}`)).status, 302);
  t.is(await kurz.stop(), 0);
  t.regex(kurz.output().stderr, /stopped; visits flushed and database closed/);
  for (const pid of workerPids(kurz.output().stderr)) t.false(isAlive(pid), `worker ${pid} is gone`);

  const stats = await runCli(['stats', code, '--json'], env);
  t.is(stats.code, 0, stats.stderr);
  t.like(JSON.parse(stats.stdout), {
    visitCount: visits,
    stats: { visits: { total: visits, humans: visits, bots: 0, uniqueVisitors: 1 } },
  });
});

test.serial('a worker killed with SIGKILL is restarted and logged; the others keep serving meanwhile', async (t) => {
  const { key, kurz } = await workersServing(t);
  const code = await createThrough(kurz.url, key, 'https://example.com/alive');
  const [victim] = workerPids(kurz.output().stderr);
  process.kill(victim!, 'SIGKILL');
  // Once it is gone (its socket with it: connections it had queued are reset), every request is answered,
  // while it is down and after its replacement starts.
  await waitFor(() => !isAlive(victim!));
  await waitFor(async () => {
    t.is((await once(`${kurz.url}/${code}`)).location, 'https://example.com/alive');
    return /worker started pid=\d+/.test(kurz.output().stderr);
  });
  t.regex(kurz.output().stderr, new RegExp(`a worker died; starting another pid=${victim} code=null signal=SIGKILL`));
  for (let i = 0; i < 4 * WORKERS; i++) t.is((await once(`${kurz.url}/${code}`)).location, 'https://example.com/alive');
  t.is(await kurz.stop(), 0);
});
