import test from 'ava';
import fc from 'fast-check';
import { AppError } from '../../src/core/errors.ts';
import { urlRules } from '../../src/links/url-rules.ts';
import { COUNTRY_CODES } from '../../src/rules/countries.ts';
import { chooseRule as choose, compileRules, drawVariant, type RuleFacts } from '../../src/rules/match.ts';
import {
  CONDITION_TYPES,
  conditionsInWords,
  parseRules,
  parseSplit,
  ruleJson,
  type ConditionType,
  type Rule,
  type Variant,
} from '../../src/rules/rule.ts';
import { UA } from '../fixtures/user-agents.ts';

const urls = urlRules({
  maxUrlLength: 200,
  publicUrl: 'https://s.example',
  host: '192.0.2.10',
  port: 8080,
  allowDomains: '',
  denyDomains: '',
});

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);

function facts(over: Partial<Omit<RuleFacts, 'country' | 'city'>> & { country?: string | null; city?: string | null } = {}): RuleFacts {
  const { country = null, city = null, ...rest } = over;
  return {
    userAgent: UA.desktopChromeWindows,
    acceptLanguage: '',
    query: '',
    clientAddress: '203.0.113.7',
    now: NOW,
    country: () => country,
    city: () => city,
    ...rest,
  };
}

/** The rule `rules` choose for the request, compiled as the store's loading compiles them. */
function chooseRule(rules: readonly Rule[], f: RuleFacts, skipPages = false): Rule | undefined {
  const program = compileRules(rules);
  return program.rules[choose(program, f, undefined, skipPages)];
}

/** A rule with one condition, to the target named after it. */
function one(type: string, matchValue: string | null, matchKey: string | null = null): Rule[] {
  return parseRules([{ conditions: [{ type, matchKey, matchValue }], target: 'https://example.com/hit' }], urls);
}

function matches(type: string, matchValue: string | null, f: RuleFacts, matchKey: string | null = null): boolean {
  return chooseRule(one(type, matchValue, matchKey), f) !== undefined;
}

