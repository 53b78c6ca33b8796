import test from 'ava';
import { AppError } from '../../src/core/errors.ts';
import { UTM_MAX_LENGTH, withUtm, type Utm } from '../../src/links/utm.ts';
import { normaliseUrl, urlRules } from '../../src/links/url-rules.ts';

const APPENDED: Array<[string, string, Utm, string]> = [
  ['no query', 'https://example.com/page', { utm_source: 'news' }, 'https://example.com/page?utm_source=news'],
  [
    'every parameter, in their order',
    'https://example.com/',
    { utm_content: 'e', utm_term: 'd', utm_campaign: 'c', utm_medium: 'b', utm_source: 'a' },
    'https://example.com/?utm_source=a&utm_medium=b&utm_campaign=c&utm_term=d&utm_content=e',
  ],
  [
    'an existing query is kept as written',
    'https://example.com/?q=a+b&x=%2F&flag',
    { utm_medium: 'email' },
    'https://example.com/?q=a+b&x=%2F&flag&utm_medium=email',
  ],
  [
    'a parameter of the same name is replaced, every copy of it',
    'https://example.com/?utm_source=old&id=7&utm_source=older',
    { utm_source: 'new' },
    'https://example.com/?id=7&utm_source=new',
  ],
  [
    'a name written encoded is the same name',
    'https://example.com/?utm%5Fsource=old',
    { utm_source: 'new' },
    'https://example.com/?utm_source=new',
  ],
  [
    'a parameter not given stays',
    'https://example.com/?utm_medium=social',
    { utm_source: 'x' },
    'https://example.com/?utm_medium=social&utm_source=x',
  ],
  [
    'the fragment is kept, after the query',
    'https://example.com/doc?a=1#part-2',
    { utm_campaign: 'spring' },
    'https://example.com/doc?a=1&utm_campaign=spring#part-2',
  ],
  [
    'a ? in the fragment is not the query',
    'https://example.com/app#/route?tab=1',
    { utm_source: 's' },
    'https://example.com/app?utm_source=s#/route?tab=1',
  ],
  ['an empty query and empty pairs', 'https://example.com/?&&', { utm_source: 's' }, 'https://example.com/?utm_source=s'],
  [
    'spaces and & are encoded',
    'https://example.com/',
    { utm_campaign: 'spring sale & more' },
    'https://example.com/?utm_campaign=spring%20sale%20%26%20more',
  ],
  [
    '= # ? + / and Unicode are encoded',
    'https://example.com/',
    { utm_term: 'a=b#c?d+e/ü' },
    'https://example.com/?utm_term=a%3Db%23c%3Fd%2Be%2F%C3%BC',
  ],
  ['values are trimmed', 'https://example.com/', { utm_source: '  news  ' }, 'https://example.com/?utm_source=news'],
  ['the URL is trimmed', '  https://example.com/  ', { utm_source: 'news' }, 'https://example.com/?utm_source=news'],
  [
    'empty and blank values are left out',
    'https://example.com/',
    { utm_source: '', utm_medium: '   ', utm_campaign: 'c' },
    'https://example.com/?utm_campaign=c',
  ],
];
for (const [name, url, utm, expected] of APPENDED) {
  test(`withUtm: ${name}`, (t) => {
    t.is(withUtm(url, utm), expected);
  });
}

const UNCHANGED: Array<[string, string, Utm]> = [
  ['no value: the URL as given, untrimmed', ' https://example.com/?utm_source=old ', {}],
  ['only empty values', 'https://example.com/', { utm_source: '', utm_term: ' ' }],
  ['no URL: left to the URL rules', 'example.com/page', { utm_source: 'news' }],
  ['empty URL', '', { utm_source: 'news' }],
];
for (const [name, url, utm] of UNCHANGED) {
  test(`withUtm leaves the URL: ${name}`, (t) => {
    t.is(withUtm(url, utm), url);
  });
}

const REFUSED: Array<[string, Utm, string, string]> = [
  ['too long', { utm_content: 'x'.repeat(UTM_MAX_LENGTH + 1) }, 'utm_content', `utm_content must be at most ${UTM_MAX_LENGTH} characters`],
  ['a control character', { utm_source: 'a\u0007b' }, 'utm_source', 'utm_source must not contain control characters (found U+0007)'],
  ['a line break inside', { utm_medium: 'a\nb' }, 'utm_medium', 'utm_medium must not contain control characters (found U+000A)'],
  ['a lone surrogate', { utm_term: 'a\ud800' }, 'utm_term', 'utm_term must be valid Unicode text (found a lone surrogate U+D800)'],
  [
    'a character that reorders text',
    { utm_campaign: 'a\u202eb' },
    'utm_campaign',
    'utm_campaign must not contain characters that reorder text (found U+202E)',
  ],
];
for (const [name, utm, field, message] of REFUSED) {
  test(`withUtm refuses ${name}, naming the field`, (t) => {
    const error = t.throws(() => withUtm('https://example.com/', utm), { instanceOf: AppError });
    t.is(error?.code, 'invalid');
    t.is(error?.field, field);
    t.is(error?.message, message);
  });
}

test('a value of the longest length is taken; a bad value is refused even when the URL is none', (t) => {
  t.is(
    withUtm('https://example.com/', { utm_content: 'x'.repeat(UTM_MAX_LENGTH) }),
    `https://example.com/?utm_content=${'x'.repeat(UTM_MAX_LENGTH)}`,
  );
  t.throws(() => withUtm('not a url', { utm_source: '\u0000' }), { instanceOf: AppError, message: /utm_source/ });
});

test('the result passes the URL rules, which normalise it; a URL the rules refuse is still refused', (t) => {
  const rules = urlRules({
    maxUrlLength: 2048,
    publicUrl: 'https://kurz.test',
    host: '127.0.0.1',
    port: 8080,
    allowDomains: '',
    denyDomains: '',
  });
  t.is(normaliseUrl(withUtm('HTTPS://Example.COM?a=1#top', { utm_source: 'x y' }), rules), 'https://example.com/?a=1&utm_source=x%20y#top');
  t.throws(() => normaliseUrl(withUtm('javascript:alert(1)', { utm_source: 'x' }), rules), { message: /must use http or https/ });
  t.throws(() => normaliseUrl(withUtm('example.com', { utm_source: 'x' }), rules), { message: /must be absolute/ });
});
