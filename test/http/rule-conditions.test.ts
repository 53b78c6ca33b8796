import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { BROWSER_ACCEPT, startKurz, tempDir, type TestKurz } from '../helpers.ts';
import { UA } from '../fixtures/user-agents.ts';
import { requestFrom } from '../support/from-address.ts';
import { buildCountryMmdb } from '../support/mmdb.ts';

// Every condition type of the redirect rules, over HTTP, with the headers real clients send (a phone, a
// desktop, WeChat, Instagram), from real client addresses (the loopback's 127.0.0.0/8) and a GeoIP city
// database made by the tests' own writer. A link per condition: its rule's target when it matches, else
// the link's own.

const OWN = 'https://example.com/own';
const MATCHED = 'https://example.com/matched';

/** A visit: its headers (a desktop Chrome in English by default), its query, the address it comes from. */
interface Visit {
  ua?: string;
  language?: string;
  query?: string;
  from?: string;
}

async function where(k: TestKurz, code: string, visit: Visit): Promise<string | undefined> {
  const headers: Record<string, string> = { 'user-agent': visit.ua ?? UA.desktopChromeWindows, accept: BROWSER_ACCEPT };
  if (visit.language !== undefined) headers['accept-language'] = visit.language;
  const answer = await requestFrom(visit.from ?? '127.0.0.1', k.base, `/${code}${visit.query ? `?${visit.query}` : ''}`, { headers });
  if (answer.status !== 302) throw new Error(`${code}: ${answer.status} ${answer.text}`);
  return answer.headers.location;
}

/** A condition, and visits it must match (true) or not (false). */
type Case = [name: string, condition: Record<string, string>, visits: Array<[what: string, visit: Visit, matches: boolean]>];

const CASES: Case[] = [
  [
    'device',
    { type: 'device', matchValue: 'mobile' },
    [
      ['an iPhone', { ua: UA.iphoneSafari }, true],
      ['an Android phone', { ua: UA.androidChromePhone }, true],
      ['an iPad', { ua: UA.ipadSafari }, true],
      ['WeChat on an iPhone', { ua: UA.wechatIos }, true],
      ['a Windows desktop', { ua: UA.desktopChromeWindows }, false],
      ['a Mac', { ua: UA.desktopChromeMac }, false],
    ],
  ],
  [
    'device tablet',
    { type: 'device', matchValue: 'tablet' },
    [
      ['an iPad', { ua: UA.ipadSafari }, true],
      ['an iPhone', { ua: UA.iphoneSafari }, false],
    ],
  ],
  [
    'device desktop',
    { type: 'device', matchValue: 'desktop' },
    [
      ['Firefox on Linux', { ua: UA.desktopFirefoxLinux }, true],
      ['an Android phone', { ua: UA.androidChromePhone }, false],
    ],
  ],
  [
    'os',
    { type: 'os', matchValue: 'android' },
    [
      ['an Android phone', { ua: UA.androidChromePhone }, true],
      ['WeChat on Android', { ua: UA.wechatAndroid }, true],
      ['an iPhone', { ua: UA.iphoneSafari }, false],
      ['Windows', { ua: UA.desktopChromeWindows }, false],
    ],
  ],
  [
    'browser',
    { type: 'browser', matchValue: 'firefox' },
    [
      ['Firefox on Linux', { ua: UA.desktopFirefoxLinux }, true],
      ['Chrome on Windows', { ua: UA.desktopChromeWindows }, false],
      ['Safari on an iPhone', { ua: UA.iphoneSafari }, false],
    ],
  ],
  [
    'in-app-browser wechat',
    { type: 'in-app-browser', matchValue: 'wechat' },
    [
      ['WeChat on an iPhone', { ua: UA.wechatIos }, true],
      ['WeChat on Android', { ua: UA.wechatAndroid }, true],
      ['Instagram', { ua: UA.instagramIos }, false],
      ['Safari on an iPhone', { ua: UA.iphoneSafari }, false],
    ],
  ],
  [
    'in-app-browser instagram',
    { type: 'in-app-browser', matchValue: 'instagram' },
    [
      ['Instagram', { ua: UA.instagramIos }, true],
      ['Facebook', { ua: UA.facebookIos }, false],
      ['a desktop', { ua: UA.desktopChromeMac }, false],
    ],
  ],
  [
    'in-app-browser any',
    { type: 'in-app-browser', matchValue: 'any' },
    [
      ['TikTok', { ua: UA.tiktokAndroid }, true],
      ['LINE', { ua: UA.lineIos }, true],
      ['Chrome on Android', { ua: UA.androidChromePhone }, false],
    ],
  ],
  [
    'language',
    { type: 'language', matchValue: 'de' },
    [
      ['de-AT first', { language: 'de-AT,de;q=0.9,en;q=0.8' }, true],
      ['de at q=0.9', { language: 'en-US,de;q=0.9' }, true],
      ['de at q=0.5', { language: 'en-GB,en;q=0.9,de;q=0.5' }, false],
      ['de refused with q=0', { language: 'de;q=0,en' }, false],
      ['no Accept-Language', {}, false],
      ['a language that merely starts with de', { language: 'dev' }, false],
    ],
  ],
  [
    'language with a region',
    { type: 'language', matchValue: 'pt-BR' },
    [
      ['pt-BR', { language: 'pt-BR,pt;q=0.9' }, true],
      ['pt-br, any case', { language: 'PT-br' }, true],
      ['pt-PT', { language: 'pt-PT,pt;q=0.9' }, false],
      ['pt alone', { language: 'pt' }, false],
    ],
  ],
  [
    'query-param',
    { type: 'query-param', matchKey: 'src', matchValue: 'mail' },
    [
      ['src=mail', { query: 'src=mail' }, true],
      ['src twice, one mail', { query: 'src=web&src=mail' }, true],
      ['src=web', { query: 'src=web' }, false],
      ['none', {}, false],
    ],
  ],
  [
    'any-value-query-param',
    { type: 'any-value-query-param', matchKey: 'ref' },
    [
      ['ref=x', { query: 'ref=x' }, true],
      ['ref without a value', { query: 'ref' }, true],
      ['another parameter', { query: 'reference=1' }, false],
    ],
  ],
  [
    'valueless-query-param',
    { type: 'valueless-query-param', matchKey: 'debug' },
    [
      ['debug', { query: 'debug' }, true],
      ['debug=', { query: 'debug=' }, true],
      ['debug=1', { query: 'debug=1' }, false],
      ['none', {}, false],
    ],
  ],
  [
    'query-param-absent',
    { type: 'query-param-absent', matchKey: 'src' },
    [
      ['none', {}, true],
      ['another parameter', { query: 'x=1' }, true],
      ['src', { query: 'src=1' }, false],
    ],
  ],
  [
    'ip-address CIDR',
    { type: 'ip-address', matchValue: '127.0.0.0/30' },
    [
      ['127.0.0.2', { from: '127.0.0.2' }, true],
      ['127.0.0.3', { from: '127.0.0.3' }, true],
      ['127.0.0.4', { from: '127.0.0.4' }, false],
    ],
  ],
  [
    'ip-address',
    { type: 'ip-address', matchValue: '127.0.0.9' },
    [
      ['127.0.0.9', { from: '127.0.0.9' }, true],
      ['127.0.0.8', { from: '127.0.0.8' }, false],
    ],
  ],
  [
    'ip-address pattern',
    { type: 'ip-address', matchValue: '127.0.1.*' },
    [
      ['127.0.1.5', { from: '127.0.1.5' }, true],
      ['127.0.2.5', { from: '127.0.2.5' }, false],
    ],
  ],
  [
    'geolocation-country-code',
    { type: 'geolocation-country-code', matchValue: 'de' },
    [
      ['a client in Berlin', { from: '127.0.10.1' }, true],
      ['a client in Munich', { from: '127.0.10.200' }, true],
      ['a client in Paris', { from: '127.0.20.1' }, false],
      ['a client of no known country', { from: '127.0.30.1' }, false],
    ],
  ],
  [
    'geolocation-city-name',
    { type: 'geolocation-city-name', matchValue: 'münchen' },
    [
      ['a client in Munich', { from: '127.0.10.200' }, true],
      ['a client in Berlin', { from: '127.0.10.1' }, false],
      ['a client in France, no city', { from: '127.0.20.1' }, false],
      ['a client of no known place', { from: '127.0.30.1' }, false],
    ],
  ],
];