// [type, matchValue, matchKey, facts, expected]
const CASES: Array<[string, string | null, string | null, RuleFacts, boolean]> = [
  // device: kurz's mobile/tablet/desktop and Shlink's operating systems
  ['device', 'mobile', null, facts({ userAgent: UA.iphoneSafari }), true],
  ['device', 'mobile', null, facts({ userAgent: UA.androidChromePhone }), true],
  ['device', 'mobile', null, facts({ userAgent: UA.ipadSafari }), true],
  ['device', 'mobile', null, facts({ userAgent: UA.desktopChromeWindows }), false],
  ['device', 'tablet', null, facts({ userAgent: UA.ipadSafari }), true],
  ['device', 'tablet', null, facts({ userAgent: UA.iphoneSafari }), false],
  ['device', 'desktop', null, facts({ userAgent: UA.desktopFirefoxLinux }), true],
  ['device', 'desktop', null, facts({ userAgent: UA.androidChromePhone }), false],
  ['device', 'ios', null, facts({ userAgent: UA.ipadSafari }), true],
  ['device', 'android', null, facts({ userAgent: UA.androidChromePhone }), true],
  ['device', 'android', null, facts({ userAgent: UA.iphoneSafari }), false],
  ['device', 'windows', null, facts({ userAgent: UA.desktopChromeWindows }), true],
  ['device', 'macos', null, facts({ userAgent: UA.desktopChromeMac }), true],
  ['device', 'linux', null, facts({ userAgent: UA.desktopFirefoxLinux }), true],
  ['device', 'desktop', null, facts({ userAgent: UA.facebookPreviewBot }), false],
  // os
  ['os', 'ios', null, facts({ userAgent: UA.iphoneSafari }), true],
  ['os', 'ios', null, facts({ userAgent: UA.wechatIos }), true],
  ['os', 'android', null, facts({ userAgent: UA.tiktokAndroid }), true],
  ['os', 'windows', null, facts({ userAgent: UA.desktopChromeMac }), false],
  ['os', 'macos', null, facts({ userAgent: UA.desktopChromeMac }), true],
  ['os', 'linux', null, facts({ userAgent: UA.desktopFirefoxLinux }), true],
  // browser
  ['browser', 'chrome', null, facts({ userAgent: UA.androidChromePhone }), true],
  ['browser', 'chrome', null, facts({ userAgent: UA.desktopChromeWindows }), true],
  ['browser', 'safari', null, facts({ userAgent: UA.iphoneSafari }), true],
  ['browser', 'firefox', null, facts({ userAgent: UA.desktopFirefoxLinux }), true],
  ['browser', 'firefox', null, facts({ userAgent: UA.desktopChromeWindows }), false],
  ['browser', 'chrome', null, facts({ userAgent: UA.facebookPreviewBot }), false],
  // in-app browser
  ['in-app-browser', 'wechat', null, facts({ userAgent: UA.wechatIos }), true],
  ['in-app-browser', 'wechat', null, facts({ userAgent: UA.wechatAndroid }), true],
  ['in-app-browser', 'instagram', null, facts({ userAgent: UA.instagramIos }), true],
  ['in-app-browser', 'facebook', null, facts({ userAgent: UA.facebookIos }), true],
  ['in-app-browser', 'facebook', null, facts({ userAgent: UA.instagramIos }), false],
  ['in-app-browser', 'tiktok', null, facts({ userAgent: UA.tiktokAndroid }), true],
  ['in-app-browser', 'tiktok', null, facts({ userAgent: UA.tiktokIos }), true],
  ['in-app-browser', 'line', null, facts({ userAgent: UA.lineIos }), true],
  ['in-app-browser', 'x', null, facts({ userAgent: UA.xIos }), true],
  ['in-app-browser', 'snapchat', null, facts({ userAgent: UA.snapchatIos }), true],
  ['in-app-browser', 'any', null, facts({ userAgent: UA.lineIos }), true],
  ['in-app-browser', 'any', null, facts({ userAgent: UA.iphoneSafari }), false],
  ['in-app-browser', 'any', null, facts({ userAgent: UA.facebookPreviewBot }), false],
  ['in-app-browser', 'wechat', null, facts({ userAgent: UA.instagramIos }), false],
  // language: ranges and q-values, threshold 0.9
  ['language', 'de', null, facts({ acceptLanguage: 'de-AT,de;q=0.9,en;q=0.8' }), true],
  ['language', 'de', null, facts({ acceptLanguage: 'de-AT' }), true],
  ['language', 'de-AT', null, facts({ acceptLanguage: 'de-AT,en;q=0.5' }), true],
  ['language', 'de-at', null, facts({ acceptLanguage: 'de-AT' }), true],
  ['language', 'de_AT', null, facts({ acceptLanguage: 'de-AT' }), true],
  ['language', 'de-AT', null, facts({ acceptLanguage: 'de-DE,de;q=0.9' }), false],
  ['language', 'de-AT', null, facts({ acceptLanguage: 'de' }), false],
  ['language', 'en', null, facts({ acceptLanguage: 'de-AT,de;q=0.9,en;q=0.8' }), false],
  ['language', 'en', null, facts({ acceptLanguage: 'en;q=0.9' }), true],
  ['language', 'en', null, facts({ acceptLanguage: 'en;q=0' }), false],
  ['language', 'en', null, facts({ acceptLanguage: '*' }), false],
  ['language', 'en', null, facts({ acceptLanguage: '' }), false],
  ['language', 'es', null, facts({ acceptLanguage: 'ES-419;q=1.0' }), true],
  ['language', 'es', null, facts({ acceptLanguage: 'est' }), false],
  // query parameters
  ['query-param', 'spring', 'utm_campaign', facts({ query: 'utm_campaign=spring&x=1' }), true],
  ['query-param', 'spring', 'utm_campaign', facts({ query: '?utm_campaign=spring' }), true],
  ['query-param', 'spring', 'utm_campaign', facts({ query: 'utm_campaign=summer' }), false],
  ['query-param', 'spring', 'utm_campaign', facts({ query: '' }), false],
  ['query-param', 'a b', 'q', facts({ query: 'q=a+b' }), true],
  ['any-value-query-param', null, 'ref', facts({ query: 'ref=x' }), true],
  ['any-value-query-param', null, 'ref', facts({ query: 'ref' }), true],
  ['any-value-query-param', null, 'ref', facts({ query: 'reference=x' }), false],
  ['valueless-query-param', null, 'debug', facts({ query: 'debug' }), true],
  ['valueless-query-param', null, 'debug', facts({ query: 'debug=' }), true],
  ['valueless-query-param', null, 'debug', facts({ query: 'debug=1' }), false],
  ['valueless-query-param', null, 'debug', facts({ query: '' }), false],
  ['query-param-absent', null, 'ref', facts({ query: 'x=1' }), true],
  ['query-param-absent', null, 'ref', facts({ query: '' }), true],
  ['query-param-absent', null, 'ref', facts({ query: 'ref' }), false],
  // IP addresses: static, CIDR v4 and v6, Shlink's wildcard, IPv4-mapped IPv6
  ['ip-address', '203.0.113.7', null, facts(), true],
  ['ip-address', '203.0.113.8', null, facts(), false],
  ['ip-address', '203.0.113.0/24', null, facts(), true],
  ['ip-address', '203.0.113.0/24', null, facts({ clientAddress: '203.0.114.1' }), false],
  ['ip-address', '203.0.113.0/24', null, facts({ clientAddress: '::ffff:203.0.113.99' }), true],
  ['ip-address', '203.0.113.7', null, facts({ clientAddress: '::ffff:203.0.113.7' }), true],
  ['ip-address', '2001:db8::/32', null, facts({ clientAddress: '2001:db8:1::5' }), true],
  ['ip-address', '2001:db8::/32', null, facts({ clientAddress: '2001:db9::5' }), false],
  ['ip-address', '2001:db8::1', null, facts({ clientAddress: '2001:0db8:0000::1' }), true],
  ['ip-address', '2001:db8::/32', null, facts(), false],
  ['ip-address', '203.0.*.*', null, facts(), true],
  ['ip-address', '203.*.113.*', null, facts({ clientAddress: '203.9.113.250' }), true],
  ['ip-address', '203.*.113.*', null, facts({ clientAddress: '203.9.114.250' }), false],
  ['ip-address', '203.0.*.*', null, facts({ clientAddress: '::ffff:203.0.1.2' }), true],
  ['ip-address', '203.0.*.*', null, facts({ clientAddress: '2001:db8::1' }), false],
  ['ip-address', '203.0.113.7', null, facts({ clientAddress: '' }), false],
  // geolocation: null without a database
  ['geolocation-country-code', 'DE', null, facts({ country: 'DE' }), true],
  ['geolocation-country-code', 'de', null, facts({ country: 'DE' }), true],
  ['geolocation-country-code', 'DE', null, facts({ country: 'AT' }), false],
  ['geolocation-country-code', 'DE', null, facts({ country: null }), false],
  ['geolocation-city-name', 'Berlin', null, facts({ city: 'Berlin' }), true],
  ['geolocation-city-name', 'berlin', null, facts({ city: 'Berlin' }), true],
  ['geolocation-city-name', 'Berlin', null, facts({ city: 'Bern' }), false],
  ['geolocation-city-name', 'Berlin', null, facts({ city: null }), false],
  // dates
  ['before-date', '2026-06-16', null, facts(), true],
  ['before-date', '2026-06-15T12:00:00Z', null, facts(), false],
  ['before-date', '2026-06-15T13:30:00+01:00', null, facts(), true],
  ['before-date', '2026-06-15', null, facts(), false],
  ['after-date', '2026-06-15', null, facts(), true],
  ['after-date', '2026-06-15T12:00:00Z', null, facts(), false],
  ['after-date', '2026-06-15T11:59:59.999Z', null, facts(), true],
  ['after-date', '2027-01-01T00:00:00+14:00', null, facts(), false],
];

