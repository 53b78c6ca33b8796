import type { IncomingMessage } from 'node:http';
import test from 'ava';
import fc from 'fast-check';
import { redirectSegment } from '../../src/edge/redirect.ts';
import { AppError } from '../../src/core/errors.ts';
import { checkAlias, CODE } from '../../src/links/alias-rules.ts';
import { RESERVED_PATHS } from '../../src/links/reserved-paths.ts';

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

// --- properties (fast-check)

const aliasLike = fc.string({
  unit: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...'abcXYZ019_-') },
    { weight: 1, arbitrary: fc.constantFrom('/', '.', '%', '\\', ' ', '?', '#', '\u0000', '\r', 'é', '\ud800', '<', '"') },
  ),
  maxLength: 70,
});
const anyAlias = fc.oneof(
  aliasLike,
  fc.constantFrom(...RESERVED_PATHS),
  fc.constantFrom(...[...RESERVED_PATHS].map((p) => p.toUpperCase())),
);

/** What the edge reads as the code of a request for `path`. */
const segmentOf = (path: string) => redirectSegment({ method: 'GET', url: path } as IncomingMessage);

test("property: an accepted alias is a code the redirect reads back from its path, plain or percent-encoded, and never one of kurz's own paths", (t) => {
  fc.assert(
    fc.property(anyAlias, (alias) => {
      let accepted: string;
      try {
        accepted = checkAlias(alias, RESERVED_PATHS);
      } catch (err) {
        return err instanceof AppError && err.code === 'invalid' && err.field === 'alias' && err.message.startsWith('alias ');
      }
      return (
        accepted === alias &&
        CODE.test(alias) &&
        !RESERVED_PATHS.has(alias.toLowerCase()) &&
        segmentOf(`/${alias}`) === alias &&
        segmentOf(`/${encodeURIComponent(alias)}?utm=x`) === alias &&
        segmentOf(`/${[...alias].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')}`) === alias
      );
    }),
    { numRuns: 3000 },
  );
  t.pass();
});

test("property: an alias that spells one of kurz's own paths in any case is refused", (t) => {
  const spelled = fc
    .tuple(fc.constantFrom(...RESERVED_PATHS), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }))
    .map(([path, upper]) => [...path].map((c, i) => (upper[i % 12] ? c.toUpperCase() : c)).join(''));
  fc.assert(
    fc.property(spelled, (alias) => {
      try {
        checkAlias(alias, RESERVED_PATHS);
        return false;
      } catch (err) {
        return err instanceof AppError && err.field === 'alias';
      }
    }),
  );
  t.pass();
});
