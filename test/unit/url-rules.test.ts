import { networkInterfaces } from 'node:os';
import test from 'ava';
import fc from 'fast-check';
import { AppError } from '../../src/core/errors.ts';
import { normaliseUrl, urlRules } from '../../src/links/url-rules.ts';

// Listens on a TEST-NET address, so the loopback rules and the listen-address rule can be told apart.
const config = { maxUrlLength: 100, publicUrl: 'https://s.example', host: '192.0.2.10', port: 8080, allowDomains: '', denyDomains: '' };
const rules = urlRules(config);

const VALID: Array<[string, string]> = [
  ['https://example.com', 'https://example.com/'],
  ['  http://example.com/a b  ', 'http://example.com/a%20b'],
  ['HTTPS://EXAMPLE.com:443/Path', 'https://example.com/Path'],
  ['http://example.com:8080/', 'http://example.com:8080/'],
  ['https://bücher.example/', 'https://xn--bcher-kva.example/'],
  ['https://example.com/a/../b?x=1#y', 'https://example.com/b?x=1#y'],
  ['https://192.168.1.1/', 'https://192.168.1.1/'],
  ['https://s.example.com/', 'https://s.example.com/'],
  ['https://localhost.example.com/', 'https://localhost.example.com/'],
  ['http://notlocalhost:8080/', 'http://notlocalhost:8080/'],
  ['http://128.0.0.1/', 'http://128.0.0.1/'],
  ['http://126.255.255.255/', 'http://126.255.255.255/'],
  ['http://[::2]/', 'http://[::2]/'],
  ['http://192.0.2.10:8081/', 'http://192.0.2.10:8081/'],
  ['https://192.0.2.10/', 'https://192.0.2.10/'],
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
  // The URL parser would drop a tab or line break inside silently: what was stored would not be what was sent.
  ['https://exa\r\nmple.com/', /^url must not contain control characters \(found U\+000D\)$/],
  ['https://example.com/a\nb', /^url must not contain control characters \(found U\+000A\)$/],
  ['https://example.com/a\tb', /^url must not contain control characters \(found U\+0009\)$/],
  ['https://example.com/\u0000', /^url must not contain control characters \(found U\+0000\)$/],
  ['https://example.com/\u007f', /^url must not contain control characters \(found U\+007F\)$/],
  ['java\nscript:alert(1)', /^url must not contain control characters/],
  ['https://example.com/\u0085', /^url must not contain control characters \(found U\+0085\)$/],
  // The URL parser would store a lone surrogate as %EF%BF%BD.
  ['https://example.com/\ud800', /^url must be valid Unicode text \(found a lone surrogate U\+D800\)$/],
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

// Every name kurz answers to, and the host the message names.
const SELF: Array<[string, string]> = [
  ['https://s.example/loop', 's.example'],
  ['https://S.EXAMPLE/loop', 's.example'],
  ['https://s.example./loop', 's.example'],
  ['https://s.example:8443/', 's.example'],
  ['http://s.example:9999/', 's.example'],
  ['http://localhost/', 'localhost'],
  ['http://LOCALHOST.:3000/', 'localhost'],
  ['https://api.localhost/', 'api.localhost'],
  ['http://a.b.LOCALHOST.:8080/', 'a.b.localhost'],
  ['http://127.0.0.1/', '127.0.0.1'],
  ['http://127.255.255.254:9/', '127.255.255.254'],
  ['http://0x7f000001/', '127.0.0.1'],
  ['http://2130706433/', '127.0.0.1'],
  ['http://127.1/', '127.0.0.1'],
  ['http://017700000001/', '127.0.0.1'],
  ['http://[::1]:8080/', '[::1]'],
  ['http://[0:0:0:0:0:0:0:1]/', '[::1]'],
  ['http://0.0.0.0:80/', '0.0.0.0'],
  ['http://0/', '0.0.0.0'],
  ['http://[::]:1234/', '[::]'],
  ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
  ['https://[::ffff:7f00:1]:5000/', '[::ffff:7f00:1]'],
  ['http://[::ffff:0.0.0.0]/', '[::ffff:0:0]'],
  ['http://192.0.2.10:8080/', '192.0.2.10'],
  ['http://[::ffff:192.0.2.10]:8080/', '[::ffff:c000:20a]'],
];
for (const [input, host] of SELF) {
  test(`refuses ${input} as leading back to kurz`, (t) => {
    const err = t.throws(() => normaliseUrl(input, rules), { instanceOf: AppError });
    t.is(err.message, `url leads back to this kurz instance (${host})`);
    t.is(err.code, 'invalid');
    t.is(err.field, 'url');
  });
}

// Listen addresses other than the default: [host, url, refused].
const LISTEN: Array<[string, string, boolean]> = [
  ['2001:db8::5', 'http://[2001:db8::5]:8080/', true],
  ['2001:DB8:0::5', 'http://[2001:db8::5]:8080/', true],
  ['2001:db8::5', 'http://[2001:db8::5]:8081/', false],
  ['KURZ.lan', 'http://kurz.LAN.:8080/', true],
  ['kurz.lan', 'http://kurz.lan:8081/', false],
  ['kurz.lan', 'http://www.kurz.lan:8080/', false],
];
for (const [host, input, refused] of LISTEN) {
  test(`listening on ${host}:8080, ${refused ? 'refuses' : 'accepts'} ${input}`, (t) => {
    const hostRules = urlRules({ ...config, host });
    if (refused) t.throws(() => normaliseUrl(input, hostRules), { instanceOf: AppError, message: /leads back to this kurz instance/ });
    else t.is(normaliseUrl(input, hostRules), input.toLowerCase());
  });
}

const interfaceAddress = Object.values(networkInterfaces())
  .flatMap((list) => list ?? [])
  .find((i) => !i.internal)?.address;
for (const wildcard of ['0.0.0.0', '::']) {
  test(`listening on ${wildcard}, refuses an interface address on the listen port only`, (t) => {
    if (interfaceAddress === undefined) return t.fail('this machine has no non-loopback interface address to test with');
    const hostRules = urlRules({ ...config, host: wildcard });
    const host = interfaceAddress.includes(':') ? `[${interfaceAddress}]` : interfaceAddress;
    t.throws(() => normaliseUrl(`http://${host}:8080/`, hostRules), { message: /leads back to this kurz instance/ });
    t.is(normaliseUrl(`http://${host}:8081/`, hostRules), `http://${host}:8081/`);
    t.is(normaliseUrl('http://203.0.113.77:8080/', hostRules), 'http://203.0.113.77:8080/');
  });
}

test('reads the listening address at check time, as the server updates it after listen', (t) => {
  const listening = { port: 0, addresses: ['192.0.2.10'] as readonly string[] };
  const liveRules = urlRules({ ...config, port: 0 }, listening);
  t.is(normaliseUrl('http://192.0.2.10:43210/', liveRules), 'http://192.0.2.10:43210/');
  listening.port = 43210;
  t.throws(() => normaliseUrl('http://192.0.2.10:43210/', liveRules), { message: /leads back to this kurz instance/ });
  listening.addresses = ['198.51.100.7'];
  t.is(normaliseUrl('http://192.0.2.10:43210/', liveRules), 'http://192.0.2.10:43210/');
  t.throws(() => normaliseUrl('http://198.51.100.7:43210/', liveRules), { message: /leads back to this kurz instance/ });
});

test('the listening argument replaces config.host and config.port', (t) => {
  const liveRules = urlRules(config, { port: 9000, addresses: ['198.51.100.7'] });
  t.is(normaliseUrl('http://192.0.2.10:8080/', liveRules), 'http://192.0.2.10:8080/');
  t.throws(() => normaliseUrl('http://198.51.100.7:9000/', liveRules), { message: /leads back to this kurz instance/ });
});

// [allowDomains, denyDomains, url, normalised url or the exact message refusing it].
const DOMAINS: Array<[string, string, string, string]> = [
  ['', 'example.com', 'https://example.com/', 'url\'s domain "example.com" is refused by denyDomains rule "example.com"'],
  ['', 'example.com', 'https://ads.example.com/x', 'url\'s domain "ads.example.com" is refused by denyDomains rule "example.com"'],
  ['', 'example.com', 'https://a.b.example.com/', 'url\'s domain "a.b.example.com" is refused by denyDomains rule "example.com"'],
  ['', 'example.com', 'https://EXAMPLE.COM./', 'url\'s domain "example.com" is refused by denyDomains rule "example.com"'],
  ['', 'example.org,example.com', 'https://x.example.com/', 'url\'s domain "x.example.com" is refused by denyDomains rule "example.com"'],
  ['', 'example.com', 'https://notexample.com/', 'https://notexample.com/'],
  ['', 'example.com', 'https://example.com.evil.org/', 'https://example.com.evil.org/'],
  ['', 'ads.example.com', 'https://example.com/', 'https://example.com/'],
  ['example.com,example.net', '', 'https://other.org/', 'url\'s domain "other.org" is not in allowDomains (example.com, example.net)'],
  [
    'example.com,example.net',
    '',
    'https://notexample.com/',
    'url\'s domain "notexample.com" is not in allowDomains (example.com, example.net)',
  ],
  ['example.com,example.net', '', 'https://www.example.net/a', 'https://www.example.net/a'],
  ['example.com,example.net', '', 'https://Example.COM/', 'https://example.com/'],
  [
    'example.com',
    'ads.example.com',
    'https://ads.example.com/',
    'url\'s domain "ads.example.com" is refused by denyDomains rule "ads.example.com"',
  ],
  ['example.com', 'example.com', 'https://example.com/', 'url\'s domain "example.com" is refused by denyDomains rule "example.com"'],
  ['example.com', 'ads.example.com', 'https://www.example.com/', 'https://www.example.com/'],
  [
    '',
    'xn--bcher-kva.example',
    'https://shop.bücher.example/',
    'url\'s domain "shop.xn--bcher-kva.example" is refused by denyDomains rule "xn--bcher-kva.example"',
  ],
  ['xn--bcher-kva.example', '', 'https://BÜCHER.example/', 'https://xn--bcher-kva.example/'],
  ['', '10.0.0.1', 'http://10.0.0.1/', 'url\'s domain "10.0.0.1" is refused by denyDomains rule "10.0.0.1"'],
  ['', '10.0.0.1', 'http://[::ffff:10.0.0.1]/', 'url\'s domain "[::ffff:a00:1]" is refused by denyDomains rule "10.0.0.1"'],
  ['', '0.0.1', 'http://10.0.0.1/', 'http://10.0.0.1/'],
  ['example.com', '', 'http://93.184.215.14/', 'url\'s domain "93.184.215.14" is not in allowDomains (example.com)'],
  ['[2001:db8::1]', '', 'http://[2001:db8:0::1]/', 'http://[2001:db8::1]/'],
  ['[2001:db8::1]', '', 'http://[2001:db8::2]/', 'url\'s domain "[2001:db8::2]" is not in allowDomains ([2001:db8::1])'],
  ['s.example', '', 'https://s.example/', 'url leads back to this kurz instance (s.example)'],
];
for (const [allowDomains, denyDomains, input, expected] of DOMAINS) {
  test(`allow "${allowDomains}" deny "${denyDomains}": ${input}`, (t) => {
    const domainRules = urlRules({ ...config, allowDomains, denyDomains });
    if (expected.startsWith('http')) {
      t.is(normaliseUrl(input, domainRules), expected);
      return;
    }
    const err = t.throws(() => normaliseUrl(input, domainRules), { instanceOf: AppError });
    t.is(err.message, expected);
    t.is(err.code, 'invalid');
    t.is(err.field, 'url');
  });
}

// --- properties (fast-check): whatever comes in, what is accepted is safe to redirect to and stable

/** Inputs built from the pieces attacks are made of: scheme spellings, separators, credentials, hosts that are kurz. */
const hostileUrl = fc
  .tuple(
    fc.constantFrom(
      'http',
      'https',
      'HTTPS',
      'HtTp',
      'javascript',
      'JaVaScRiPt',
      'data',
      'file',
      'vbscript',
      'ftp',
      'java\tscript',
      'ｈttps',
      '',
    ),
    fc.constantFrom('://', ':', ':/', ':///', ':\\\\', ':/\\', ' ://', ':\t//', '//'),
    fc.constantFrom('', 'user@', 'user:pw@', ':@', 's.example@', 'a%40b@', '@'),
    fc.constantFrom(
      'example.com',
      'EXAMPLE.COM.',
      'bücher.example',
      'аррӏе.com',
      'xn--80ak6aa92e.com',
      's.example',
      'S.EXAMPLE.',
      'ｓ.example',
      'localhost',
      'a.localhost',
      '127.0.0.1',
      '127.1',
      '0x7f000001',
      '2130706433',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '0.0.0.0',
      '[::]',
      '192.0.2.10:8080',
      '192.0.2.10',
      '10.0.0.1',
      'exa mple.com',
      '',
      '%2e%2e',
    ),
    fc.constantFrom('', ':443', ':8080', ':0', ':65536', ':-1'),
    fc.string({
      unit: fc.constantFrom(
        '/',
        'a',
        '.',
        '%',
        '2',
        'e',
        '?',
        '#',
        '<',
        '"',
        "'",
        '\\',
        ' ',
        '\r',
        '\n',
        '\u0000',
        '\u0085',
        '\ud800',
        'é',
      ),
      maxLength: 12,
    }),
  )
  .map((parts) => parts.join(''));

const anyInput = fc.oneof(
  hostileUrl,
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

const LOOPBACK_HOST = /^(localhost|.*\.localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1?\]|\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\])$/;

