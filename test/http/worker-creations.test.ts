import test, { type ExecutionContext } from 'ava';
import { freshDatabase, runCli, startServe, waitFor } from '../helpers.ts';
import { freshRequest } from '../support/fresh-connection.ts';

const WORKERS = 2;

/** `kurz serve --workers 2` on a fresh database of the test's backend, its environment, and an API key made in it. */
async function workersServing(t: ExecutionContext) {
  const env = { ...(await freshDatabase(t)).env, KURZ_WORKERS: String(WORKERS) };
  const made = await runCli(['keys', 'create', '--name', 'tests', '--json'], env);
  if (made.code !== 0) throw new Error(made.stderr);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  const kurz = await startServe(t, env);
  return { env, key, kurz };
}

const workerPids = (stderr: string): number[] =>
  (/workers started workers=\d+ pids=([\d,]+)/.exec(stderr)?.[1] ?? '').split(',').map(Number);

/** Every stored link, as `kurz list --json` shows them. */
async function storedLinks(env: Record<string, string>): Promise<Array<{ code: string; url: string }>> {
  const listed = await runCli(['list', '--json', '--limit', '100000'], env);
  if (listed.code !== 0) throw new Error(listed.stderr);
  return JSON.parse(listed.stdout) as Array<{ code: string; url: string }>;
}

/** POST /api/v1/links on a connection of its own (the kernel spreads those over the workers). */
const create = (base: string, key: string, url: string) => freshRequest(`${base}/api/v1/links`, { method: 'POST', body: { url }, key });

test.serial('the same URL sent to every worker at once is stored once: one 201, and every other answer is that link', async (t) => {
  const { env, key, kurz } = await workersServing(t);
  const url = 'https://example.com/same-everywhere';
  const answers = await Promise.all(Array.from({ length: 60 }, () => create(kurz.url, key, url)));
  t.deepEqual(
    answers.map((a) => a.status).sort((a, b) => a - b),
    [...Array<number>(59).fill(200), 201],
    answers.map((a) => `${a.status} ${a.body}`).join('\n'),
  );
  const codes = new Set(answers.map((a) => (JSON.parse(a.body) as { code: string }).code));
  t.is(codes.size, 1);
  t.is(await kurz.stop(), 0);
  t.deepEqual(
    (await storedLinks(env)).map((l) => [l.code, l.url]),
    [[[...codes][0], url]],
  );
});

test.serial(
  'a refusal from the primary reaches the client as the one process gives it: a taken alias is 409, and the other worker stores the next',
  async (t) => {
    const { key, kurz } = await workersServing(t);
    const first = await freshRequest(`${kurz.url}/api/v1/links`, {
      method: 'POST',
      body: { url: 'https://example.com/a', alias: 'taken-one' },
      key,
    });
    t.is(first.status, 201);
    // Over fresh connections the kernel sends these to both workers: every one meets the primary's verdict.
    for (let i = 0; i < 4 * WORKERS; i++) {
      const again = await freshRequest(`${kurz.url}/api/v1/links`, {
        method: 'POST',
        body: { url: 'https://example.com/b', alias: 'taken-one' },
        key,
      });
      t.is(again.status, 409);
      t.is((JSON.parse(again.body) as { detail: string }).detail, 'alias "taken-one" is already taken');
    }
    t.is((await create(kurz.url, key, 'https://example.com/c')).status, 201);
    t.is(await kurz.stop(), 0);
  },
);

test.serial('a worker killed while creations are in flight loses none that was answered 201, and stores none twice', async (t) => {
  const { env, key, kurz } = await workersServing(t);
  const [victim] = workerPids(kurz.output().stderr);
  const urls = Array.from({ length: 400 }, (_, i) => `https://example.com/in-flight/${i}`);
  let answered = 0;
  const answers = urls.map((url) =>
    create(kurz.url, key, url).then(
      (answer) => {
        answered++;
        return answer;
      },
      // The kernel resets the connections the killed worker had.
      () => undefined,
    ),
  );
  await waitFor(() => answered >= 20);
  process.kill(victim!, 'SIGKILL');
  const settled = await Promise.all(answers);
  await waitFor(() => /worker started pid=\d+/.test(kurz.output().stderr));
  t.is(await kurz.stop(), 0);

  const stored = await storedLinks(env);
  const byUrl = new Map(stored.map((link) => [link.url, link.code]));
  t.is(byUrl.size, stored.length, 'a URL stored twice');
  t.is(new Set(stored.map((link) => link.code)).size, stored.length, 'a code given twice');
  let acknowledged = 0;
  for (const [i, answer] of settled.entries()) {
    if (answer?.status !== 201) continue;
    acknowledged++;
    t.is(byUrl.get(urls[i]!), (JSON.parse(answer.body) as { code: string }).code, `the 201 for ${urls[i]} is not stored`);
  }
  t.true(acknowledged >= 20);
  t.log(`${acknowledged} answered 201, ${settled.filter((a) => a === undefined).length} cut off, ${stored.length} stored`);
});