const UA_NAMES = new Map<string, string>(Object.entries(UA).map(([name, ua]) => [ua, name]));

for (const [type, value, key, f, expected] of CASES) {
  const request = [
    UA_NAMES.get(f.userAgent),
    f.acceptLanguage && `Accept-Language ${f.acceptLanguage}`,
    f.query && `query ${f.query}`,
    `from ${f.clientAddress || 'nowhere'}`,
    f.country() ?? '',
    f.city() ?? '',
  ];
  const condition = `${type} ${key === null ? '' : key + ' '}${JSON.stringify(value)}`;
  test(`${condition} ${expected ? 'matches' : 'does not match'} ${request.filter(Boolean).join(', ')}`, (t) => {
    t.is(matches(type, value, f, key), expected);
  });
}

test('every condition type has a matching and a non-matching case', (t) => {
  for (const type of CONDITION_TYPES) {
    t.true(
      CASES.some(([ty, , , , e]) => ty === type && e),
      `${type} matches`,
    );
    t.true(
      CASES.some(([ty, , , , e]) => ty === type && !e),
      `${type} does not match`,
    );
  }
});

const ORDERED = parseRules(
  [
    { conditions: [{ type: 'in-app-browser', matchValue: 'any' }], page: 'open-in-browser' },
    { conditions: [{ type: 'geolocation-country-code', matchValue: 'KP' }], refuse: 451 },
    {
      conditions: [
        { type: 'device', matchValue: 'mobile' },
        { type: 'language', matchValue: 'de' },
      ],
      target: 'https://example.com/de-mobile',
    },
    { conditions: [{ type: 'language', matchValue: 'de' }], target: 'https://example.com/de' },
    {
      conditions: [{ type: 'device', matchValue: 'desktop' }],
      split: [
        { url: 'https://example.com/a', weight: 1 },
        { url: 'https://example.com/b', weight: 1 },
      ],
    },
  ],
  urls,
);

test('the first rule whose conditions all match decides', (t) => {
  t.is(chooseRule(ORDERED, facts({ userAgent: UA.wechatIos, acceptLanguage: 'de' })), ORDERED[0]);
  t.is(chooseRule(ORDERED, facts({ userAgent: UA.iphoneSafari, acceptLanguage: 'de', country: 'KP' })), ORDERED[1]);
  t.is(chooseRule(ORDERED, facts({ userAgent: UA.iphoneSafari, acceptLanguage: 'de-CH' })), ORDERED[2]);
  t.is(chooseRule(ORDERED, facts({ userAgent: UA.desktopChromeWindows, acceptLanguage: 'de-CH' })), ORDERED[3]);
  t.is(chooseRule(ORDERED, facts({ userAgent: UA.desktopChromeWindows, acceptLanguage: 'en' })), ORDERED[4]);
});

