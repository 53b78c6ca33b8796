import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import Sqlite from 'better-sqlite3';
import type { Durability } from '../../src/config.ts';
import { backend, BASE_ENV, createKeyIn, freshDatabase, startServe, waitFor, type ServeProcess } from '../helpers.ts';
import { seededRandom } from '../support/seeded-random.ts';

// kill -9 at random moments, at least KILLS times a run: of kurz serve while a separate process creates and
// edits links, and of its background writer while that process follows redirects. The moments come from a
// seeded random source; CRASH_SEED=N repeats a run's. The server kills are SQLite's (on PostgreSQL,
// test/http/multi-node.test.ts kills nodes); the writer kills run on both backends. One scenario at a time,
// each with the machine to itself.
const crashTest = backend === 'sqlite' ? test.serial : test.skip;

const KILLS = 20;
/** Background writers killed per scenario: each kill costs about two seconds (a restart and a written visit). */
const WRITER_KILLS = 10;
const LOAD = join(import.meta.dirname, '..', 'support', 'crash-load.ts');

/** Each server process or writer may take this long to start or write on a busy machine. */
const PATIENCE_MS = 60_000;

type Line =
  | { t: 'created'; code: string; url: string }
  | { t: 'edit' | 'edited'; code: string; url: string }
  | {
      t: 'summary';
      sent: number;
      acknowledged: number;
      failed: number;
      refused: number;
      skipped: number;
      redirects: Record<string, number>;
    };

interface Load {
  lines: Line[];
  /** Creations and edits acknowledged so far. */
  acknowledged(): number;
  /** Points the load at the server at `url`. */
  useServer(url: string): void;
  /** Stops sending, waits for the answers in flight, and resolves with the totals. */
  stop(): Promise<Extract<Line, { t: 'summary' }>>;
}

