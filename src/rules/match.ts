import { BlockList, isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import { timeOf } from '../links/times.ts';
import { acceptedLanguages, classifyUserAgent, inAppBrowser, type ClientKind, type InAppBrowser } from '../visits/classify.ts';
import { conditionsInWords, type ConditionType, type Rule, type Variant } from './rule.ts';

/**
 * What a rule is decided on: the request's facts. The edge reads each one only when a condition asks for it
 * (getters on one object, as RedirectFacts); a test passes plain values.
 */
export interface RuleFacts {
  readonly userAgent: string;
  /** The Accept-Language header, '' when absent. */
  readonly acceptLanguage: string;
  /** The request's raw query string (with or without its "?"), '' for none: parsed only when a query condition asks. */
  readonly query: string;
  /** The client's address as the edge trusts it (IPv4, IPv6 or IPv4-mapped IPv6). */
  readonly clientAddress: string;
  /** Upper-case ISO 3166-1 alpha-2; null without a GeoIP database or an answer from it. */
  country(): string | null;
  /** The city's English name; null without a GeoIP database or an answer from it. */
  city(): string | null;
  /** Milliseconds since the epoch. */
  readonly now: number;
}

/**
 * The quality an Accept-Language entry needs for a `language` condition to match it, as Shlink's: the
 * visitor's first choice and its close equals ("de-AT,de;q=0.9"), not every language they can read.
 */
export const MIN_LANGUAGE_QUALITY = 0.9;

/**
 * A link's rules made ready for the redirect, once, when the link is loaded: each condition is a test code in
 * one flat list (`ops`, each rule closed by END) with its value already in the form the test compares
 * (`operands`: a lower-case language range, a query parameter's name, an upper-case country…; `times`: a
 * date's milliseconds). Choosing then reads a few flat arrays instead of an object, an array and a string per
 * rule and condition: on a busy server those are scattered in memory, and reading them cost more than the tests.
 */
export interface RuleProgram {
  /** The rules as set: `chooseRule` answers an index into them. */
  readonly rules: readonly Rule[];
  /** Per rule: its conditions in words, the name the link's stats count its visits under (the `rules` dimension). */
  readonly names: readonly string[];
  readonly ops: Uint8Array;
  /** Per op: its value ('' for none); a `query-param` op's value is in the ARGUMENT slot after it. */
  readonly operands: readonly string[];
  /** Per op: a date condition's time in milliseconds since the epoch (NaN for none or an unreadable date: never a match). */
  readonly times: Float64Array;
}

const END = 0;
const ARGUMENT = 1;
const DEVICE = 2;
const OS = 3;
const BROWSER = 4;
const IN_APP = 5;
const LANGUAGE = 6;
const QUERY_EQUALS = 7;
const QUERY_ANY = 8;
const QUERY_VALUELESS = 9;
const QUERY_ABSENT = 10;
const IP = 11;
const COUNTRY = 12;
const CITY = 13;
const BEFORE = 14;
const AFTER = 15;

const OPS: Readonly<Record<ConditionType, number>> = {
  device: DEVICE,
  os: OS,
  browser: BROWSER,
  'in-app-browser': IN_APP,
  language: LANGUAGE,
  'query-param': QUERY_EQUALS,
  'any-value-query-param': QUERY_ANY,
  'valueless-query-param': QUERY_VALUELESS,
  'query-param-absent': QUERY_ABSENT,
  'ip-address': IP,
  'geolocation-country-code': COUNTRY,
  'geolocation-city-name': CITY,
  'before-date': BEFORE,
  'after-date': AFTER,
};

/** The name a visit to a link with rules is counted under when none of them matched: the link's own target or split. */
export const NO_RULE = 'no rule matched';

/** `rules` (validated, or read back from the store) as a RuleProgram. */
export function compileRules(rules: readonly Rule[]): RuleProgram {
  const ops: number[] = [];
  const operands: string[] = [];
  const times: number[] = [];
  const slot = (op: number, operand = '', time = Number.NaN): void => {
    ops.push(op);
    operands.push(operand);
    times.push(time);
  };
  for (const rule of rules) {
    for (const c of rule.conditions) {
      const op = OPS[c.type];
      const value = c.matchValue ?? '';
      const key = c.matchKey ?? '';
      if (op === BEFORE || op === AFTER) slot(op, '', timeOf(value)?.ms ?? Number.NaN);
      else if (op === QUERY_EQUALS) {
        slot(op, shared(key));
        slot(ARGUMENT, shared(value));
      } else if (op === QUERY_ANY || op === QUERY_VALUELESS || op === QUERY_ABSENT) slot(op, shared(key));
      else if (op === LANGUAGE) slot(op, shared(value.toLowerCase().replaceAll('_', '-')));
      else if (op === COUNTRY) slot(op, shared(value.toUpperCase()));
      else if (op === CITY) slot(op, shared(value.trim().toLowerCase()));
      else slot(op, shared(value));
    }
    slot(END);
  }
  return {
    rules,
    names: rules.map((r) => conditionsInWords(r.conditions)),
    ops: Uint8Array.from(ops),
    operands,
    times: Float64Array.from(times),
  };
}

/**
 * One string for each distinct value the links' rules compare (languages, parameter names, countries repeat
 * from link to link), so that the links' programs share it rather than each holding a copy elsewhere in memory.
 */
const values = new Map<string, string>();

function shared(value: string): string {
  const known = values.get(value);
  if (known !== undefined) return known;
  if (values.size < 10_000) values.set(value, value);
  return value;
}

/**
 * The index of the first of `program`'s rules whose conditions all match the request, or -1 (the link's own
 * target then); with `skipPages`, the first that shows no page. `classify` reads the user agent (the edge passes a
 * cached classifier); each fact is read at most once.
 */
export function chooseRule(
  program: RuleProgram,
  facts: RuleFacts,
  classify: (userAgent: string) => ClientKind = classifyUserAgent,
  skipPages = false,
): number {
  // One AskedFacts for every decision: choosing is synchronous, and a redirect allocates nothing for it.
  const request = asked.ask(facts, classify);
  try {
    const { ops } = program;
    let rule = 0;
    let matched = true;
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      if (op === END) {
        if (matched && !(skipPages && program.rules[rule]!.action.kind === 'page')) return rule;
        rule++;
        matched = true;
      } else if (matched && op !== ARGUMENT) matched = request.passes(op, i, program);
    }
    return -1;
  } finally {
    request.forget();
  }
}