test('an Accept-Language header is read afresh for each request, however long, and whether its parse was kept or not', (t) => {
  const german = one('language', 'de');
  const long = `${Array.from({ length: 10 }, () => 'en-aaaaaaaa-bbbbbbbb-cccccccc;q=0.1').join(',')},de;q=0.95`;
  t.true(long.length > 256);
  for (let round = 0; round < 2; round++) {
    t.not(chooseRule(german, facts({ acceptLanguage: long })), undefined, `a long header, round ${round}`);
    t.is(chooseRule(german, facts({ acceptLanguage: 'fr-FR,fr;q=0.9' })), undefined, `then a French one, round ${round}`);
    t.not(chooseRule(german, facts({ acceptLanguage: 'de-AT' })), undefined, `then an Austrian one, round ${round}`);
  }
});

test('a rule with several conditions needs them all, whichever fails; a query value is no condition of its own', (t) => {
  const rules = parseRules(
    [
      {
        conditions: [
          { type: 'query-param', matchKey: 'lang', matchValue: 'de' },
          { type: 'language', matchValue: 'fr' },
        ],
        target: 'https://example.com/first',
      },
      {
        conditions: [
          { type: 'language', matchValue: 'fr' },
          { type: 'query-param', matchKey: 'lang', matchValue: 'de' },
        ],
        target: 'https://example.com/second',
      },
      { conditions: [{ type: 'query-param', matchKey: 'lang', matchValue: 'fr' }], target: 'https://example.com/third' },
    ],
    urls,
  );
  t.is(chooseRule(rules, facts({ query: '?lang=de', acceptLanguage: 'fr' })), rules[0]);
  t.is(chooseRule(rules, facts({ query: '?lang=de', acceptLanguage: 'en' })), undefined, 'the first condition passes, the second fails');
  t.is(chooseRule(rules, facts({ query: '?lang=fr', acceptLanguage: 'fr' })), rules[2], 'the first fails in both');
  t.is(chooseRule(rules, facts({ query: '', acceptLanguage: 'fr' })), undefined);
});

test('past a page, the first matching rule that shows no page decides', (t) => {
  const rules = parseRules(
    [
      { conditions: [{ type: 'language', matchValue: 'de' }], page: 'notice' },
      { conditions: [{ type: 'language', matchValue: 'fr' }], page: 'notice' },
      { conditions: [{ type: 'language', matchValue: 'de' }], target: 'https://example.com/de' },
    ],
    urls,
  );
  t.is(chooseRule(rules, facts({ acceptLanguage: 'de' })), rules[0]);
  t.is(chooseRule(rules, facts({ acceptLanguage: 'de' }), true), rules[2]);
  t.is(chooseRule(rules, facts({ acceptLanguage: 'fr' }), true), undefined);
});

test('no rule matches: undefined, so the link falls back to its own target', (t) => {
  t.is(chooseRule(ORDERED, facts({ userAgent: UA.iphoneSafari, acceptLanguage: 'fr' })), undefined);
  t.is(chooseRule([], facts()), undefined);
});

test('a fact no condition asks for is never read, and each is read once', (t) => {
  const read: string[] = [];
  const spy: RuleFacts = {
    get userAgent() {
      read.push('userAgent');
      return UA.iphoneSafari;
    },
    get acceptLanguage() {
      read.push('acceptLanguage');
      return 'fr';
    },
    get query() {
      read.push('query');
      return '';
    },
    get clientAddress() {
      read.push('clientAddress');
      return '203.0.113.7';
    },
    country: () => {
      read.push('country');
      return null;
    },
    city: () => {
      read.push('city');
      return null;
    },
    get now() {
      read.push('now');
      return NOW;
    },
  };
  const rules = parseRules(
    [
      {
        conditions: [
          { type: 'device', matchValue: 'mobile' },
          { type: 'language', matchValue: 'de' },
        ],
        target: 'https://example.com/1',
      },
      {
        conditions: [
          { type: 'os', matchValue: 'ios' },
          { type: 'language', matchValue: 'de-AT' },
        ],
        target: 'https://example.com/2',
      },
    ],
    urls,
  );
  t.is(chooseRule(rules, spy), undefined);
  t.deepEqual(read, ['userAgent', 'acceptLanguage']);

  read.length = 0;
  const every = parseRules(
    ['ip-address', 'geolocation-country-code', 'geolocation-city-name', 'before-date', 'any-value-query-param'].flatMap((type) =>
      [0, 1].map((i) => ({
        conditions: [
          type === 'any-value-query-param'
            ? { type, matchKey: `k${i}` }
            : {
                type,
                matchValue: {
                  'ip-address': `10.0.0.${i}`,
                  'geolocation-country-code': ['DE', 'AT'][i],
                  'geolocation-city-name': `C${i}`,
                  'before-date': `200${i}-01-01`,
                }[type],
              },
        ],
        target: 'https://example.com/',
      })),
    ),
    urls,
  );
  t.is(chooseRule(every, spy), undefined);
  t.deepEqual(read.toSorted(), ['city', 'clientAddress', 'country', 'now', 'query']);
});