/** Starts test/support/crash-load.ts; it sends nothing until it is told a server. */
function startLoad(t: ExecutionContext, env: Record<string, string>): Load {
  const child = spawn(process.execPath, [LOAD], { env: { ...BASE_ENV, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const lines: Line[] = [];
  let acknowledged = 0;
  createInterface({ input: child.stdout }).on('line', (text) => {
    const line = JSON.parse(text) as Line;
    lines.push(line);
    if (line.t === 'created' || line.t === 'edited') acknowledged++;
  });
  return {
    lines,
    acknowledged: () => acknowledged,
    useServer: (url) => child.stdin.write(`url ${url}\n`),
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.write('stop\n');
      await exited;
      const summary = lines.at(-1);
      if (summary?.t !== 'summary') throw new Error('the load ended without its summary');
      return summary;
    },
  };
}

/** The background writers a server started, in order. */
const writersOf = (kurz: ServeProcess): number[] =>
  [...kurz.output().stderr.matchAll(/background process started pid=(\d+)/g)].map((m) => Number(m[1]));

/** The process runs (a zombie that nobody reaps does not). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function integrityOf(file: string): string {
  const db = new Sqlite(file, { readonly: true });
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

function seedOf(t: ExecutionContext): number {
  const seed = Number(process.env['CRASH_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  t.log(`seed ${seed} (CRASH_SEED=${seed} repeats this run's choices)`);
  return seed;
}

/** What each acknowledged link may point to: its last acknowledged target, or a later edit that was sent but not answered. */
function allowedTargets(lines: readonly Line[]): Map<string, { acknowledged: string; unanswered: string[] }> {
  const links = new Map<string, { acknowledged: string; unanswered: string[] }>();
  for (const line of lines) {
    if (line.t === 'created') links.set(line.code, { acknowledged: line.url, unanswered: [] });
    else if (line.t === 'edit') links.get(line.code)!.unanswered.push(line.url);
    else if (line.t === 'edited') links.set(line.code, { acknowledged: line.url, unanswered: [] });
  }
  return links;
}

async function killServerWhileWriting(t: ExecutionContext, durability: Durability): Promise<void> {
  const random = seededRandom(seedOf(t));
  const db = await freshDatabase(t);
  const env = { ...db.env, KURZ_DURABILITY: durability };
  const load = startLoad(t, { KURZ_LOAD: 'links', KURZ_KEY: await createKeyIn(db), KURZ_SEED: String(Math.floor(random() * 2 ** 31)) });
  const writers: number[] = [];
  const started = Date.now();

  for (let kill = 0; kill < KILLS; kill++) {
    const kurz = await startServe(t, env);
    const before = load.acknowledged();
    load.useServer(kurz.url);
    // Writes are flowing when the moment comes: up to half a second after this server's first acknowledgement.
    await waitFor(() => load.acknowledged() > before, PATIENCE_MS);
    await delay(random() * 500);
    kurz.child.kill('SIGKILL');
    await kurz.exited;
    writers.push(...writersOf(kurz));
  }
  const kurz = await startServe(t, env);
  const before = load.acknowledged();
  load.useServer(kurz.url);
  await waitFor(() => load.acknowledged() > before, PATIENCE_MS);
  const summary = await load.stop();
  const seconds = Math.round((Date.now() - started) / 1000);

  const created = load.lines.filter((line) => line.t === 'created').map((line) => line.code);
  const edits = load.lines.filter((line) => line.t === 'edited').length;
  const links = allowedTargets(load.lines);
  let lost = 0;
  let unansweredApplied = 0;
  const codes = [...links.keys()];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let code = codes.pop(); code !== undefined; code = codes.pop()) {
        const res = await fetch(`${kurz.url}/${code}`, { redirect: 'manual' });
        await res.arrayBuffer();
        const { acknowledged, unanswered } = links.get(code)!;
        const location = res.headers.get('location') ?? '';
        if (res.status !== 302 || (location !== acknowledged && !unanswered.includes(location))) {
          lost++;
          t.log(
            `${code}: ${res.status} ${location}, acknowledged ${acknowledged}${unanswered.length ? ` (or ${unanswered.join(', ')})` : ''}`,
          );
        } else if (location !== acknowledged) unansweredApplied++;
      }
    }),
  );
  t.is(await kurz.stop(), 0);
  writers.push(...writersOf(kurz));
  // The writers of killed servers write what they hold and exit on their own.
  await waitFor(() => writers.every((pid) => !running(pid)), PATIENCE_MS);
  const integrity = integrityOf(db.file);

  t.log(
    `durability ${durability}: ${KILLS} kills in ${seconds} s; acknowledged: ${created.length} creations, ${edits} edits; ` +
      `unanswered (in flight at a kill): ${summary.failed}, of which edits found applied: ${unansweredApplied}; ` +
      `lost: ${lost}; codes handed out twice: ${created.length - new Set(created).size}; integrity_check: ${integrity}`,
  );
  t.true(created.length > KILLS, 'links were created between the kills');
  t.true(edits > KILLS, 'and edited');
  t.is(lost, 0, 'every acknowledged creation and edit resolves to its target');
  t.is(new Set(created).size, created.length, 'no code handed out twice');
  t.is(integrity, 'ok');
}

crashTest('kill -9 of kurz serve while links are created and edited loses nothing acknowledged (durability full)', (t) =>
  killServerWhileWriting(t, 'full'),
);

crashTest('kill -9 of kurz serve while links are created and edited loses nothing acknowledged (durability process)', (t) =>
  killServerWhileWriting(t, 'process'),
);

test.serial('kill -9 of the background writer while redirects run counts every visit once', (t) => writerKills(t, {}));

test.serial('with a small visitBacklog, the counts kept without detail reach the next writer too: every visit once', (t) =>
  writerKills(t, { KURZ_VISIT_BACKLOG: '300' }),
);

