import type { IncomingMessage } from 'node:http';
import test from 'ava';
import { clientAddress, limitKeyOf } from '../../src/http/pipeline.ts';

/** Only what clientAddress reads of a request: the socket's address and the headers. */
function requestOf(socket: string, headers: Record<string, string> = {}): IncomingMessage {
  return { socket: { remoteAddress: socket }, headers } as unknown as IncomingMessage;
}

const LIMIT_KEYS: Array<[string, string]> = [
  ['192.0.2.1', '192.0.2.1'],
  ['127.0.0.1', '127.0.0.1'],
  ['::ffff:192.0.2.1', '192.0.2.1'],
  ['::FFFF:192.0.2.1', '192.0.2.1'],
  ['::ffff:c000:201', '192.0.2.1'],
  ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
  ['2001:db8:1:2::99', '2001:db8:1:2::/64'],
  ['2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
  ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
  ['2001:db8::1', '2001:db8:0:0::/64'],
  ['::1', '0:0:0:0::/64'],
  ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
  ['', ''],
  ['not an address', 'not an address'],
];

for (const [address, key] of LIMIT_KEYS) {
  test(`limitKeyOf(${JSON.stringify(address)}) is ${JSON.stringify(key)}`, (t) => {
    t.is(limitKeyOf(address), key);
  });
}

const TRUSTED = '127.0.0.1, 10.0.0.0/8';

const CLIENTS: Array<[string, 'x-forwarded-for' | 'forwarded', string, Record<string, string>, string]> = [
  ['an untrusted socket: its own, headers ignored', 'x-forwarded-for', '203.0.113.1', { 'x-forwarded-for': '198.51.100.1' }, '203.0.113.1'],
  ['one hop', 'x-forwarded-for', '127.0.0.1', { 'x-forwarded-for': '198.51.100.1' }, '198.51.100.1'],
  [
    'the right-most untrusted hop, not a made-up left one',
    'x-forwarded-for',
    '127.0.0.1',
    { 'x-forwarded-for': '127.0.0.1, 198.51.100.1' },
    '198.51.100.1',
  ],
  ['past trusted hops', 'x-forwarded-for', '127.0.0.1', { 'x-forwarded-for': '198.51.100.1, 10.1.2.3, 10.0.0.9' }, '198.51.100.1'],
  ['every hop trusted: the left-most', 'x-forwarded-for', '127.0.0.1', { 'x-forwarded-for': '10.1.2.3, 10.0.0.9' }, '10.1.2.3'],
  ['Forwarded is not read in x-forwarded-for mode', 'x-forwarded-for', '127.0.0.1', { forwarded: 'for=198.51.100.2' }, '127.0.0.1'],
  ['nor with both', 'x-forwarded-for', '127.0.0.1', { forwarded: 'for=198.51.100.2', 'x-forwarded-for': '198.51.100.1' }, '198.51.100.1'],
  ['no header: the proxy itself', 'x-forwarded-for', '127.0.0.1', {}, '127.0.0.1'],
  ['malformed: the last trusted hop', 'x-forwarded-for', '127.0.0.1', { 'x-forwarded-for': '198.51.100.1, ???, 10.0.0.9' }, '10.0.0.9'],
  ['empty: the socket', 'x-forwarded-for', '127.0.0.1', { 'x-forwarded-for': '' }, '127.0.0.1'],
  ['IPv6 with a port in brackets', 'x-forwarded-for', '127.0.0.1', { 'x-forwarded-for': '[2001:db8::1]:443' }, '2001:db8::1'],
  ['IPv4 with a port', 'x-forwarded-for', '127.0.0.1', { 'x-forwarded-for': '198.51.100.1:5000' }, '198.51.100.1'],
  ['IPv4-mapped socket of a trusted proxy', 'x-forwarded-for', '::ffff:127.0.0.1', { 'x-forwarded-for': '198.51.100.1' }, '198.51.100.1'],
  ['X-Forwarded-For is not read in forwarded mode', 'forwarded', '127.0.0.1', { 'x-forwarded-for': '198.51.100.1' }, '127.0.0.1'],
  ['Forwarded', 'forwarded', '127.0.0.1', { forwarded: 'for=198.51.100.2;proto=https' }, '198.51.100.2'],
  ['Forwarded: the right-most untrusted', 'forwarded', '127.0.0.1', { forwarded: 'for=127.0.0.1, for=198.51.100.2' }, '198.51.100.2'],
  ['Forwarded: quoted IPv6 with a port', 'forwarded', '127.0.0.1', { forwarded: 'For="[2001:db8::2]:4711"' }, '2001:db8::2'],
  ['Forwarded: unquoted IPv6, as some proxies write it', 'forwarded', '127.0.0.1', { forwarded: 'for=2001:db8::3' }, '2001:db8::3'],
  [
    'Forwarded: a quoted comma still splits (no proxy writes one)',
    'forwarded',
    '127.0.0.1',
    { forwarded: 'for=198.51.100.2;x="a,b"' },
    '127.0.0.1',
  ],
  ['Forwarded: an obfuscated node ends the walk', 'forwarded', '127.0.0.1', { forwarded: 'for=198.51.100.2, for=_hidden' }, '127.0.0.1'],
  [
    "Forwarded: a client's unclosed quote does not swallow its proxy's element",
    'forwarded',
    '127.0.0.1',
    { forwarded: 'for="oops, for=198.51.100.3' },
    '198.51.100.3',
  ],
  [
    'Forwarded: malformed on the left, a good nearest hop',
    'forwarded',
    '127.0.0.1',
    { forwarded: 'garbage;;=, for=198.51.100.3' },
    '198.51.100.3',
  ],
  ['Forwarded: an element without for', 'forwarded', '127.0.0.1', { forwarded: 'proto=https' }, '127.0.0.1'],
];

for (const [name, header, socket, headers, client] of CLIENTS) {
  test(`clientAddress (${header}): ${name}`, (t) => {
    t.is(clientAddress(TRUSTED, header)(requestOf(socket, headers)), client);
  });
}

test('clientAddress without trusted proxies is always the socket', (t) => {
  for (const header of ['x-forwarded-for', 'forwarded'] as const) {
    t.is(
      clientAddress('', header)(requestOf('127.0.0.1', { 'x-forwarded-for': '198.51.100.1', forwarded: 'for=198.51.100.2' })),
      '127.0.0.1',
    );
  }
});
