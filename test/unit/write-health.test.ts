import { join } from 'node:path';
import test from 'ava';
import Sqlite from 'better-sqlite3';
import { AppError, isUnavailable } from '../../src/core/errors.ts';
import { memoryLogger } from '../../src/core/log.ts';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { outsideTransaction } from '../../src/store/sqlite/outside-transaction.ts';
import { faultOf, watchWrites, type WriteFault } from '../../src/store/sqlite/write-health.ts';
import { tempDir, waitFor } from '../helpers.ts';

const sqliteError = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

const CASES: Array<[string, unknown, WriteFault | undefined]> = [
  ['a full disk', sqliteError('SQLITE_FULL', 'database or disk is full'), 'disk full'],
  ['a read-only database', sqliteError('SQLITE_READONLY'), 'read-only'],
  ['a moved database file', sqliteError('SQLITE_READONLY_DBMOVED'), 'read-only'],
  ['a lock held past the wait', sqliteError('SQLITE_BUSY', 'database is locked'), 'locked by another program'],
  ['a snapshot lost to another writer', sqliteError('SQLITE_BUSY_SNAPSHOT'), 'locked by another program'],
  ['a failed write on a healthy disk', sqliteError('SQLITE_IOERR_WRITE', 'disk I/O error'), 'I/O error'],
  ['a failed sync: no space', Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }), 'disk full'],
  ['a failed sync: a read-only file system', Object.assign(new Error('EROFS'), { code: 'EROFS' }), 'read-only'],
  ['a fault as the cause of another error', new Error('could not sync', { cause: sqliteError('SQLITE_FULL') }), 'disk full'],
  ['a constraint', sqliteError('SQLITE_CONSTRAINT_UNIQUE'), undefined],
  ['a corrupt file', sqliteError('SQLITE_CORRUPT'), undefined],
  ['a refusal of the domain', new AppError('conflict', 'taken'), undefined],
  ['a closed connection', new TypeError('The database connection is not open'), undefined],
  ['not an error', 'SQLITE_FULL', undefined],
];

for (const [what, err, fault] of CASES) {
  test(`fault of ${what}: ${fault ?? 'none'}`, (t) => {
    t.is(faultOf(err, join(tempDir(t), 'kurz.db')), fault);
  });
}

test('a lock held past the wait is a 503 logged once; the probe finds it released and logs the recovery', async (t) => {
  const file = join(tempDir(t), 'kurz.db');
  const db = openDatabase(file);
  const log = memoryLogger();
  const changes: Array<WriteFault | undefined> = [];
  const health = watchWrites(db, log, { onChange: (fault) => changes.push(fault) });
  t.teardown(() => {
    health.close();
    db.close();
  });
  const other = new Sqlite(file);
  t.teardown(() => other.close());
  other.exec('BEGIN IMMEDIATE');

  const busy = sqliteError('SQLITE_BUSY', 'database is locked');
  for (let i = 0; i < 3; i++) {
    const failed = health.failed(busy);
    t.true(failed instanceof AppError);
    t.like(failed, { code: 'unavailable', message: 'the database is locked by another program; try again in a moment' });
  }
  t.is(health.fault, 'locked by another program');
  const constraint = sqliteError('SQLITE_CONSTRAINT_UNIQUE');
  t.is(health.failed(constraint), constraint, 'any other error is returned as it is');
  t.is(log.lines.filter((l) => l.includes('the database cannot be written')).length, 1);
  t.regex(log.lines[0] ?? '', /problem="locked by another program" reason="SQLITE_BUSY: database is locked" process=server/);

  other.exec('COMMIT');
  await waitFor(() => health.fault === undefined);
  t.is(log.lines.filter((l) => l.includes('the database recovered: writes succeed again')).length, 1);
  t.deepEqual(changes, ['locked by another program', undefined]);
  t.false(db.inTransaction);
});

test('a write that waits for the lock while kurz closes the database ends as unavailable, not as a failure to log', async (t) => {
  const db = openDatabase(join(tempDir(t), 'kurz.db'));
  const health = watchWrites(db, memoryLogger());
  t.teardown(() => health.close());
  db.exec('BEGIN');
  // The write waits for the transaction on the connection to end; the database closes meanwhile.
  const write = outsideTransaction(db, health, () => db.exec('CREATE TABLE never (id INTEGER)'));
  db.exec('ROLLBACK');
  db.close();
  const err = await t.throwsAsync(write);
  t.true(isUnavailable(err), String(err));
});