/** WRITER_KILLS writers killed with visits in their hands while redirects run, kurz started with `env`. */
async function writerKills(t: ExecutionContext, env: Record<string, string>): Promise<void> {
  const random = seededRandom(seedOf(t));
  const db = await freshDatabase(t);
  const key = await createKeyIn(db);
  const kurz = await startServe(t, { ...db.env, KURZ_VISIT_FLUSH_INTERVAL: '250ms', ...env });
  const codes: string[] = [];
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${kurz.url}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `https://example.com/visited/${i}` }),
    });
    codes.push(((await res.json()) as { code: string }).code);
  }
  const counted = async () => (await db.sql<{ n: number }>('SELECT coalesce(sum(count), 0) AS n FROM link_visits'))[0]!.n;
  const load = startLoad(t, {
    KURZ_LOAD: 'visits',
    KURZ_CODES: codes.join(','),
    KURZ_RATE: '2000',
    KURZ_SEED: String(Math.floor(random() * 2 ** 31)),
  });
  load.useServer(kurz.url);
  const started = Date.now();

  for (let kill = 0; kill < WRITER_KILLS; kill++) {
    const writers = writersOf(kurz);
    const before = await counted();
    // This writer has written some visits; then, up to 1.5 s later (a flush reaches it every 250 ms and it
    // writes every second, 500 visits a transaction), it is killed with visits in its hands, often amid a
    // second's visits it has written in part.
    await waitFor(async () => (await counted()) > before, PATIENCE_MS);
    await delay(random() * 1500);
    process.kill(writers.at(-1)!, 'SIGKILL');
    await waitFor(() => writersOf(kurz).length > writers.length, PATIENCE_MS);
  }
  const summary = await load.stop();
  t.is(await kurz.stop(), 0);
  const writers = writersOf(kurz);
  await waitFor(() => writers.every((pid) => !running(pid)), PATIENCE_MS);
  const seconds = Math.round((Date.now() - started) / 1000);

  const redirects = Object.values(summary.redirects).reduce((sum, n) => sum + n, 0);
  const visits = await counted();
  const [rollups] = await db.sql<{ humans: number; bots: number }>('SELECT sum(humans) AS humans, sum(bots) AS bots FROM visit_hours');
  const [raw] = await db.sql<{ n: number }>('SELECT count(*) AS n FROM visits');
  // Visits past visitBacklog while a writer was down are only counted: no raw row, counted in their hour's undetailed_humans or undetailed_bots.
  const [undetailed] = await db.sql<{ n: number }>('SELECT coalesce(sum(undetailed_humans + undetailed_bots), 0) AS n FROM visit_hours');
  const handedOn = [...kurz.output().stderr.matchAll(/starting another .*unwritten=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  // PostgreSQL checks its own pages; SQLite's file is checked here.
  const integrity = backend === 'sqlite' ? integrityOf(db.file) : 'not a file';
  t.log(
    `${WRITER_KILLS} writer kills in ${seconds} s; 302s answered: ${redirects}; visits counted: ${visits} (lost ${Math.max(0, redirects - visits)}, ` +
      `counted twice ${Math.max(0, visits - redirects)}); only counted, without detail: ${undetailed!.n}; visits the killed writers had been handed and not written, handed to the next: ${handedOn}; integrity_check: ${integrity}`,
  );
  t.is(summary.failed, 0, 'every redirect was answered: a visit recorded is a 302 the load counted');
  t.is(writers.length, WRITER_KILLS + 1, 'a new writer after each kill');
  t.is(visits, redirects, 'every 302 counted once');
  t.deepEqual(rollups, { humans: redirects, bots: 0 }, 'the hourly rollups agree');
  t.is(raw!.n + undetailed!.n, redirects, 'and the raw visits, with those only counted');
  if (env['KURZ_VISIT_BACKLOG'] !== undefined) t.true(undetailed!.n > 0, `${undetailed!.n} only counted`);
  t.deepEqual(await db.sql('SELECT * FROM visit_handovers'), [], 'no receipt left behind');
  if (backend === 'sqlite') t.is(integrity, 'ok');
}
