import { scryptSync } from 'node:crypto';
import test from 'ava';
import {
  defaultHashConcurrency,
  hashPassword,
  hashProblem,
  PasswordHashing,
  passwordProblem,
  verifyPassword,
} from '../../src/auth/passwords.ts';
import { RateLimit } from '../../src/auth/rate-limits.ts';
import { AppError } from '../../src/core/errors.ts';

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

test('verification refuses, without hashing, a stored hash whose cost is not the one kurz writes (issue 23)', async (t) => {
  const salt = Buffer.alloc(16, 3);
  const foreign = (N: number, r: number, p: number) =>
    [
      'scrypt',
      N,
      r,
      p,
      salt.toString('base64url'),
      scryptSync('the right one', salt, 32, { N, r, p, maxmem: 256 * N * r * p }).toString('base64url'),
    ].join('$');
  for (const stored of [foreign(1024, 1, 1), foreign(2 ** 15, 8, 2), foreign(2 ** 15, 1, 1), foreign(2 ** 14, 8, 1)]) {
    t.regex(hashProblem(stored) ?? '', /^must be a password hash as kurz exports it/, stored);
    t.false(await verifyPassword('the right one', stored), stored);
  }
  const own = await hashPassword('the right one', random);
  t.is(hashProblem(own), undefined);
  t.true(await verifyPassword('the right one', own));
});

const HASH_PROBLEMS: Array<[string, string]> = [
  ['hunter2', ''],
  [`scrypt$1048576$8$2$${'a'.repeat(22)}$${'b'.repeat(43)}`, ': N is 1048576, p is 2'],
  [`scrypt$32768$99$99$${'a'.repeat(22)}$${'b'.repeat(43)}`, ': r is 99, p is 99'],
  [`scrypt$32768$8$1$${'a'.repeat(21)}$${'b'.repeat(43)}`, ': the salt is not 16 bytes'],
  [`scrypt$32768$8$1$${'a'.repeat(22)}$${'b'.repeat(44)}`, ': the hash is not 32 bytes'],
  [`scrypt$32768$8$1$${'a'.repeat(22)}$${'b'.repeat(43)}$`, ''],
];
for (const [i, [stored, reason]] of HASH_PROBLEMS.entries()) {
  test(`hashProblem #${i} (${stored.slice(0, 20)}…) names ${reason || 'the format'}`, (t) => {
    t.is(
      hashProblem(stored),
      `must be a password hash as kurz exports it (scrypt$N$r$p$salt$hash with N=32768, r=8, p=1, a 16-byte salt and a 32-byte hash)${reason}`,
    );
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

test('PasswordHashing checks only in a free slot and refuses the rest with 429 at once; setting a password waits for a slot of its own', async (t) => {
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

test('PasswordHashing: a password being set (the first start, a new link) never makes a guess wait, nor a guess a password being set', async (t) => {
  const hashing = new PasswordHashing(1);
  const stored = await hashPassword('correct horse battery staple', random);
  const setting = [hashing.hash('first password', random), hashing.hash('second password', random)];
  t.is(hashing.busy(), undefined, "the guesses' slot is free while passwords are hashed");
  const check = hashing.verify('correct horse battery staple', stored);
  t.true((hashing.busy() as AppError | undefined)?.code === 'rate_limited', 'and taken by the guess');
  const third = hashing.hash('third password', random);
  t.true(await check);
  const hashes = await Promise.all([...setting, third]);
  t.true(await verifyPassword('second password', hashes[1]!));
  t.true(await verifyPassword('third password', hashes[2]!));
  t.is(hashing.ran, 4);
  t.is(hashing.refused, 1);
});

test('PasswordHashing.guess counts a failure of every key before the hash, keeps it when wrong and forgets it when right', async (t) => {
  const limit = new RateLimit({ name: 'unlock', limit: 2, window: 1000, growTo: 60_000, message: 'wait', now: () => 0 });
  const hashing = new PasswordHashing(4);
  const stored = await hashPassword('correct horse battery staple', random);
  const [first, second] = [
    hashing.guess('wrong horse battery staple', stored, limit, ['client a', 'link x']),
    hashing.guess('correct horse battery staple', stored, limit, ['client b', 'link x']),
  ];
  // Both counted before either hash ran: the link's key is at its limit, so a third guess is refused at once.
  await t.throwsAsync(hashing.guess('correct horse battery staple', stored, limit, ['client c', 'link x']), { message: /^wait/ });
  t.deepEqual([await first, await second], [false, true]);
  t.is(limit.check('client a'), undefined, 'one failure of client a: under its limit');
  t.is(limit.check('link x'), undefined, 'the right guess forgot the link key');
  t.is(hashing.ran, 2, 'the refused guess was never hashed');
});
