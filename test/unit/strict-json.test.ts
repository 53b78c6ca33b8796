import test from 'ava';
import { parseJson } from '../../src/core/strict-json.ts';

const ACCEPTED: string[] = [
  '{"a":1,"b":2}',
  '{"a":{"a":1},"b":{"a":2}}',
  '[{"x":1},{"x":2}]',
  '{"s":"{\\"a\\":1,\\"a\\":2}"}',
  '{"a\\"":1,"a":2}',
  '{"":1,"a":[{},{"":2}]}',
  '"a string"',
];
for (const text of ACCEPTED) {
  test(`parses ${text} as JSON.parse does`, (t) => {
    t.deepEqual(parseJson(text), JSON.parse(text));
  });
}

const REFUSED: Array<[string, RegExp]> = [
  ['{"url":"a","url":"b"}', /^the key "url" is given twice in one object$/],
  ['{"x":{"y":1,"y":2}}', /^the key "y" is given twice in one object$/],
  ['[1,{"k":[],"j":{},"k":null}]', /^the key "k" is given twice in one object$/],
  ['{"url":"a","\\u0075rl":"b"}', /^the key "url" is given twice in one object$/],
  ['{"a\\\\":1,"a\\u005c":2}', /^the key "a\\\\" is given twice in one object$/],
  ['{"__proto__":{"x":1}}', /forbidden prototype property/],
  ['{"a":1,}', /JSON/],
];
for (const [text, message] of REFUSED) {
  test(`refuses ${text}`, (t) => {
    t.throws(() => parseJson(text), { instanceOf: SyntaxError, message });
  });
}

test('a duplicate deep inside 10,000 nested arrays is found without a stack overflow', (t) => {
  const deep = '['.repeat(10_000) + '{"k":1,"k":2}' + ']'.repeat(10_000);
  t.throws(() => parseJson(deep), { message: /"k" is given twice/ });
});
