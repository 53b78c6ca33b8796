import Sqlite from 'better-sqlite3';
import test, { type ExecutionContext } from 'ava';
import { backend, freshDatabase, runCli, startServe, waitFor } from '../helpers.ts';
import { createThrough } from '../support/fresh-connection.ts';
import { keepAliveLoad } from '../support/keep-alive-load.ts';

/** Links the redirects spread over. */
const LINKS = 50;
/** Answers the load gets before the SIGTERM: a few seconds of it on this machine. */
const ANSWERS_BEFORE_STOP = 10_000;
/** Generous: the stop writes the visits of the whole run. */
const STOP_BOUND_MS = 30_000;

/**
 * What a stop under load guarantees (README, "Stopping kurz"): a request sent on an open connection is
 * answered, properly; every answer from the SIGTERM on says `Connection: close`; new connections are
 * refused. So every request the client sent before the SIGTERM is answered, and the only failures are
 * requests on new connections, which the server never read (a creation among them stored nothing).
 * Every acknowledged link is stored, every 302 answered is a counted visit, and the process exits 0 in
 * bounded time.
 */
async function stopUnderLoad(t: ExecutionContext, workers: number): Promise<void> {
  const database = await freshDatabase(t);
  const env = { ...database.env, KURZ_WORKERS: String(workers) };
  const made = await runCli(['keys', 'create', '--name', 'load', '--json'], env);
  t.is(made.code, 0, made.stderr);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  const kurz = await startServe(t, env);
  const codes: string[] = [];
  for (let i = 0; i < LINKS; i++) codes.push(await createThrough(kurz.url, key, `https://example.com/seed/${i}`));

  const load = keepAliveLoad(kurz.url, { creators: 8, redirectors: 16, codes, key });
  t.teardown(() => load.stop());
  const loadedAt = performance.now();
  await waitFor(() => load.answered() >= ANSWERS_BEFORE_STOP, 120_000);
  const stoppedAt = performance.now();
  kurz.child.kill('SIGTERM');
  const [exitCode] = await kurz.exited;
  const stopMs = performance.now() - stoppedAt;
  await load.done;

  const answers = load.outcomes.filter((o) => o.status !== 0);
  const failures = load.outcomes.filter((o) => o.status === 0);
  const before = load.outcomes.filter((o) => o.sentAt < stoppedAt);
  const afterAnswered = answers.filter((o) => o.sentAt >= stoppedAt);
  const creations = answers.filter((o) => o.kind === 'create');
  const redirects = answers.filter((o) => o.kind === 'redirect');
  t.log(
    `workers ${workers}: ${before.length} requests in ${((stoppedAt - loadedAt) / 1000).toFixed(1)} s before the SIGTERM (${creations.length} creations, ${redirects.length} redirects answered in all); ` +
      `stopped in ${stopMs.toFixed(0)} ms, exit code ${exitCode}; ${afterAnswered.length} requests sent after the SIGTERM answered ` +
      `(${afterAnswered.filter((o) => o.connection === 'close').length} with Connection: close), ` +
      `${failures.length} failed: ${summary(failures.map((o) => o.error))}`,
  );

  t.is(exitCode, 0, kurz.output().stderr);
  t.true(stopMs < STOP_BOUND_MS, `stopped in ${stopMs.toFixed(0)} ms`);
  t.regex(kurz.output().stderr, /stopped; visits flushed and database closed/);
  t.deepEqual(
    summary(answers.map((o) => `${o.kind} ${o.status}`)),
    summary([...creations.map(() => 'create 201'), ...redirects.map(() => 'redirect 302')]),
    'every answer is a 201 or a 302',
  );
  t.deepEqual(
    before.filter((o) => o.status === 0),
    [],
    'every request sent before the SIGTERM is answered',
  );
  t.deepEqual(
    failures.filter((o) => o.reused),
    [],
    'no connection in use is cut: requests fail only on new connections, refused (or reset in a closing accept queue)',
  );

  // What the database holds, read after the exit.
  const stored = new Map((await database.sql<{ code: string; url: string }>('SELECT code, url FROM links')).map((r) => [r.code, r.url]));
  t.is(stored.size, LINKS + creations.length, 'every 201 is a link, and no link was stored without one');
  t.deepEqual(
    creations.filter((o) => stored.get(o.code) !== o.url),
    [],
    'every acknowledged link holds its exact target',
  );
  const counted = await database.sql<{ code: string; count: number }>(
    'SELECT links.code AS code, link_visits.count AS count FROM link_visits JOIN links ON links.id = link_visits.link_id',
  );
  t.deepEqual(
    sorted(new Map(counted.map((r) => [r.code, r.count]))),
    sorted(countBy(redirects.map((o) => o.code))),
    'every 302 answered is one counted visit, per link',
  );
  t.log(`visits counted: ${counted.reduce((sum, r) => sum + r.count, 0)} for ${redirects.length} 302 answers`);
  if (backend === 'sqlite') {
    const db = new Sqlite(database.file, { readonly: true });
    t.teardown(() => db.close());
    t.is(db.pragma('integrity_check', { simple: true }), 'ok');
  }
}

function countBy(keys: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

function sorted(counts: Map<string, number>): Array<[string, number]> {
  return [...counts].sort(([a], [b]) => a.localeCompare(b));
}

/** `ECONNREFUSED ×12, …`: a list's distinct values and how often each occurs, sorted. */
function summary(values: string[]): string {
  return [...countBy(values)]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([value, n]) => `${value} ×${n}`)
    .join(', ');
}

test.serial('SIGTERM under load: in-flight requests finish, acknowledged links and answered visits are stored, exit 0', (t) =>
  stopUnderLoad(t, 1),
);

test.serial('the same with --workers 2', (t) => stopUnderLoad(t, 2));