test('property: an accepted URL is http(s), without control characters or credentials, never kurz itself, and normalising it again changes nothing', (t) => {
  fc.assert(
    fc.property(anyInput, (input) => {
      let url: string;
      try {
        url = normaliseUrl(input, rules);
      } catch (err) {
        // Refused: always the one error type, naming the field.
        return err instanceof AppError && err.code === 'invalid' && err.field === 'url' && err.message.startsWith('url ');
      }
      const parsed = new URL(url);
      return (
        (parsed.protocol === 'http:' || parsed.protocol === 'https:') &&
        parsed.username === '' &&
        parsed.password === '' &&
        // eslint-disable-next-line no-control-regex
        !/[\u0000-\u001f\u007f-\u009f]/.test(url) &&
        url.isWellFormed() &&
        parsed.hostname !== 's.example' &&
        !LOOPBACK_HOST.test(parsed.hostname) &&
        url.length <= rules.maxLength &&
        normaliseUrl(url, rules) === url
      );
    }),
    { numRuns: 3000 },
  );
  t.pass();
});

test('property: a target with a scheme other than http(s), in any case and with any whitespace around it, is refused', (t) => {
  const scheme = fc.constantFrom('javascript', 'data', 'file', 'vbscript', 'blob', 'about', 'ws', 'mailto');
  const spelled = fc
    .tuple(scheme, fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }))
    .map(([name, upper]) => [...name].map((c, i) => (upper[i % upper.length] ? c.toUpperCase() : c)).join(''));
  const padding = fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r', '\f', '\u00a0', '\u2028', '\ufeff'), maxLength: 3 });
  fc.assert(
    fc.property(padding, spelled, fc.string({ maxLength: 20 }), padding, (before, name, rest, after) => {
      try {
        normaliseUrl(`${before}${name}:${rest}${after}`, rules);
        return false;
      } catch (err) {
        return err instanceof AppError && err.field === 'url';
      }
    }),
    { numRuns: 2000 },
  );
  t.pass();
});
