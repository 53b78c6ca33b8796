import test from 'ava';
import { urlRules } from '../../src/links/url-rules.ts';
import { loadConfig } from '../../src/config.ts';
import { refusedRange } from '../../src/webhooks/addresses.ts';
import { signatureOf } from '../../src/webhooks/signature.ts';
import { webhookUrl } from '../../src/webhooks/targets.ts';

const ADDRESSES: Array<[address: string, range: string | undefined]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0.0.0.0', 'this network'],
  ['::', 'unspecified'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.1', undefined],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'shared (CGNAT)'],
  ['100.128.0.1', undefined],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['fe80::1', 'link-local'],
  ['fd00:ec2::254', 'unique-local'],
  ['fc00::1', 'unique-local'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:a9fe:a9fe', 'link-local (cloud metadata)'],
  ['64:ff9b::7f00:1', 'NAT64'],
  ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'reserved'],
  ['93.184.215.14', undefined],
  ['2606:4700::1111', undefined],
  ['::ffff:93.184.215.14', undefined],
  ['example.com', 'not an IP address'],
];

for (const [address, range] of ADDRESSES) {
  test(`refusedRange(${address}) is ${range ?? 'none'}`, (t) => {
    t.is(refusedRange(address), range);
  });
}

const rules = urlRules(loadConfig({ file: { publicUrl: 'https://kurz.test', port: 8080 } }));

const URLS: Array<[input: unknown, allowPrivate: boolean, outcome: string | RegExp]> = [
  ['https://hooks.example.com/kurz', false, 'https://hooks.example.com/kurz'],
  ['HTTPS://Hooks.Example.COM:443/kurz', false, 'https://hooks.example.com/kurz'],
  ['http://10.0.0.5:9000/in', false, /a private address \(10\.0\.0\.5\)/],
  ['http://[fe80::1]/in', false, /a link-local address/],
  ['http://169.254.169.254/latest/meta-data', false, /link-local \(cloud metadata\) address/],
  ['http://127.0.0.1:9000/in', false, /leads back to this kurz instance/],
  ['http://localhost:9000/in', false, /leads back to this kurz instance/],
  ['http://10.0.0.5:9000/in', true, 'http://10.0.0.5:9000/in'],
  ['http://127.0.0.1:9000/in', true, 'http://127.0.0.1:9000/in'],
  ['http://localhost:9000/in', true, 'http://localhost:9000/in'],
  // kurz itself stays refused, whatever the setting.
  ['https://kurz.test/api/v1/links', true, /leads back to this kurz instance/],
  ['http://127.0.0.1:8080/', true, /leads back to this kurz instance/],
  ['javascript:alert(1)', true, /must use http or https/],
  ['https://u:p@example.com/', true, /user name or password/],
  [42, false, /url must be a string/],
  ['', false, /url is required/],
];

for (const [input, allowPrivate, outcome] of URLS) {
  test(`webhookUrl(${JSON.stringify(input)}, allowPrivate ${allowPrivate})`, (t) => {
    if (typeof outcome === 'string') {
      t.is(webhookUrl(input, rules, allowPrivate), outcome);
      return;
    }
    const error = t.throws(() => webhookUrl(input, rules, allowPrivate));
    t.regex(error.message, outcome);
  });
}

test('the signature is the HMAC-SHA256 of the time, a dot and the body, with the time beside it', (t) => {
  // Computed independently: printf '%s' '1764295200.{"event":"ping"}' | openssl dgst -sha256 -hmac whsec_test
  t.is(
    signatureOf('whsec_test', '{"event":"ping"}', 1_764_295_200),
    't=1764295200,v1=' + '25378351d533694ba54c111f78b4a3217d55858de6f17dd64bdb52905f1852cf',
  );
});
