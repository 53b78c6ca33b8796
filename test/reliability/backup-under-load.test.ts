import { copyFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { exportedLink, freshDatabase, runCli, sqliteOnly, startServe, tempDir, waitFor } from '../helpers.ts';
import { createThrough } from '../support/fresh-connection.ts';
import { keepAliveLoad } from '../support/keep-alive-load.ts';

/** Links the redirects spread over (their visits are written meanwhile, by the background writer). */
const LINKS = 50;
/** Links the load stores before the backup starts. */
const ACKNOWLEDGED_BEFORE = 2000;
/** Links imported first, with long targets: some 25 MiB, which SQLite's backup copies in many steps. */
const IMPORTED = 20_000;
/** Generous: a backup that started again after every commit of the server could take forever. */
const BACKUP_BOUND_MS = 60_000;

sqliteOnly(
  'kurz backup during write load holds every link acknowledged before it began, passes its checks and serves',
  'backup copies the SQLite file',
  async (t) => {
    const database = await freshDatabase(t);
    const made = await runCli(['keys', 'create', '--name', 'load', '--json'], database.env);
    t.is(made.code, 0, made.stderr);
    const key = (JSON.parse(made.stdout) as { key: string }).key;
    const dir = tempDir(t);
    const imported = Array.from({ length: IMPORTED }, (_, i) =>
      exportedLink(`imported-${i}`, `https://example.com/imported/${i}/${'x'.repeat(1000)}`),
    );
    writeFileSync(join(dir, 'links.ndjson'), imported.map((l) => JSON.stringify(l)).join('\n'));
    const importing = await runCli(['import', join(dir, 'links.ndjson')], database.env);
    t.is(importing.code, 0, importing.stderr);
    const kurz = await startServe(t, database.env);
    const codes: string[] = [];
    for (let i = 0; i < LINKS; i++) codes.push(await createThrough(kurz.url, key, `https://example.com/seed/${i}`));

    const load = keepAliveLoad(kurz.url, { creators: 8, redirectors: 4, codes, key });
    t.teardown(() => load.stop());
    const created = () => load.outcomes.filter((o) => o.kind === 'create' && o.status === 201);
    await waitFor(() => created().length >= ACKNOWLEDGED_BEFORE, 120_000);

    const file = join(dir, 'backup.db');
    const startedAt = performance.now();
    const backup = await Promise.race([
      runCli(['backup', file], database.env),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the backup did not end')), BACKUP_BOUND_MS).unref()),
    ]);
    const tookMs = performance.now() - startedAt;
    const during = created().filter((o) => o.endedAt >= startedAt && o.endedAt < startedAt + tookMs).length;
    load.stop();
    await load.done;
    t.is(backup.code, 0, backup.stderr);
    t.regex(backup.stdout, /^backed up \d+ pages to /);

    const copy = new Sqlite(file, { readonly: true });
    t.teardown(() => copy.close());
    t.is(copy.pragma('integrity_check', { simple: true }), 'ok');
    const inCopy = new Map(
      copy
        .prepare<[], { code: string; url: string }>('SELECT code, url FROM links')
        .all()
        .map((r) => [r.code, r.url]),
    );
    const before = created().filter((o) => o.endedAt < startedAt);
    t.log(
      `${before.length} links acknowledged by the load before the backup began, ${during} while it ran ` +
        `(${tookMs.toFixed(0)} ms for ${(statSync(file).size / 1048576).toFixed(1)} MiB, the command's start included); ` +
        `the copy holds ${inCopy.size - LINKS - IMPORTED} of the load's links`,
    );
    t.deepEqual(
      before.filter((o) => inCopy.get(o.code) !== o.url),
      [],
      'every link acknowledged before the backup began is in the copy with its exact target',
    );
    t.deepEqual(
      imported.filter((l) => inCopy.get(l.code) !== l.url),
      [],
      'and every imported one',
    );
    const live = new Map((await database.sql<{ code: string; url: string }>('SELECT code, url FROM links')).map((r) => [r.code, r.url]));
    t.deepEqual(
      [...inCopy].filter(([code, url]) => live.get(code) !== url),
      [],
      'the copy holds nothing the live database does not',
    );

    const checked = await runCli(['check', file], {});
    t.is(checked.code, 0, checked.stdout + checked.stderr);

    // The copy serves: a second kurz on a copy of it redirects every one of those links.
    const served = join(dir, 'restored.db');
    copyFileSync(file, served);
    const restored = await startServe(t, { KURZ_DB: served });
    const wrong: string[] = [];
    for (let at = 0; at < before.length; at += 16) {
      await Promise.all(
        before.slice(at, at + 16).map(async (o) => {
          const answer = await fetch(`${restored.url}/${o.code}`, { redirect: 'manual' });
          const location = answer.headers.get('location');
          if (answer.status !== 302 || location !== o.url) wrong.push(`${o.code}: ${answer.status} ${location}`);
        }),
      );
    }
    t.deepEqual(wrong, [], 'every link acknowledged before the backup redirects from the copy');
    t.is(await restored.stop(), 0);
    t.is(await kurz.stop(), 0);
  },
);
