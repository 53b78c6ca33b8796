import test from 'ava';
import { EMPTY_BLOCKLIST, linesOf, matchBlocklist, parseBlocklist, type BlocklistFile } from '../../src/blocklist/blocklist.ts';

/** The entries of one file, by kind, sorted: what a table row expects. */
function entries(file: BlocklistFile) {
  return { hosts: [...file.hosts].sort(), domains: [...file.domains].sort(), urls: [...file.urls].sort() };
}

const NONE = { hosts: [], domains: [], urls: [] };

// Each format as people write it, and what kurz makes of it.
const FORMATS: Array<[string, string, Partial<ReturnType<typeof entries>>]> = [
  ['a hosts file line', '0.0.0.0 evil.example', { hosts: ['evil.example'] }],
  ['a hosts line of 127.0.0.1', '127.0.0.1 a.b', { hosts: ['a.b'] }],
  [
    'several names on a hosts line',
    '0.0.0.0 evil.example www.evil.example\tcdn.evil.example',
    { hosts: ['cdn.evil.example', 'evil.example', 'www.evil.example'] },
  ],
  ['a hosts line with a comment after it', '0.0.0.0 evil.example # phishing', { hosts: ['evil.example'] }],
  ['a hosts line of an IPv6 sink', ':: evil.example', { hosts: ['evil.example'] }],
  ['an upper-case, dotted hosts name', '0.0.0.0 EVIL.Example.', { hosts: ['evil.example'] }],
  [
    'localhost entries, which are skipped',
    '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n255.255.255.255 broadcasthost\n127.0.0.1 localhost.localdomain',
    {},
  ],
  ['a comment line', '# 0.0.0.0 evil.example', {}],
  ['a blank line and a Windows line end', '\r\n\n0.0.0.0 evil.example\r\n', { hosts: ['evil.example'] }],
  ['a plain domain', 'evil.example', { domains: ['evil.example'] }],
  ['a domain written *.domain', '*.evil.example', { domains: ['evil.example'] }],
  ['a domain written .domain', '.evil.example', { domains: ['evil.example'] }],
  ['an internationalised domain', 'bücher.example', { domains: ['xn--bcher-kva.example'] }],
  ['an Adblock rule', '||evil.example^', { domains: ['evil.example'] }],
  ['an Adblock header and comment', '[Adblock Plus 2.0]\n! Title: a list\n||evil.example^', { domains: ['evil.example'] }],
  ['a bare IPv4 address', '198.51.100.7', { hosts: ['198.51.100.7'] }],
  ['a bare IPv6 address', '2001:db8::1', { hosts: ['[2001:db8::1]'] }],
  ['a URL', 'http://evil.example/payload.exe', { urls: ['http://evil.example/payload.exe'] }],
  ['a URL normalised as targets are', 'HTTP://Evil.Example:80/a/../b.exe', { urls: ['http://evil.example/b.exe'] }],
  ['a URL with a fragment, which is dropped', 'https://evil.example/x#frag', { urls: ['https://evil.example/x'] }],
  ['a URL with a comment after it', 'https://evil.example/x # added 2026-01-01', { urls: ['https://evil.example/x'] }],
  [
    'a URLhaus CSV dump line',
    '# id,dateadded,url,url_status,last_online,threat,tags,urlhaus_link,reporter\n"3139468","2026-01-15 12:34:05","http://198.51.100.7:4455/Mozi.m","online","2026-01-15 12:34:05","malware_download","elf,Mozi","https://urlhaus.abuse.ch/url/3139468/","lrz_urlhaus"',
    { urls: ['http://198.51.100.7:4455/Mozi.m'] },
  ],
  ['a CSV field with a doubled quote', '"1","2026-01-15","http://evil.example/a""b","online"', { urls: ['http://evil.example/a%22b'] }],
  [
    'one file mixing the formats',
    '0.0.0.0 a.example\nb.example\n||c.example^\nhttp://d.example/x',
    { hosts: ['a.example'], domains: ['b.example', 'c.example'], urls: ['http://d.example/x'] },
  ],
];
for (const [what, text, expected] of FORMATS) {
  test(`reads ${what}`, (t) => {
    const file = parseBlocklist(text, 'list.txt');
    t.deepEqual(entries(file), { ...NONE, ...expected });
    t.is(file.invalid, 0, JSON.stringify(file.samples));
  });
}

// Lines that hold no entry: counted, with the line number and why, never fatal.
const INVALID: Array<[string, string, RegExp]> = [
  ['a name that is no domain', 'not a domain!', /hosts line, which starts with an IP address/],
  ['a token with a path', 'evil.example/path', /not a domain name/],
  ['a top-level domain alone', 'com', /single label/],
  ['a single-label hosts name', '0.0.0.0 router', /single label/],
  ['an Adblock rule with options', '||evil.example^$third-party', /\|\|domain\^/],
  ['an Adblock rule with a path', '||evil.example/ads^', /\|\|domain\^/],
  ['an Adblock exception', '@@||good.example^', /not a domain name/],
  ['a URL of another scheme', 'ftp://evil.example/x', /not an http\(s\) URL/],
  ['a URL with text after it', 'http://evil.example/x and more', /one URL and nothing else/],
  ['a CSV line without a URL', '"1","2026-01-15","not a url"', /third field/],
  ['an unterminated CSV line', '"1","2026-01-15","http://evil.example/', /third field/],
  ['a hosts line with a bad name', '0.0.0.0 evil.example bad/name', /"bad\/name" is not a host name/],
];
for (const [what, line, reason] of INVALID) {
  test(`counts ${what} as invalid, with its line number`, (t) => {
    const file = parseBlocklist(`# header\n0.0.0.0 ok.example\n${line}\n`, 'list.txt');
    t.is(file.invalid, 1);
    t.is(file.samples[0]?.line, 3);
    t.is(file.samples[0]?.text, line);
    t.regex(file.samples[0]?.reason ?? '', reason);
    t.true(file.hosts.has('ok.example'), 'the valid lines around it are kept');
  });
}