// Validation: each error names the rule and the field.
const target = 'https://example.com/';
const INVALID: Array<[string, unknown, string, RegExp]> = [
  ['not a list', { rules: [] }, 'rules', /must be a list of rules/],
  [
    'over 50 rules',
    Array.from({ length: 51 }, () => ({ conditions: [{ type: 'language', matchValue: 'de' }], target })),
    'rules',
    /at most 50 rules/,
  ],
  ['a rule that is no object', [42], 'rules[0]', /must be an object/],
  ['conditions missing', [{ target }], 'rules[0].conditions', /must be a list of conditions/],
  [
    'over 10 conditions',
    [{ conditions: Array.from({ length: 11 }, () => ({ type: 'language', matchValue: 'de' })), target }],
    'rules[0].conditions',
    /at most 10 conditions/,
  ],
  [
    'an unknown rule key',
    [{ conditions: [{ type: 'language', matchValue: 'de' }], target, weight: 1 }],
    'rules[0].weight',
    /not a known field/,
  ],
  [
    'an unknown condition key',
    [{ conditions: [{ type: 'language', matchValue: 'de', negate: true }], target }],
    'rules[0].conditions[0].negate',
    /not a known field/,
  ],
  [
    'an unknown type',
    [{ conditions: [{ type: 'weather', matchValue: 'rain' }], target }],
    'rules[0].conditions[0].type',
    /must be one of device, os/,
  ],
  [
    'a number as matchValue',
    [{ conditions: [{ type: 'language', matchValue: 7 }], target }],
    'rules[0].conditions[0].matchValue',
    /must be a string or null/,
  ],
  ['no action', [{ conditions: [{ type: 'language', matchValue: 'de' }] }], 'rules[0]', /has no action/],
  [
    'two actions',
    [{ conditions: [{ type: 'language', matchValue: 'de' }], target, refuse: 451 }],
    'rules[0]',
    /has 2 actions \(target, refuse\)/,
  ],
  [
    'a bad target',
    [{ conditions: [{ type: 'language', matchValue: 'de' }], target: 'ftp://example.com/' }],
    'rules[0].target',
    /must use http or https/,
  ],
  [
    'a target back here',
    [{ conditions: [{ type: 'language', matchValue: 'de' }], target: 'https://s.example/x' }],
    'rules[0].target',
    /leads back/,
  ],
  ['a refusal of 404', [{ conditions: [{ type: 'language', matchValue: 'de' }], refuse: 404 }], 'rules[0].refuse', /must be 451 or 403/],
  [
    'an unknown page',
    [{ conditions: [{ type: 'language', matchValue: 'de' }], page: 'captcha' }],
    'rules[0].page',
    /must be one of open-in-browser, notice, form/,
  ],
  [
    'a malformed CIDR',
    [{ conditions: [{ type: 'ip-address', matchValue: '10.0.0.0/33' }], target }],
    'rules[0].conditions[0].matchValue',
    /not a CIDR range or IP address/,
  ],
  [
    'a malformed IPv6 CIDR',
    [{ conditions: [{ type: 'ip-address', matchValue: '2001:db8::/129' }], target }],
    'rules[0].conditions[0].matchValue',
    /not a CIDR range/,
  ],
  [
    'an address out of range',
    [{ conditions: [{ type: 'ip-address', matchValue: '256.1.1.1' }], target }],
    'rules[0].conditions[0].matchValue',
    /not a CIDR range/,
  ],
  [
    'a bad wildcard',
    [{ conditions: [{ type: 'ip-address', matchValue: '1.2.*' }], target }],
    'rules[0].conditions[0].matchValue',
    /not a CIDR range/,
  ],
  [
    'an unknown country',
    [{ conditions: [{ type: 'geolocation-country-code', matchValue: 'XX' }], target }],
    'rules[0].conditions[0].matchValue',
    /unknown country code XX/,
  ],
  [
    'an empty city',
    [{ conditions: [{ type: 'geolocation-city-name', matchValue: ' ' }], target }],
    'rules[0].conditions[0].matchValue',
    /must not be empty/,
  ],
  [
    'an unknown device',
    [{ conditions: [{ type: 'device', matchValue: 'phablet' }], target }],
    'rules[0].conditions[0].matchValue',
    /not a known device/,
  ],
  [
    'an unknown os',
    [{ conditions: [{ type: 'os', matchValue: 'beos' }], target }],
    'rules[0].conditions[0].matchValue',
    /not a known operating system/,
  ],
  [
    'an unknown browser',
    [{ conditions: [{ type: 'browser', matchValue: 'netscape' }], target }],
    'rules[0].conditions[0].matchValue',
    /not a known browser/,
  ],
  [
    'an unknown in-app browser',
    [{ conditions: [{ type: 'in-app-browser', matchValue: 'myspace' }], target }],
    'rules[0].conditions[0].matchValue',
    /not a known in-app browser/,
  ],
  [
    'a bad date',
    [{ conditions: [{ type: 'before-date', matchValue: '2026-02-30' }], target }],
    'rules[0].conditions[0].matchValue',
    /not an ISO 8601 date/,
  ],
  [
    'a date in words',
    [{ conditions: [{ type: 'after-date', matchValue: 'next friday' }], target }],
    'rules[0].conditions[0].matchValue',
    /not an ISO 8601 date/,
  ],
  [
    'a bad language',
    [{ conditions: [{ type: 'language', matchValue: 'german!' }], target }],
    'rules[0].conditions[0].matchValue',
    /not a language tag/,
  ],
  ['a missing matchValue', [{ conditions: [{ type: 'language' }], target }], 'rules[0].conditions[0].matchValue', /required for language/],
  [
    'an empty query key',
    [{ conditions: [{ type: 'query-param', matchKey: '', matchValue: 'x' }], target }],
    'rules[0].conditions[0].matchKey',
    /must name the query parameter/,
  ],
  [
    'a missing query key',
    [{ conditions: [{ type: 'query-param-absent' }], target }],
    'rules[0].conditions[0].matchKey',
    /must name the query parameter/,
  ],
  [
    'an empty query value',
    [{ conditions: [{ type: 'query-param', matchKey: 'a', matchValue: '' }], target }],
    'rules[0].conditions[0].matchValue',
    /must not be empty/,
  ],
  [
    'a value where none is taken',
    [{ conditions: [{ type: 'any-value-query-param', matchKey: 'a', matchValue: 'b' }], target }],
    'rules[0].conditions[0].matchValue',
    /must be null/,
  ],
  [
    'a key where none is taken',
    [{ conditions: [{ type: 'language', matchKey: 'a', matchValue: 'de' }], target }],
    'rules[0].conditions[0].matchKey',
    /must be null/,
  ],
  [
    'an oversize value',
    [{ conditions: [{ type: 'geolocation-city-name', matchValue: 'x'.repeat(257) }], target }],
    'rules[0].conditions[0].matchValue',
    /longer than 256/,
  ],
  [
    'an oversize key',
    [{ conditions: [{ type: 'query-param-absent', matchKey: 'k'.repeat(257) }], target }],
    'rules[0].conditions[0].matchKey',
    /longer than 256/,
  ],
  [
    'a control character',
    [{ conditions: [{ type: 'geolocation-city-name', matchValue: 'Ber\nlin' }], target }],
    'rules[0].conditions[0].matchValue',
    /control characters/,
  ],
  [
    'one variant',
    [{ conditions: [{ type: 'language', matchValue: 'de' }], split: [{ url: target, weight: 1 }] }],
    'rules[0].split',
    /at least 2 variants/,
  ],
  [
    'over 20 variants',
    [{ conditions: [{ type: 'language', matchValue: 'de' }], split: Array.from({ length: 21 }, () => ({ url: target, weight: 1 })) }],
    'rules[0].split',
    /at most 20 variants/,
  ],
  [
    'a weight of 0',
    [
      {
        conditions: [{ type: 'language', matchValue: 'de' }],
        split: [
          { url: target, weight: 0 },
          { url: target, weight: 1 },
        ],
      },
    ],
    'rules[0].split[0].weight',
    /at least 1/,
  ],
  [
    'a weight over 1000',
    [
      {
        conditions: [{ type: 'language', matchValue: 'de' }],
        split: [
          { url: target, weight: 1 },
          { url: target, weight: 1001 },
        ],
      },
    ],
    'rules[0].split[1].weight',
    /at most 1000/,
  ],
  [
    'a fractional weight',
    [
      {
        conditions: [{ type: 'language', matchValue: 'de' }],
        split: [
          { url: target, weight: 1.5 },
          { url: target, weight: 1 },
        ],
      },
    ],
    'rules[0].split[0].weight',
    /must be an integer/,
  ],
  [
    'a bad variant url',
    [
      {
        conditions: [{ type: 'language', matchValue: 'de' }],
        split: [
          { url: target, weight: 1 },
          { url: 'example.com', weight: 1 },
        ],
      },
    ],
    'rules[0].split[1].url',
    /must be absolute/,
  ],
  [
    'every variant paused',
    [
      {
        conditions: [{ type: 'language', matchValue: 'de' }],
        split: [
          { url: target, weight: 1, paused: true },
          { url: target, weight: 1, paused: true },
        ],
      },
    ],
    'rules[0].split',
    /every variant paused/,
  ],
  [
    'the third rule at fault',
    [
      { conditions: [{ type: 'language', matchValue: 'de' }], target },
      { conditions: [{ type: 'language', matchValue: 'fr' }], target },
      {
        conditions: [
          { type: 'language', matchValue: 'it' },
          { type: 'ip-address', matchValue: '10.0.0/8' },
        ],
        target,
      },
    ],
    'rules[2].conditions[1].matchValue',
    /not a CIDR range or IP address/,
  ],
];

