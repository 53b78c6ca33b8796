import { BlockList, isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import { timeOf } from '../links/times.ts';
import { acceptedLanguages, classifyUserAgent, inAppBrowser, type ClientKind, type InAppBrowser } from '../visits/classify.ts';
import type { Condition, Rule, Variant } from './rule.ts';

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
 * The first of `rules` whose conditions all match the request, or undefined (the link's own target then).
 * `classify` reads the user agent (the edge passes a cached classifier); each fact is read at most once.
 */
export function chooseRule(
  rules: readonly Rule[],
  facts: RuleFacts,
  classify: (userAgent: string) => ClientKind = classifyUserAgent,
): Rule | undefined {
  // One AskedFacts for every decision: choosing is synchronous, and a redirect allocates nothing for it.
  const request = asked.ask(facts, classify);
  try {
    for (const rule of rules) if (request.matchesAll(rule.conditions)) return rule;
    return undefined;
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

  matchesAll(conditions: readonly Condition[]): boolean {
    for (const condition of conditions) if (!this.matches(condition)) return false;
    return true;
  }

  matches(c: Condition): boolean {
    const value = c.matchValue ?? '';
    const key = c.matchKey ?? '';
    switch (c.type) {
      case 'device':
        return this.isDevice(value);
      case 'os':
        return this.os() === value;
      case 'browser': {
        const browser = this.client().browser;
        return browser !== null && BROWSER_NAMES[browser] === value;
      }
      case 'in-app-browser': {
        const app = this.app();
        return app !== null && (value === 'any' || app === value);
      }
      case 'language':
        return this.acceptsLanguage(value);
      case 'query-param':
        return this.query().getAll(key).includes(value);
      case 'any-value-query-param':
        return this.query().has(key);
      case 'valueless-query-param':
        return (
          this.query().has(key) &&
          this.query()
            .getAll(key)
            .every((v) => v === '')
        );
      case 'query-param-absent':
        return !this.query().has(key);
      case 'ip-address':
        this.address ??= this.facts!.clientAddress;
        return addressMatches(this.address, value);
      case 'geolocation-country-code':
        if (this.country === undefined) this.country = this.facts!.country()?.toUpperCase() ?? null;
        return this.country === value.toUpperCase();
      case 'geolocation-city-name':
        if (this.city === undefined) this.city = this.facts!.city()?.toLowerCase() ?? null;
        return this.city === value.trim().toLowerCase();
      case 'before-date':
        this.now ??= this.facts!.now;
        return this.now < timeAt(value);
      case 'after-date':
        this.now ??= this.facts!.now;
        return this.now > timeAt(value);
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

  /** A language range matches the visitor's entries it is a prefix of: `de` matches `de-AT`, `de-AT` only `de-AT` (and `de-AT-…`). */
  private acceptsLanguage(value: string): boolean {
    this.languages ??= languagesOf(this.facts!.acceptLanguage);
    const lower = value.toLowerCase();
    const range = lower.includes('_') ? lower.replaceAll('_', '-') : lower;
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

/** A date condition's time, read once per distinct value. */
const times = new Map<string, number>();

function timeAt(value: string): number {
  let ms = times.get(value);
  if (ms === undefined) {
    ms = timeOf(value)?.ms ?? Number.NaN;
    if (times.size < 10_000) times.set(value, ms);
  }
  return ms;
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