test('keeps five invalid lines as samples and counts them all', (t) => {
  const file = parseBlocklist(Array.from({ length: 12 }, (_, i) => `bad line ${i}`).join('\n'), 'list.txt');
  t.is(file.invalid, 12);
  t.deepEqual(
    file.samples.map((s) => s.line),
    [1, 2, 3, 4, 5],
  );
});

const LIST = {
  files: [
    parseBlocklist('0.0.0.0 exact.example\n198.51.100.7\n2001:db8::1', 'hosts.txt'),
    parseBlocklist('evil.example\n||ads.example^\nhttps://shared.example/malware.exe', 'mixed.txt'),
  ],
};

// What each target matches: the entry, its kind and its file; undefined when none.
const MATCHES: Array<[string, [string, string, string] | undefined]> = [
  ['https://exact.example/', ['host', 'exact.example', 'hosts.txt']],
  ['https://exact.example:8443/any/path?q=1', ['host', 'exact.example', 'hosts.txt']],
  ['https://exact.example./', ['host', 'exact.example', 'hosts.txt']],
  // A hosts file names hosts exactly: a subdomain is another host.
  ['https://www.exact.example/', undefined],
  ['https://evil.example/', ['domain', 'evil.example', 'mixed.txt']],
  // A domain list covers the domain's subdomains, as denyDomains does.
  ['https://a.b.evil.example/x', ['domain', 'evil.example', 'mixed.txt']],
  ['https://ads.example/', ['domain', 'ads.example', 'mixed.txt']],
  ['https://notevil.example/', undefined],
  ['https://evil.example.org/', undefined],
  ['https://shared.example/malware.exe', ['url', 'https://shared.example/malware.exe', 'mixed.txt']],
  ['https://shared.example/malware.exe#top', ['url', 'https://shared.example/malware.exe', 'mixed.txt']],
  // A URL entry is that URL only.
  ['https://shared.example/malware.exe?x=1', undefined],
  ['https://shared.example/', undefined],
  ['http://198.51.100.7/x', ['host', '198.51.100.7', 'hosts.txt']],
  ['http://[2001:db8::1]:8080/', ['host', '[2001:db8::1]', 'hosts.txt']],
  ['http://198.51.100.8/x', undefined],
];
for (const [target, expected] of MATCHES) {
  test(`matches ${target} ${expected ? `to ${expected[0]} ${expected[1]}` : 'to nothing'}`, (t) => {
    const match = matchBlocklist(LIST, target);
    t.deepEqual(match && [match.kind, match.rule, match.list], expected);
  });
}

test('an empty blocklist matches nothing', (t) => {
  t.is(matchBlocklist(EMPTY_BLOCKLIST, 'https://evil.example/'), undefined);
});

// Issue 23: a URL entry matches the URL however either side spells it; what names another resource does not.
const SPELLINGS: Array<[entry: string, target: string, matches: boolean]> = [
  ['HTTPS://Example.COM:443/', 'https://example.com/', true],
  ['https://example.com', 'https://example.com/', true],
  ['https://example.com/', 'HTTPS://EXAMPLE.com:443', true],
  ['http://example.com:80', 'http://example.com/', true],
  ['HTTP://Example.com:80/Path', 'http://example.com/Path', true],
  ['https://example.com./x', 'https://example.com/x', true],
  ['https://example.com/x', 'https://example.com./x', true],
  ['https://example.com/x?', 'https://example.com/x', true],
  ['https://example.com/x', 'https://example.com/x?', true],
  ['https://example.com/%7Euser/a%2db', 'https://example.com/~user/a-b', true],
  ['https://example.com/~user', 'https://example.com/%7euser', true],
  ['https://example.com/x?q=%41', 'https://example.com/x?q=A', true],
  ['https://example.com/a%2fb', 'https://example.com/a%2Fb', true],
  ['https://xn--bcher-kva.example/x', 'https://bücher.example/x', true],
  ['https://example.com/x', 'https://example.com/x#top', true],
  // The path and query keep their case and their slashes; another port, scheme or query is another URL.
  ['https://example.com/X', 'https://example.com/x', false],
  ['https://example.com/x/', 'https://example.com/x', false],
  ['https://example.com/a%2Fb', 'https://example.com/a/b', false],
  ['https://example.com/x?q=A', 'https://example.com/x?q=a', false],
  ['https://example.com:8443/', 'https://example.com/', false],
  ['http://example.com/', 'https://example.com/', false],
];
for (const [entry, target, matches] of SPELLINGS) {
  test(`the URL entry ${entry} ${matches ? 'matches' : 'does not match'} ${target}`, (t) => {
    const list = { files: [parseBlocklist(entry, 'urls.txt')] };
    t.is(list.files[0]?.urls.size, 1);
    t.is(matchBlocklist(list, new URL(target).href)?.kind === 'url', matches);
  });
}

test('reads a file’s bytes: a byte order mark, Windows line ends and UTF-8 names', (t) => {
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('bücher.example\r\n0.0.0.0 evil.example\r\n', 'utf8')]);
  // The first line without the mark (the parser's trim would hide a mark left in it).
  t.deepEqual([...linesOf(bytes)], ['bücher.example\r', '0.0.0.0 evil.example\r', '']);
  const file = parseBlocklist(bytes, 'list.txt');
  t.deepEqual(entries(file), { ...NONE, hosts: ['evil.example'], domains: ['xn--bcher-kva.example'] });
  t.is(file.invalid, 0, JSON.stringify(file.samples));
});