for (const [name, input, field, message] of INVALID) {
  test(`refuses ${name}, naming ${field}`, (t) => {
    const err = t.throws(() => parseRules(input, urls), { instanceOf: AppError });
    t.is(err.code, 'invalid');
    t.is(err.field, field);
    t.regex(err.message, message);
    t.true(err.message.startsWith(field), err.message);
  });
}

test('accepts every documented value and returns the rules as set, targets normalised', (t) => {
  const input = [
    {
      conditions: [
        { type: 'device', matchKey: null, matchValue: 'tablet' },
        { type: 'os', matchKey: null, matchValue: 'android' },
        { type: 'browser', matchKey: null, matchValue: 'samsung_internet' },
        { type: 'in-app-browser', matchKey: null, matchValue: 'any' },
        { type: 'language', matchKey: null, matchValue: 'pt-BR' },
        { type: 'query-param', matchKey: 'utm_source', matchValue: 'news' },
        { type: 'any-value-query-param', matchKey: 'ref', matchValue: null },
        { type: 'valueless-query-param', matchKey: 'debug', matchValue: null },
        { type: 'query-param-absent', matchKey: 'nope', matchValue: null },
        { type: 'ip-address', matchKey: null, matchValue: '2001:db8::/48' },
      ],
      target: 'HTTPS://Example.com',
    },
    {
      conditions: [
        { type: 'geolocation-country-code', matchKey: null, matchValue: 'XK' },
        { type: 'geolocation-city-name', matchKey: null, matchValue: 'Prishtina' },
        { type: 'before-date', matchKey: null, matchValue: '2027-01-01T00:00:00+01:00' },
        { type: 'after-date', matchKey: null, matchValue: '2026-01-01' },
      ],
      split: [
        { url: 'https://example.com/a', weight: 3 },
        { url: 'https://example.com/b', weight: 1, paused: true },
        { url: 'https://example.com/c', weight: 1000, paused: false },
      ],
    },
    { conditions: [{ type: 'ip-address', matchValue: '10.*.*.*' }], refuse: 403 },
    { conditions: [{ type: 'in-app-browser', matchValue: 'wechat' }], page: 'open-in-browser' },
  ];
  const rules = parseRules(input, urls);
  t.deepEqual(rules.map(ruleJson), [
    { ...input[0], target: 'https://example.com/' },
    {
      ...input[1],
      split: [
        { url: 'https://example.com/a', weight: 3 },
        { url: 'https://example.com/b', weight: 1, paused: true },
        { url: 'https://example.com/c', weight: 1000 },
      ],
    },
    { conditions: [{ type: 'ip-address', matchKey: null, matchValue: '10.*.*.*' }], refuse: 403 },
    { conditions: [{ type: 'in-app-browser', matchKey: null, matchValue: 'wechat' }], page: 'open-in-browser' },
  ]);
  t.deepEqual(parseRules(rules.map(ruleJson), urls), rules);
});