/**
 * The variant of a split a visitor gets, from `hash`, a 32-bit hash of the visitor and the day: the same
 * hash, the same variant, while the weights stay; each unpaused variant gets its weight's share of the hashes.
 * A changed weight moves only the visitors whose share moved. Undefined when every variant is paused.
 */
export function drawVariant(variants: readonly Variant[], hash: number): Variant | undefined {
  let total = 0;
  for (const v of variants) if (!v.paused) total += v.weight;
  // The hash's place in [0, 1) scaled to the total weight, rather than hash % total, so that small changes move few visitors.
  let point = Math.floor(((hash >>> 0) / 2 ** 32) * total);
  for (const v of variants) {
    if (v.paused) continue;
    if (point < v.weight) return v;
    point -= v.weight;
  }
  return undefined;
}

const OS_NAMES: Readonly<Record<string, string>> = {
  Android: 'android',
  iOS: 'ios',
  Windows: 'windows',
  macOS: 'macos',
  Linux: 'linux',
  'Chrome OS': 'chromeos',
  HarmonyOS: 'harmonyos',
  'Windows Phone': 'windows-phone',
};

const BROWSER_NAMES: Readonly<Record<string, string>> = {
  Chrome: 'chrome',
  Chromium: 'chrome',
  Firefox: 'firefox',
  'Microsoft Edge': 'edge',
  Safari: 'safari',
  Opera: 'opera',
  'Android Browser': 'android_browser',
  'Samsung Internet for Android': 'samsung_internet',
};

/** One request as the conditions see it: each fact read and parsed on first use, forgotten after the choice. */
class AskedFacts {
  private kind: ClientKind | undefined;
  private inApp: InAppBrowser | null | undefined;
  private languages: readonly string[] | undefined;
  private params: URLSearchParams | undefined;
  private address: string | undefined;
  private country: string | null | undefined;
  private city: string | null | undefined;
  private now: number | undefined;
  private facts: RuleFacts | undefined;
  private classify: (userAgent: string) => ClientKind = classifyUserAgent;

  ask(facts: RuleFacts, classify: (userAgent: string) => ClientKind): this {
    this.facts = facts;
    this.classify = classify;
    return this;
  }

  forget(): void {
    this.facts = this.kind = this.inApp = this.languages = this.params = undefined;
    this.address = this.country = this.city = this.now = undefined;
  }