/** A city database: Berlin and Munich in Germany, a network in France without a city. */
function cityDatabase(dir: string): string {
  const path = join(dir, 'cities.mmdb');
  writeFileSync(
    path,
    buildCountryMmdb([
      { network: '127.0.10.0/24', country: 'DE', city: 'Berlin' },
      { network: '127.0.10.128/25', country: 'DE', city: 'München' },
      { network: '127.0.20.0/24', country: 'FR' },
    ]),
  );
  return path;
}

test('every condition type matches the visits it names, with real headers and addresses, and only those', async (t) => {
  const k = await startKurz(t, { geoipDatabase: cityDatabase(tempDir(t)) });
  for (const [i, [name, condition, visits]] of CASES.entries()) {
    const code = `c${i}`;
    t.is((await k.postJson('/api/v1/links', { url: OWN, alias: code })).status, 201);
    const put = await k.request('PUT', `/api/v1/links/${code}/rules`, { rules: [{ conditions: [condition], target: MATCHED }] });
    t.is(put.status, 200, `${name}: ${await put.text()}`);
    for (const [what, visit, matches] of visits) t.is(await where(k, code, visit), matches ? MATCHED : OWN, `${name}: ${what}`);
  }
});

test('before-date and after-date follow the clock around the date', async (t) => {
  const k = await startKurz(t);
  const hour = 3_600_000;
  const at = new Date(k.clock.now() + hour).toISOString();
  await k.postJson('/api/v1/links', { url: OWN, alias: 'before' });
  await k.postJson('/api/v1/links', { url: OWN, alias: 'after' });
  await k.request('PUT', '/api/v1/links/before/rules', {
    rules: [{ conditions: [{ type: 'before-date', matchValue: at }], target: MATCHED }],
  });
  await k.request('PUT', '/api/v1/links/after/rules', {
    rules: [{ conditions: [{ type: 'after-date', matchValue: at }], target: MATCHED }],
  });
  t.is(await where(k, 'before', {}), MATCHED);
  t.is(await where(k, 'after', {}), OWN);
  k.clock.advance(hour + 1);
  t.is(await where(k, 'before', {}), OWN);
  t.is(await where(k, 'after', {}), MATCHED);
});

test('without a GeoIP database, neither a country nor a city condition matches', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: OWN, alias: 'geo' });
  await k.request('PUT', '/api/v1/links/geo/rules', {
    rules: [
      { conditions: [{ type: 'geolocation-country-code', matchValue: 'de' }], target: MATCHED },
      { conditions: [{ type: 'geolocation-city-name', matchValue: 'Berlin' }], target: MATCHED },
    ],
  });
  t.is(await where(k, 'geo', { from: '127.0.10.1' }), OWN);
});
