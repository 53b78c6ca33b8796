import { scryptSync } from 'node:crypto';
import test from 'ava';
import { defaultHashConcurrency, hashPassword, PasswordHashing, passwordProblem, verifyPassword } from '../../src/auth/passwords.ts';
import { AppError } from '../../src/errors.ts';

const random = (size: number) => Buffer.alloc(size, 7);

test('a password with a NUL never verifies, though scrypt cannot tell "pw" from "pw\\0" (HMAC pads its key with zeros)', async (t) => {
  const salt = Buffer.alloc(16, 1);
  t.deepEqual(
    scryptSync('secret', salt, 16, { N: 1024 }),
    scryptSync('secret\0', salt, 16, { N: 1024 }),
    'the property this guards against',
  );
  const stored = await hashPassword('correct horse battery staple', random);
  t.true(await verifyPassword('correct horse battery staple', stored));
  t.false(await verifyPassword('correct horse battery staple\0', stored));
  t.false(await verifyPassword('correct horse battery staple\0\0\0', stored));
});

const PROBLEMS: Array<[string, string | undefined]> = [
  ['correct horse battery staple', undefined],
  ['short', 'password must have at least 8 characters'],
  ['long enough\0', 'password must not contain control characters (found U+0000)'],
  ['long enough\r\n', 'password must not contain control characters (found U+000D)'],
  ['long enough\ud800', 'password must be valid Unicode text (found a lone surrogate U+D800)'],
];
for (const [password, problem] of PROBLEMS) {
  test(`passwordProblem(${JSON.stringify(password)}) is ${problem ?? 'none'}`, (t) => {
    t.is(passwordProblem(password), problem);
  });
}

const CONCURRENCY: Array<[number, number]> = [
  [1, 1],
  [2, 1],
  [3, 1],
  [4, 2],
  [6, 3],
  [64, 3],
];
for (const [cpus, slots] of CONCURRENCY) {
  test(`the default number of slow hashes at once on ${cpus} CPUs is ${slots}`, (t) => {
    t.is(defaultHashConcurrency(cpus), slots);
  });
}

test('PasswordHashing checks only in a free slot and refuses the rest with 429 at once; setting a password waits for a slot', async (t) => {
  const hashing = new PasswordHashing(2);
  const stored = await hashPassword('correct horse battery staple', random);
  const checks = Array.from({ length: 5 }, () => hashing.verify('wrong horse battery staple', stored).then(String, (err: unknown) => err));
  const setting = hashing.hash('a new password', random);
  const answers = await Promise.all(checks);
  t.deepEqual(answers.slice(0, 2), ['false', 'false'], 'two slots: two checks run');
  for (const refused of answers.slice(2)) {
    t.true(refused instanceof AppError);
    t.is((refused as AppError).code, 'rate_limited');
    t.is((refused as AppError).retryAfter, 1);
  }
  t.true(await verifyPassword('a new password', await setting), 'the new password waited for a slot and was hashed');
  t.is(hashing.ran, 3);
  t.is(hashing.refused, 3);
  t.is(hashing.busy(), undefined, 'every slot is free again');
  t.true(await hashing.verify('correct horse battery staple', stored));
});
