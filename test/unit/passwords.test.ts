import { scryptSync } from 'node:crypto';
import test from 'ava';
import { hashPassword, passwordProblem, verifyPassword } from '../../src/auth/passwords.ts';

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
