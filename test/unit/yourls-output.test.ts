import test from 'ava';
import { phpJson, writeYourls, xmlOf, type YourlsRecord } from '../../src/web/yourls-output.ts';

// YOURLS' answers as its PHP writes them: json_encode's defaults, array-to-xml's elements, the status taken
// from statusCode or errorCode, and the callback rule of yourls_validate_jsonp_callback.

const JSON_CASES: Array<[string, YourlsRecord, string]> = [
  ['slashes escaped', { url: 'https://a.example/b' }, '{"url":"https:\\/\\/a.example\\/b"}'],
  ['non-ASCII as \\u escapes', { title: 'Ünïcode – ✓' }, '{"title":"\\u00dcn\\u00efcode \\u2013 \\u2713"}'],
  ['astral characters as surrogate pairs', { title: '😀' }, '{"title":"\\ud83d\\ude00"}'],
  ['quotes, backslashes and control characters', { t: 'a"b\\c\n\u0001' }, '{"t":"a\\"b\\\\c\\n\\u0001"}'],
  [
    'numbers stay numbers, nested records nest',
    { stats: { total_links: 2, total_clicks: 0 } },
    '{"stats":{"total_links":2,"total_clicks":0}}',
  ],
];
for (const [name, fields, expected] of JSON_CASES) test(`json: ${name}`, (t) => t.is(phpJson(fields), expected));

const XML_CASES: Array<[string, YourlsRecord, string]> = [
  ['an empty value is an empty element', { code: '', status: 'fail' }, '<code/><status>fail</status>'],
  ['text escaped as libxml escapes it', { m: 'a < b & c > "d" \'e\'\r' }, '<m>a &lt; b &amp; c &gt; "d" \'e\'&#13;</m>'],
  ['control characters dropped, line feeds kept', { m: 'a\u0000b\tc\nd' }, '<m>abc\nd</m>'],
  ['true is 1, false and null are empty', { a: true, b: false, c: null }, '<a>1</a><b/><c/>'],
  [
    'nested records nest, spaces in names become underscores',
    { 'db-stats': { 'total links': 3 } },
    '<db-stats><total_links>3</total_links></db-stats>',
  ],
  ['non-ASCII kept as UTF-8', { title: 'Ünï ✓' }, '<title>Ünï ✓</title>'],
];
for (const [name, fields, inner] of XML_CASES)
  test(`xml: ${name}`, (t) => t.is(xmlOf(fields), `<?xml version="1.0" encoding="UTF-8"?>\n<root>${inner}</root>\n`));

const STATUS_CASES: Array<[string, YourlsRecord, number]> = [
  ['statusCode first', { errorCode: '400', statusCode: '200' }, 200],
  ['then errorCode', { errorCode: '404' }, 404],
  ['else 200', { version: '1.10.4' }, 200],
  ['an empty statusCode is no status: 200', { statusCode: '' }, 200],
];
for (const [name, fields, status] of STATUS_CASES) test(`status: ${name}`, (t) => t.is(writeYourls('json', { fields }).status, status));

const CALLBACKS: Array<[string, boolean]> = [
  ['cb', true],
  ['jQuery1234_5678', true],
  ['a.b$c', true],
  ['alert(1)', false],
  ['a;b', false],
  ['u2028', false],
  ['x\\u2029', false],
  ['', false],
];
for (const [callback, valid] of CALLBACKS)
  test(`jsonp: the callback ${JSON.stringify(callback)} is ${valid ? 'taken' : 'refused'}`, (t) => {
    const written = writeYourls('jsonp', { fields: { version: '1', callback } });
    t.is(written.type, 'application/javascript; charset=utf-8');
    if (valid) t.is(written.body, `${callback}({"version":"1","callback":"${callback}"})`);
    else t.deepEqual([written.status, written.body], [400, '{"errorCode":"400","error":"Invalid callback parameter"}']);
  });

test('jsonp without a callback is bare parentheses, as YOURLS writes it', (t) => {
  t.is(writeYourls('jsonp', { fields: { version: '1' } }).body, '({"version":"1"})');
});

test('simple and any unknown format print the bare text, or nothing', (t) => {
  for (const format of ['simple', 'txt', 'XML']) {
    const written = writeYourls(format, { fields: { shorturl: 'https://s.example/a' }, simple: 'https://s.example/a' });
    t.deepEqual([written.type, written.body], ['text/plain; charset=utf-8', 'https://s.example/a'], format);
  }
  t.is(writeYourls('simple', { fields: {} }).body, '');
});
