import test from 'ava';
import { FIRST_ADMIN } from '../../src/auth/actor.ts';
import { freshStorage } from '../helpers.ts';

// The access store on the backend of the run (SQLite, or PostgreSQL in make test's second pass).

test('a password is set only while there is none: the first start never replaces one a person set', async (t) => {
  const { storage } = await freshStorage(t);
  const { access } = storage;
  await access.ensureFirstAdmin('admin', null, new Date());
  t.true(await access.setPasswordIfNone(FIRST_ADMIN, 'person'));
  t.false(await access.setPasswordIfNone(FIRST_ADMIN, 'generated'));
  t.is((await access.userById(FIRST_ADMIN))?.passwordHash, 'person');
  t.false(await access.setPasswordIfNone(999, 'nobody'));
});