test("parseSplit checks a link's own split, naming its field", (t) => {
  t.is(
    parseSplit(
      [
        { url: target, weight: 1 },
        { url: target, weight: 2 },
      ],
      urls,
    ).length,
    2,
  );
  const err = t.throws(() => parseSplit([{ url: target, weight: 1 }, { url: target }], urls), { instanceOf: AppError });
  t.is(err.field, 'split[1].weight');
});

// Splits
const AB: Variant[] = [
  { url: 'https://example.com/a', weight: 3, paused: false },
  { url: 'https://example.com/b', weight: 1, paused: false },
];

/** 10,000 hashes spread evenly over the 32-bit range (a per-visitor-per-day hash is uniform). */
function spread(n: number): number[] {
  return Array.from({ length: n }, (_, i) => Math.floor(((i + 0.5) / n) * 2 ** 32) >>> 0);
}

/** `n` pseudo-random 32-bit hashes (xorshift32, fixed seed): what many visitors' hashes look like. */
function hashes(n: number): number[] {
  let x = 2463534242;
  return Array.from({ length: n }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  });
}

function shares(variants: Variant[], list: number[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const h of list) {
    const v = drawVariant(variants, h);
    if (v) counts.set(v.url, (counts.get(v.url) ?? 0) + 1);
  }
  return new Map([...counts].map(([url, count]) => [url, count / list.length]));
}

test('the same hash draws the same variant', (t) => {
  for (const h of hashes(1000)) t.is(drawVariant(AB, h), drawVariant(AB, h));
  t.is(drawVariant(AB, 0), AB[0]);
  t.is(drawVariant(AB, 0xffffffff), AB[1]);
  t.is(drawVariant(AB, -1), AB[1]);
});

for (const [name, list] of [
  ['evenly spread', spread(10_000)],
  ['pseudo-random', hashes(10_000)],
] as const) {
  test(`10,000 ${name} hashes land within 2% of the weights`, (t) => {
    const variants: Variant[] = [
      { url: 'https://example.com/a', weight: 5, paused: false },
      { url: 'https://example.com/b', weight: 3, paused: false },
      { url: 'https://example.com/c', weight: 2, paused: false },
    ];
    const got = shares(variants, list);
    for (const v of variants) t.true(Math.abs((got.get(v.url) ?? 0) - v.weight / 10) <= 0.02, `${v.url}: ${got.get(v.url)}`);
  });
}

