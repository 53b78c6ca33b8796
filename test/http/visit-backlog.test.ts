import test from 'ava';
import {
  ADMIN_PASSWORD,
  BROWSER_ACCEPT,
  BROWSER_UA,
  createKeyIn,
  freshDatabase,
  loginAs,
  runCli,
  startServe,
  waitFor,
  type ServeProcess,
} from '../helpers.ts';

const SLACKBOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';

const backgroundPid = (stderr: string): number => Number(/background process started pid=(\d+)/.exec(stderr)?.[1]);

async function follow(kurz: ServeProcess, code: string, userAgent: string): Promise<number> {
  const res = await fetch(`${kurz.url}/${code}`, {
    redirect: 'manual',
    headers: { 'user-agent': userAgent, referer: 'https://news.example/' },
  });
  await res.arrayBuffer();
  return res.status;
}

async function metric(kurz: ServeProcess, name: string): Promise<number> {
  const text = await (await fetch(`${kurz.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

test('past visitBacklog, a stalled writer costs only the detail: every count is written, and the stats, the page and the metric say how many lost it', async (t) => {
  const db = await freshDatabase(t);
  for (const code of ['one', 'two']) {
    const created = await runCli(['create', `https://example.com/${code}`, '--alias', code], db.env);
    if (created.code !== 0) throw new Error(created.stderr);
  }
  const key = await createKeyIn(db);
  const password = await runCli(['admin', 'password'], db.env, { input: `${ADMIN_PASSWORD}\n` });
  t.is(password.code, 0, password.stderr);
  const kurz = await startServe(t, { ...db.env, KURZ_VISIT_BACKLOG: '4', KURZ_VISIT_FLUSH_INTERVAL: '20ms' });
  const writer = backgroundPid(kurz.output().stderr);
  t.true(writer > 0);
  // A writer that takes nothing more: the backlog fills, and past 4 waiting visits only counts are kept.
  process.kill(writer, 'SIGSTOP');
  try {
    for (let i = 0; i < 20; i++) t.is(await follow(kurz, 'one', BROWSER_UA), 302);
    for (let i = 0; i < 5; i++) t.is(await follow(kurz, 'two', SLACKBOT), 302);
    for (let i = 0; i < 5; i++) t.is(await follow(kurz, 'two', BROWSER_UA), 302);
    await waitFor(async () => (await metric(kurz, 'kurz_visit_buffer_events')) === 0);
  } finally {
    process.kill(writer, 'SIGCONT');
  }
  const dropped = await metric(kurz, 'kurz_visit_detail_dropped_total');
  // At most the 4 the backlog holds keep their detail, and those sent before the first count (a flush at most).
  t.true(dropped >= 20, `detail dropped for ${dropped} of 30`);
  t.true(dropped <= 30);

  const instance = await fetch(`${kurz.url}/api/v1/stats`, { headers: { authorization: `Bearer ${key}` } });
  t.is(instance.status, 200);
  await waitFor(async () => {
    const body = (await (await fetch(`${kurz.url}/api/v1/stats`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      period: { humans: number; bots: number; detailDropped: number };
    };
    return body.period.humans === 25 && body.period.detailDropped === dropped;
  });
  const page = await fetch(`${kurz.url}/api/v1/links/one/stats`, { headers: { authorization: `Bearer ${key}` } });
  const one = (await page.json()) as { visits: { humans: number; bots: number; detailDropped: number }; referrers: unknown[] };
  t.is(one.visits.humans, 20);
  t.true(one.visits.detailDropped >= 14, 'most of them lost their detail');

  const cookie = await loginAs(kurz.url, 'admin', ADMIN_PASSWORD);
  for (const [path, shown] of [
    ['/links/one/stats', one.visits.detailDropped],
    ['/', dropped],
  ] as const) {
    const html = await (await fetch(`${kurz.url}${path}`, { headers: { cookie, accept: BROWSER_ACCEPT } })).text();
    t.regex(html, new RegExp(`<p class="muted" id="detail-dropped">${shown}( of the)? visits in this period were only counted`), path);
  }

  // Stopped now: whatever still waits is written (its count at least) before the server exits.
  t.is(await kurz.stop(), 0);

  const counts = await db.sql<{ code: string; count: number }>(
    'SELECT code, count FROM link_visits JOIN links ON links.id = link_id ORDER BY code',
  );
  t.deepEqual(counts, [
    { code: 'one', count: 20 },
    { code: 'two', count: 5 },
  ]);
  t.deepEqual(await db.sql('SELECT sum(humans) AS humans, sum(bots) AS bots FROM visit_hours'), [{ humans: 25, bots: 5 }]);
  t.deepEqual(await db.sql('SELECT sum(humans) AS humans, sum(bots) AS bots FROM visit_totals'), [{ humans: 25, bots: 5 }]);
  const [raw] = await db.sql<{ n: number }>('SELECT count(*) AS n FROM visits');
  t.is(raw!.n, 30 - dropped, 'a raw visit for each visit that kept its detail, none for the others');
  // A breakdown counts the visits with detail: the referrer of each person's visit that kept it.
  const [referred] = await db.sql<{ n: number }>(
    "SELECT coalesce(sum(count), 0) AS n FROM visit_dimension_days WHERE dimension = 0 AND value = 'news.example'",
  );
  const [people] = await db.sql<{ n: number }>('SELECT count(*) AS n FROM visits WHERE bot IS NULL');
  t.is(referred!.n, people!.n);

  const stats = await runCli(['stats', 'one', '--json'], db.env);
  t.is(stats.code, 0, stats.stderr);
  const json = JSON.parse(stats.stdout) as { stats: { visits: { humans: number; detailDropped: number } } };
  t.is(json.stats.visits.humans, 20);
  t.is(json.stats.visits.detailDropped, one.visits.detailDropped);
  const text = await runCli(['stats', 'one'], db.env);
  t.regex(text.stdout, new RegExp(`Detail dropped +${one.visits.detailDropped} visits only counted`));
  const check = await runCli(['check'], db.env);
  t.is(check.code, 0, check.stdout + check.stderr);
});

test('counts a writer was handed and did not write go to the next writer: none lost, none twice', async (t) => {
  const db = await freshDatabase(t);
  const created = await runCli(['create', 'https://example.com/one', '--alias', 'one'], db.env);
  t.is(created.code, 0, created.stderr);
  const kurz = await startServe(t, { ...db.env, KURZ_VISIT_BACKLOG: '2', KURZ_VISIT_FLUSH_INTERVAL: '20ms' });
  const first = backgroundPid(kurz.output().stderr);
  process.kill(first, 'SIGSTOP');
  for (let i = 0; i < 40; i++) t.is(await follow(kurz, 'one', i % 4 === 0 ? SLACKBOT : BROWSER_UA), 302);
  await waitFor(async () => (await metric(kurz, 'kurz_visit_buffer_events')) === 0);
  t.true((await metric(kurz, 'kurz_visit_detail_dropped_total')) >= 30);
  // It dies holding what it was handed: the counts among them go to the next writer with the rest.
  process.kill(first, 'SIGKILL');
  await waitFor(() => [...kurz.output().stderr.matchAll(/background process started pid=(\d+)/g)].length === 2, 60_000);
  await waitFor(async () => {
    const [row] = await db.sql<{ humans: number | null; bots: number | null }>(
      'SELECT sum(humans) AS humans, sum(bots) AS bots FROM visit_hours',
    );
    return row?.humans === 30 && row.bots === 10;
  }, 60_000);
  t.is(await kurz.stop(), 0);
  t.deepEqual(await db.sql('SELECT sum(humans) AS humans, sum(bots) AS bots FROM visit_hours'), [{ humans: 30, bots: 10 }]);
  t.deepEqual(await db.sql('SELECT count FROM link_visits'), [{ count: 30 }]);
  const [raw] = await db.sql<{ n: number }>('SELECT count(*) AS n FROM visits');
  const [counted] = await db.sql<{ n: number }>('SELECT coalesce(sum(undetailed_humans + undetailed_bots), 0) AS n FROM visit_hours');
  t.is(raw!.n + counted!.n, 40, 'each visit once: with its detail, or counted');
});

test('a link whose visits all kept their detail says nothing of dropped detail', async (t) => {
  const db = await freshDatabase(t);
  const created = await runCli(['create', 'https://example.com/kept', '--alias', 'kept'], db.env);
  t.is(created.code, 0, created.stderr);
  const kurz = await startServe(t, { ...db.env, KURZ_VISIT_FLUSH_INTERVAL: '20ms' });
  for (let i = 0; i < 3; i++) t.is(await follow(kurz, 'kept', BROWSER_UA), 302);
  t.is(await kurz.stop(), 0);
  const stats = await runCli(['stats', 'kept', '--json'], db.env);
  t.is(stats.code, 0, stats.stderr);
  t.like(JSON.parse(stats.stdout), { stats: { visits: { humans: 3, detailDropped: 0 } } });
});

test('while serving, a stalled writer is handed a window of visits at most: the counts after it add up in the server, one per link and hour, and all are written at the stop', async (t) => {
  const db = await freshDatabase(t);
  const codes = Array.from({ length: 20 }, (_, i) => `l${i}`);
  for (const code of codes) {
    const created = await runCli(['create', `https://example.com/${code}`, '--alias', code], db.env);
    t.is(created.code, 0, created.stderr);
  }
  // The window is visitBacklog's 4; a flush is each round's 20 visits, one per link.
  const kurz = await startServe(t, { ...db.env, KURZ_VISIT_BACKLOG: '4', KURZ_VISIT_FLUSH_SIZE: '20', KURZ_VISIT_FLUSH_INTERVAL: '60s' });
  const writer = backgroundPid(kurz.output().stderr);
  process.kill(writer, 'SIGSTOP');
  // Counts are per hour: the five rounds take a second or two, in one hour.
  await waitFor(() => new Date().getUTCMinutes() < 59, 70_000);
  let waiting: number;
  try {
    for (let round = 0; round < 5; round++) {
      for (const code of codes) t.is(await follow(kurz, code, BROWSER_UA), 302);
      await waitFor(async () => (await metric(kurz, 'kurz_visit_buffer_events')) === 0);
    }
    kurz.child.kill('SIGTERM');
    const said = /writing the last visits before stopping visits=(\d+)/;
    await waitFor(() => said.test(kurz.output().stderr));
    waiting = Number(said.exec(kurz.output().stderr)![1]);
  } finally {
    process.kill(writer, 'SIGCONT');
  }
  // The first flush's 20 counts: 4 handed over, 16 kept; the next four flushes add to the 20 links' counts
  // here. Handed over as they came, the writer would hold 20 of them and the server 20 more.
  t.is(waiting, 24);
  const [code] = await kurz.exited;
  t.is(code, 0);
  t.deepEqual(await db.sql('SELECT count(*) AS links, min(count) AS least, max(count) AS most FROM link_visits'), [
    { links: 20, least: 5, most: 5 },
  ]);
  t.deepEqual(await db.sql('SELECT sum(humans) AS humans, sum(undetailed_humans) AS counted FROM visit_hours'), [
    { humans: 100, counted: 100 },
  ]);
  t.deepEqual(await db.sql('SELECT count(*) AS n FROM visits'), [{ n: 0 }]);
});