  /** Whether the request passes test `op`, the `i`th of `program`. */
  passes(op: number, i: number, program: RuleProgram): boolean {
    const operand = program.operands[i]!;
    switch (op) {
      case DEVICE:
        return this.isDevice(operand);
      case OS:
        return this.os() === operand;
      case BROWSER: {
        const browser = this.client().browser;
        return browser !== null && BROWSER_NAMES[browser] === operand;
      }
      case IN_APP: {
        const app = this.app();
        return app !== null && (operand === 'any' || app === operand);
      }
      case LANGUAGE:
        return this.acceptsLanguage(operand);
      case QUERY_EQUALS: {
        const params = this.query();
        return params !== NO_PARAMS && params.getAll(operand).includes(program.operands[i + 1]!);
      }
      case QUERY_ANY: {
        const params = this.query();
        return params !== NO_PARAMS && params.has(operand);
      }
      case QUERY_VALUELESS: {
        const params = this.query();
        return params !== NO_PARAMS && params.has(operand) && params.getAll(operand).every((v) => v === '');
      }
      case QUERY_ABSENT: {
        const params = this.query();
        return params === NO_PARAMS || !params.has(operand);
      }
      case IP:
        this.address ??= this.facts!.clientAddress;
        return addressMatches(this.address, operand);
      case COUNTRY:
        if (this.country === undefined) this.country = this.facts!.country()?.toUpperCase() ?? null;
        return this.country === operand;
      case CITY:
        if (this.city === undefined) this.city = this.facts!.city()?.toLowerCase() ?? null;
        return this.city === operand;
      case BEFORE:
        this.now ??= this.facts!.now;
        return this.now < program.times[i]!;
      case AFTER:
        this.now ??= this.facts!.now;
        return this.now > program.times[i]!;
      default:
        return false;
    }
  }

  /** `mobile` is a phone or a tablet (Shlink's: iOS and Android, whatever the size); an operating system's name is that system. */
  private isDevice(value: string): boolean {
    const device = this.client().device;
    switch (value) {
      case 'mobile':
        return device === 'mobile' || device === 'tablet';
      case 'tablet':
      case 'desktop':
        return device === value;
      default:
        return this.os() === value;
    }
  }

  /**
   * A language range (lower case, `-` between subtags) matches the visitor's entries it is a prefix of: `de`
   * matches `de-AT`, `de-AT` only `de-AT` (and `de-AT-…`).
   */
  private acceptsLanguage(range: string): boolean {
    this.languages ??= languagesOf(this.facts!.acceptLanguage);
    for (const tag of this.languages)
      if (tag.startsWith(range) && (tag.length === range.length || tag.charCodeAt(range.length) === HYPHEN)) return true;
    return false;
  }

  private client(): ClientKind {
    this.kind ??= this.classify(this.facts!.userAgent);
    return this.kind;
  }

  private os(): string | undefined {
    const os = this.client().os;
    return os === null ? undefined : OS_NAMES[os];
  }

  private app(): InAppBrowser | null {
    if (this.inApp === undefined) this.inApp = inAppBrowser(this.facts!.userAgent);
    return this.inApp;
  }

  private query(): URLSearchParams {
    if (this.params === undefined) {
      const query = this.facts!.query;
      this.params = query === '' || query === '?' ? NO_PARAMS : new URLSearchParams(query);
    }
    return this.params;
  }
}

const asked = new AskedFacts();
const HYPHEN = 0x2d;
/** A request without a query: only ever read. */
const NO_PARAMS = new URLSearchParams();

/**
 * The languages of an Accept-Language header a `language` condition matches (MIN_LANGUAGE_QUALITY), parsed
 * once per distinct header: browsers send few distinct ones. Only headers of a browser's length are kept,
 * so that hostile ones cost the cache at most 1,000 × 256 characters.
 */
const languageLists = new LRUCache<string, readonly string[]>({ max: 1000 });
const CACHED_HEADER = 256;

function languagesOf(acceptLanguage: string): readonly string[] {
  let languages = languageLists.get(acceptLanguage);
  if (languages === undefined) {
    languages = acceptedLanguages(acceptLanguage, MIN_LANGUAGE_QUALITY);
    if (acceptLanguage.length <= CACHED_HEADER) languageLists.set(acceptLanguage, languages);
  }
  return languages;
}

/** An `ip-address` condition's static address or range, built once per distinct value. */
const ranges = new Map<string, BlockList>();

/**
 * Whether `address` is the condition's address, in its CIDR range, or fits its IPv4 pattern (`1.2.*.*`: each
 * `*` any octet). An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) is its IPv4 address.
 */
function addressMatches(address: string, pattern: string): boolean {
  const version = isIP(address);
  if (version === 0) return false;
  if (pattern.includes('*')) {
    const v4 = version === 4 ? address : MAPPED.exec(address)?.[1];
    if (v4 === undefined) return false;
    const octets = v4.split('.');
    return pattern.split('.').every((part, i) => part === '*' || Number(part) === Number(octets[i]));
  }
  let list = ranges.get(pattern);
  if (list === undefined) {
    list = new BlockList();
    const [base = '', prefix] = pattern.split('/');
    const family = isIP(base) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(base, family);
    else list.addSubnet(base, Number(prefix), family);
    if (ranges.size < 10_000) ranges.set(pattern, list);
  }
  return list.check(address, version === 6 ? 'ipv6' : 'ipv4');
}

const MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;