test('a paused variant is never drawn; its share goes to the others', (t) => {
  const variants: Variant[] = [
    { url: 'https://example.com/a', weight: 1, paused: false },
    { url: 'https://example.com/b', weight: 5, paused: true },
    { url: 'https://example.com/c', weight: 1, paused: false },
  ];
  const got = shares(variants, hashes(10_000));
  t.false(got.has('https://example.com/b'));
  t.true(Math.abs((got.get('https://example.com/a') ?? 0) - 0.5) <= 0.02);
  t.is(
    drawVariant(
      variants.map((v) => ({ ...v, paused: true })),
      123,
    ),
    undefined,
  );
});

test('changed weights: the draws follow them, and visitors of an unchanged share stay', (t) => {
  const before = shares(AB, spread(10_000));
  t.true(Math.abs((before.get('https://example.com/a') ?? 0) - 0.75) <= 0.02);
  const after: Variant[] = [
    { ...AB[0]!, weight: 1 },
    { ...AB[1]!, weight: 3 },
  ];
  const got = shares(after, spread(10_000));
  t.true(Math.abs((got.get('https://example.com/a') ?? 0) - 0.25) <= 0.02);
  t.true(Math.abs((got.get('https://example.com/b') ?? 0) - 0.75) <= 0.02);
  // Visitors in the first quarter were on a before and stay on a.
  for (const h of spread(10_000).filter((h) => h < 2 ** 30)) t.is(drawVariant(after, h)?.url, 'https://example.com/a');
});

test('any JSON is either rules or a 400 naming a field, and parsed rules decide any request without throwing', (t) => {
  const condition = fc.record(
    {
      type: fc.oneof(fc.constantFrom(...CONDITION_TYPES), fc.string()),
      matchKey: fc.oneof(fc.constant(null), fc.string({ maxLength: 8 })),
      matchValue: fc.oneof(
        fc.constant(null),
        fc.string({ maxLength: 12 }),
        fc.constantFrom('mobile', 'ios', 'chrome', 'wechat', 'any', 'de-AT', '10.0.0.0/8', '1.*.*.*', '::1', 'DE', '2026-01-01'),
      ),
    },
    { requiredKeys: [] },
  );
  const rule = fc.record(
    {
      conditions: fc.array(condition, { maxLength: 3 }),
      target: fc.oneof(fc.constant('https://example.com/'), fc.string({ maxLength: 8 })),
      refuse: fc.constantFrom(451, 403, 404),
    },
    { requiredKeys: [] },
  );
  const request = fc.record({
    userAgent: fc.oneof(fc.constantFrom(...Object.values(UA)), fc.string()),
    acceptLanguage: fc.string({ maxLength: 20 }),
    query: fc.string({ maxLength: 20 }),
    clientAddress: fc.oneof(fc.constantFrom('10.1.2.3', '::ffff:10.1.2.3', '2001:db8::1', ''), fc.string({ maxLength: 8 })),
  });
  fc.assert(
    fc.property(fc.oneof(fc.array(rule, { maxLength: 3 }), fc.jsonValue()), request, (input, r) => {
      let rules: Rule[];
      try {
        rules = parseRules(input, urls);
      } catch (err) {
        return err instanceof AppError && err.code === 'invalid' && typeof err.field === 'string' && err.field.startsWith('rules');
      }
      chooseRule(rules, facts({ ...r, country: 'DE', city: 'Berlin' }));
      return true;
    }),
  );
  t.pass();
});

test('the country list is ISO 3166-1 alpha-2 (249 codes) and Kosovo, each a region Intl names', (t) => {
  t.is(COUNTRY_CODES.size, 250);
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  for (const code of COUNTRY_CODES) {
    t.regex(code, /^[A-Z]{2}$/);
    t.not(names.of(code), code, code);
  }
  for (const retired of ['UK', 'EU', 'YU', 'CS', 'AN', 'SU', 'ZZ']) t.false(COUNTRY_CODES.has(retired), retired);
});

test('a rule goes by its conditions in words, written as the redirect reads them: the name its visits are counted under', (t) => {
  const words = (conditions: Array<[string, string | null, string | null]>) =>
    conditionsInWords(conditions.map(([type, matchKey, matchValue]) => ({ type: type as ConditionType, matchKey, matchValue })));
  t.is(words([]), 'every visitor');
  t.is(
    words([
      ['language', null, 'de_AT'],
      ['device', null, 'mobile'],
    ]),
    'language is de-at and device is mobile',
  );
  t.is(words([['geolocation-country-code', null, 'de']]), words([['geolocation-country-code', null, 'DE']]));
  t.is(words([['geolocation-country-code', null, 'de']]), 'country is DE');
  t.is(words([['query-param', 'utm', 'x']]), 'query parameter utm is x');
  t.is(words([['query-param-absent', 'utm', null]]), 'query parameter utm is absent');
  t.is(words([['ip-address', null, '10.0.0.0/8']]), 'IP address is 10.0.0.0/8');
  t.is(words([['after-date', null, '2026-12-01']]), 'after 2026-12-01');
  // Names differ as the rules differ.
  const program = compileRules(parseRules([{ conditions: [{ type: 'os', matchValue: 'ios' }], target: 'https://example.com/ios' }], urls));
  t.deepEqual(program.names, ['operating system is ios']);
});
