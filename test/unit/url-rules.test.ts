import test from 'ava';
import { AppError } from '../../src/errors.ts';
import { normaliseUrl } from '../../src/links/url-rules.ts';

const rules = { maxLength: 100, ownHost: 's.example' };

const VALID: Array<[string, string]> = [
  ['https://example.com', 'https://example.com/'],
  ['  http://example.com/a b  ', 'http://example.com/a%20b'],
  ['HTTPS://EXAMPLE.com:443/Path', 'https://example.com/Path'],
  ['http://example.com:8080/', 'http://example.com:8080/'],
  ['https://bücher.example/', 'https://xn--bcher-kva.example/'],
  ['https://example.com/a/../b?x=1#y', 'https://example.com/b?x=1#y'],
  ['https://s.example:8443/', 'https://s.example:8443/'],
  ['https://192.168.1.1/', 'https://192.168.1.1/'],
];
for (const [input, expected] of VALID) {
  test(`accepts ${JSON.stringify(input)}`, (t) => {
    t.is(normaliseUrl(input, rules), expected);
  });
}

const INVALID: Array<[unknown, RegExp]> = [
  [undefined, /^url is required$/],
  [null, /^url is required$/],
  ['', /^url is required$/],
  [' \t\n', /^url is required$/],
  [17, /^url must be a string, got number$/],
  [{ href: 'https://example.com' }, /^url must be a string, got an object$/],
  ['example.com', /must be absolute/],
  ['/relative/path', /must be absolute/],
  ['https://', /not a valid URL/],
  ['http://exa mple.com/', /not a valid URL/],
  ['javascript:alert(1)', /not javascript$/],
  ['JaVaScRiPt:alert(1)', /not javascript$/],
  ['data:text/html,hi', /not data$/],
  ['ftp://example.com/file', /not ftp$/],
  ['file:///etc/passwd', /not file$/],
  ['https://user@example.com/', /user name or password/],
  ['https://s.example/loop', /this kurz instance/],
  ['https://S.EXAMPLE/loop', /this kurz instance/],
  ['https://example.com/' + 'x'.repeat(100), /longer than 100 characters$/],
  ['https://example.com/' + 'é'.repeat(30), /longer than 100 characters once normalised/],
];
for (const [input, message] of INVALID) {
  test(`refuses ${JSON.stringify(input)?.slice(0, 40)}`, (t) => {
    const err = t.throws(() => normaliseUrl(input, rules), { instanceOf: AppError });
    t.regex(err.message, message);
    t.is(err.code, 'invalid');
    t.is(err.field, 'url');
  });
}
