import test from 'ava';
import { AppError } from '../../src/errors.ts';
import { checkAlias } from '../../src/links/alias-rules.ts';

const reserved = new Set(['api', 'healthz']);

for (const alias of ['a', 'Z', '0', 'my-link', 'my_link', 'A'.repeat(64), 'api2', 'API-docs']) {
  test(`accepts alias ${JSON.stringify(alias.slice(0, 20))}`, (t) => {
    t.is(checkAlias(alias, reserved), alias);
  });
}

const INVALID: Array<[unknown, RegExp]> = [
  ['', /1 to 64 characters/],
  ['A'.repeat(65), /1 to 64 characters/],
  ['with space', /only contain/],
  ['slash/inside', /only contain/],
  ['dot.ted', /only contain/],
  ['ümlaut', /only contain/],
  ['percent%20', /only contain/],
  ['api', /reserved/],
  ['Api', /reserved/],
  ['HEALTHZ', /reserved/],
  [5, /must be a string, got number/],
  [null, /must be a string, got null/],
];
for (const [alias, message] of INVALID) {
  test(`refuses alias ${JSON.stringify(alias)?.slice(0, 20)}`, (t) => {
    const err = t.throws(() => checkAlias(alias, reserved), { instanceOf: AppError });
    t.regex(err.message, message);
    t.is(err.field, 'alias');
  });
}
