import Sqlite from 'better-sqlite3';
import { sqliteOnly, startKurz, waitFor } from '../helpers.ts';

sqliteOnly(
  'a creation waits for another process holding the write lock without stopping the redirects',
  'the lock is SQLite’s',
  async (t) => {
    // Writes handed to the link store: the creation has reached it, and waits there for the lock.
    let writes = 0;
    const k = await startKurz(
      t,
      {},
      {
        adaptStorage: (storage) => ({
          ...storage,
          links: {
            ...storage.links,
            write: (work) => {
              writes++;
              return storage.links.write(work);
            },
          },
        }),
      },
    );
    const first = await k.postJson('/api/v1/links', { url: 'https://example.com/first' });
    const { code } = (await first.json()) as { code: string };
    // Another process (a worker, the background writer, a CLI command) takes the write lock and keeps it.
    const other = new Sqlite(k.database.file);
    t.teardown(() => other.close());
    other.exec('BEGIN IMMEDIATE');
    let committed = false;
    let answeredAfterCommit = false;
    const before = writes;
    const creating = k.postJson('/api/v1/links', { url: 'https://example.com/second' }).finally(() => (answeredAfterCommit = committed));
    await waitFor(() => writes > before);
    // Together, so that the lock is held for as short a time as possible (the creation waits up to 5 s).
    const redirects = await Promise.all(Array.from({ length: 5 }, () => k.get(`/${code}`)));
    t.deepEqual(
      redirects.map((res) => res.status),
      [302, 302, 302, 302, 302],
      'redirects are answered while the creation waits',
    );
    committed = true;
    other.exec('COMMIT');
    t.is((await creating).status, 201);
    t.true(answeredAfterCommit, 'the creation waited for the lock');
  },
);
