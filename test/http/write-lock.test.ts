import Sqlite from 'better-sqlite3';
import { sqliteOnly, startKurz } from '../helpers.ts';

sqliteOnly(
  'a creation waits for another process holding the write lock without stopping the redirects',
  'the lock is SQLite’s',
  async (t) => {
    const k = await startKurz(t);
    const first = await k.postJson('/api/v1/links', { url: 'https://example.com/first' });
    const { code } = (await first.json()) as { code: string };
    // Another process (a worker, the background writer, a CLI command) takes the write lock and keeps it.
    const other = new Sqlite(k.database.file);
    t.teardown(() => other.close());
    other.exec('BEGIN IMMEDIATE');
    let settled = false;
    const creating = k.postJson('/api/v1/links', { url: 'https://example.com/second' }).finally(() => (settled = true));
    for (let i = 0; i < 5; i++) {
      const res = await k.get(`/${code}`);
      t.is(res.status, 302, 'redirects are answered while the creation waits');
    }
    t.false(settled, 'the creation waits for the lock');
    other.exec('COMMIT');
    t.is((await creating).status, 201);
  },
);
