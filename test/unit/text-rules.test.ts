import test from 'ava';
import { codePoint, textProblem, unicodeProblem } from '../../src/links/text-rules.ts';

const ONE_LINE: Array<[string, string | undefined]> = [
  ['plain text', undefined],
  ['Ünïcödé, 日本語, emoji 🎉, RTL שלום', undefined],
  ['a left-to-right mark\u200e is fine', undefined],
  ['a\u0000b', 'must not contain control characters (found U+0000)'],
  ['a\tb', 'must not contain control characters (found U+0009)'],
  ['a\r\nb', 'must not contain control characters (found U+000D)'],
  ['\u001b[31mred', 'must not contain control characters (found U+001B)'],
  ['a\u007fb', 'must not contain control characters (found U+007F)'],
  ['a\u0085b', 'must not contain control characters (found U+0085)'],
  ['a\u009bb', 'must not contain control characters (found U+009B)'],
  ['a\u2028b', 'must be one line (found U+2028)'],
  ['a\u2029b', 'must be one line (found U+2029)'],
  ['invoice\u202egpj.exe', 'must not contain characters that reorder text (found U+202E)'],
  ['a\u202ab', 'must not contain characters that reorder text (found U+202A)'],
  ['a\u2066b\u2069', 'must not contain characters that reorder text (found U+2066)'],
  ['a\ud800b', 'must be valid Unicode text (found a lone surrogate U+D800)'],
  ['\udfff', 'must be valid Unicode text (found a lone surrogate U+DFFF)'],
  ['\ud83d\ude00\ud83d', 'must be valid Unicode text (found a lone surrogate U+D83D)'],
];
for (const [text, problem] of ONE_LINE) {
  test(`one line: ${JSON.stringify(text)} → ${problem ?? 'fine'}`, (t) => {
    t.is(textProblem(text, false), problem);
  });
}

const LINES: Array<[string, string | undefined]> = [
  ['first\r\nsecond\n\tindented', undefined],
  ['paragraph\u2029separator', undefined],
  ['a\u0000b', 'must not contain control characters (found U+0000)'],
  ['a\u000bb', 'must not contain control characters (found U+000B)'],
  ['a\u0085b', 'must not contain control characters (found U+0085)'],
  ['a\u202eb', 'must not contain characters that reorder text (found U+202E)'],
  ['\udc00', 'must be valid Unicode text (found a lone surrogate U+DC00)'],
];
for (const [text, problem] of LINES) {
  test(`lines: ${JSON.stringify(text)} → ${problem ?? 'fine'}`, (t) => {
    t.is(textProblem(text, true), problem);
  });
}

test('unicodeProblem finds only lone surrogates; codePoint names astral characters whole', (t) => {
  t.is(unicodeProblem('\u0000\u202e\ud83d\ude00'), undefined);
  t.is(unicodeProblem('x\ude00'), 'must be valid Unicode text (found a lone surrogate U+DE00)');
  t.is(codePoint('\r'), 'U+000D');
  t.is(codePoint('😀'), 'U+1F600');
});
