import Bowser from 'bowser';
import { isbot } from 'isbot';
import { LRUCache } from 'lru-cache';

/** The kind of device a browser runs on; 'other' when the user agent does not say. */
export type Device = 'desktop' | 'mobile' | 'tablet' | 'tv' | 'other';

/** What a user-agent string says about a visitor. A bot has bot set and nothing else. */
export interface ClientKind {
  bot: string | null;
  browser: string | null;
  os: string | null;
  device: Device | null;
}

/** Longest prefix of a user agent that is looked at, so a hostile header costs no more than a real one. */
const MAX_LENGTH = 512;

/**
 * Fetchers kurz promises to recognise, by the name shown in stats; first match wins, so the more
 * specific patterns come first (iMessage sends facebookexternalhit and Twitterbot, Telegram says TwitterBot).
 */
const KNOWN_BOTS: ReadonlyArray<readonly [name: string, pattern: RegExp]> = [
  ['Apple', /applebot|facebookexternalhit\/1\.1 facebot twitterbot\/1\.0/i],
  ['Telegram', /telegrambot/i],
  ['Slack', /slackbot|slack-imgproxy/i],
  ['Discord', /discordbot/i],
  ['WhatsApp', /whatsapp/i],
  ['Facebook', /facebookexternalhit|facebookcatalog|facebot|meta-externalagent/i],
  ['X', /twitterbot/i],
  ['LinkedIn', /linkedinbot/i],
  ['Microsoft Teams', /skypeuripreview|microsoftpreview/i],
  ['Mastodon', /mastodon\//i],
  ['Google', /googlebot|google-inspectiontool|googleother|adsbot-google|mediapartners-google|feedfetcher-google|storebot-google/i],
  ['Bing', /bingbot|bingpreview|adidxbot/i],
  ['DuckDuckGo', /duckduckbot|duckduckgo-favicons-bot/i],
  ['Yandex', /yandexbot|yandexmobilebot|yandeximages/i],
  ['Baidu', /baiduspider/i],
  ['UptimeRobot', /uptimerobot/i],
  ['Pingdom', /pingdom/i],
  ['StatusCake', /statuscake/i],
  ['Better Stack', /better ?uptime|better ?stack/i],
  ['Site24x7', /site24x7/i],
  ['Datadog Synthetics', /datadog ?\/?synthetics/i],
  ['Uptime Kuma', /uptime-kuma/i],
  ['HetrixTools', /hetrixtools/i],
];

/**
 * The fetchers of KNOWN_BOTS that draw a card for a link in a chat or a feed: a link with a social preview
 * shows them its card instead of the redirect. Search engines and monitors are not among them: they follow
 * the redirect, so that the target is what is indexed and what a monitor checks.
 */
const PREVIEW_FETCHERS: ReadonlySet<string> = new Set([
  'Apple',
  'Telegram',
  'Slack',
  'Discord',
  'WhatsApp',
  'Facebook',
  'X',
  'LinkedIn',
  'Microsoft Teams',
  'Mastodon',
]);

/** Whether a user agent is a link-preview fetcher of a chat app or social network (PREVIEW_FETCHERS). */
export function isPreviewFetcher(userAgent: string): boolean {
  const ua = userAgent.slice(0, MAX_LENGTH).trim();
  const known = KNOWN_BOTS.find(([, pattern]) => pattern.test(ua));
  return known !== undefined && PREVIEW_FETCHERS.has(known[0]);
}

/** Product tokens every browser sends; they name no bot. */
const BROWSER_TOKENS = new Set(['mozilla', 'applewebkit', 'gecko', 'chrome', 'safari', 'version', 'mobile', 'firefox']);

const LEADING_TOKEN = /^[A-Za-z][\w.-]*/;
const PRODUCT = /([A-Za-z][\w.-]*)\/\d/g;
const MAX_NAME = 40;

/** Browser names bowser knows; its last resort instead echoes the start of the user agent, which names nothing. */
const KNOWN_BROWSERS = new Set(Object.values(Bowser.BROWSER_MAP));

const DEVICES: Readonly<Record<string, Device>> = { desktop: 'desktop', mobile: 'mobile', tablet: 'tablet', tv: 'tv' };

/** The in-app browsers kurz tells apart: an app's own web view, which often blocks downloads or rewrites redirects. */
export const IN_APP_BROWSERS = [
  'wechat',
  'instagram',
  'facebook',
  'tiktok',
  'line',
  'linkedin',
  'snapchat',
  'telegram',
  'x',
  'pinterest',
] as const;
export type InAppBrowser = (typeof IN_APP_BROWSERS)[number];

/**
 * The marks each app adds to its web view's user agent; first match wins, so Instagram (whose web view is
 * Meta's too) comes before Facebook, whose marks (FBAN, FBAV, FB_IAB) Messenger shares.
 */
const IN_APP_MARKS: ReadonlyArray<readonly [InAppBrowser, RegExp]> = [
  ['wechat', /MicroMessenger\//i],
  ['instagram', /\bInstagram [\d.]+/],
  ['facebook', /\bFBAN\/|\bFBAV\/|\bFB_IAB\/|\bFBIOS\b/],
  ['tiktok', /\bmusical_ly|\bBytedanceWebview\/|\btrill_\d|\bTikTok\/\d/i],
  ['line', / Line\/\d/],
  ['linkedin', /\bLinkedInApp\b/i],
  ['snapchat', /\bSnapchat\/\d/i],
  ['telegram', /\bTelegram-Android\/\d/i],
  ['x', /\bTwitterAndroid\b|\bTwitter for iP(?:hone|ad)\//],
  ['pinterest', /\bPinterest(?:\/|\s?for\s?(?:iOS|Android))|\[Pinterest\//i],
];

/** The app whose in-app browser sent a user agent, or null for a browser of its own (and for a bot: its preview fetcher is no web view). */
export function inAppBrowser(userAgent: string): InAppBrowser | null {
  const ua = userAgent.slice(0, MAX_LENGTH);
  const mark = IN_APP_MARKS.find(([, pattern]) => pattern.test(ua));
  if (mark === undefined || botName(ua.trim()) !== null) return null;
  return mark[0];
}

/** Classifies one user agent (bowser for browsers, isbot for bots, plus kurz's own table of preview fetchers). */
export function classifyUserAgent(userAgent: string): ClientKind {
  const ua = userAgent.slice(0, MAX_LENGTH).trim();
  const name = botName(ua);
  if (name !== null) return Object.freeze({ bot: name, browser: null, os: null, device: null });

  const parser = Bowser.getParser(ua, true);
  const browserName = parser.getBrowserName();
  const browser = browserName !== '' && (KNOWN_BROWSERS.has(browserName) || !ua.startsWith(browserName)) ? browserName : null;
  const platform = parser.getPlatformType();
  const os = parser.getOSName() || null;
  // bowser leaves Chromebooks without a platform type
  const device = DEVICES[platform] ?? (os === 'Chrome OS' ? 'desktop' : 'other');
  return Object.freeze({ bot: null, browser, os, device });
}

/** Whether a user agent is a bot (or absent): classifyUserAgent's verdict, without the cost of parsing a browser. */
export function isBot(userAgent: string): boolean {
  return botName(userAgent.slice(0, MAX_LENGTH).trim()) !== null;
}

/**
 * isBot behind an LRU cache of `size` distinct user agents: the redirect asks it for every visit of a gated
 * link, and a handful of browsers' strings repeat. A string longer than what is classified is not kept.
 */
export function cachedBotCheck(size: number): (userAgent: string) => boolean {
  const cache = new LRUCache<string, boolean>({ max: size });
  return (userAgent) => {
    let bot = cache.get(userAgent);
    if (bot === undefined) {
      bot = isBot(userAgent);
      if (userAgent.length <= MAX_LENGTH) cache.set(userAgent, bot);
    }
    return bot;
  };
}

/** isPreviewFetcher behind an LRU cache of `size` distinct user agents, as cachedBotCheck: a link with a preview asks it for every visit. */
export function cachedPreviewCheck(size: number): (userAgent: string) => boolean {
  const cache = new LRUCache<string, boolean>({ max: size });
  return (userAgent) => {
    let fetcher = cache.get(userAgent);
    if (fetcher === undefined) {
      fetcher = isPreviewFetcher(userAgent);
      if (userAgent.length <= MAX_LENGTH) cache.set(userAgent, fetcher);
    }
    return fetcher;
  };
}

/** classifyUserAgent behind an LRU cache (lru-cache, already a dependency) of `size` distinct strings. */
export function cachedClassifier(size: number): (userAgent: string) => ClientKind {
  const cache = new LRUCache<string, ClientKind>({ max: size });
  return (userAgent) => {
    const key = userAgent.slice(0, MAX_LENGTH);
    let kind = cache.get(key);
    if (kind === undefined) {
      kind = classifyUserAgent(key);
      cache.set(key, kind);
    }
    return kind;
  };
}

/** The host a Referer header names, lower case, without a leading "www."; null when absent, not http(s), or unparsable. */
export function referrerHost(referrer: string): string | null {
  const url = URL.parse(referrer.trim());
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null;
  const host = url.hostname.startsWith('www.') ? url.hostname.slice(4) : url.hostname;
  return host === '' ? null : host;
}

const LANGUAGE_TAG = /^([a-z]{2,3})(?:-|$)/i;
const QUALITY = /^\s*q\s*=\s*(.*?)\s*$/i;
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The primary language subtag of an Accept-Language header's most preferred entry ("de-CH,de;q=0.9" → "de"), lower case; null for none, "*" or junk. */
export function primaryLanguage(acceptLanguage: string): string | null {
  let best: string | null = null;
  let bestQuality = 0;
  for (const entry of acceptLanguage.split(',')) {
    const [tag = '', ...params] = entry.split(';');
    const primary = LANGUAGE_TAG.exec(tag.trim())?.[1];
    if (primary === undefined) continue;
    const q = quality(params);
    if (q > bestQuality) {
      best = primary.toLowerCase();
      bestQuality = q;
    }
  }
  return best;
}

/** Most language entries of an Accept-Language header that are read, so a hostile header costs no more than a real one. */
const MAX_LANGUAGES = 32;

/**
 * The language ranges of an Accept-Language header whose quality is at least `minQuality` (above 0), in
 * the header's order, lower case with "_" read as "-" ("de-CH,de;q=0.9" → ["de-ch", "de"]); "*" and junk left out.
 */
export function acceptedLanguages(acceptLanguage: string, minQuality: number): string[] {
  const found: string[] = [];
  for (const entry of acceptLanguage.split(',', MAX_LANGUAGES)) {
    const semicolon = entry.indexOf(';');
    const range = LANGUAGE_RANGE.exec(semicolon === -1 ? entry : entry.slice(0, semicolon))?.[1];
    if (range === undefined) continue;
    const q = semicolon === -1 ? 1 : quality(entry.slice(semicolon + 1).split(';'));
    if (q > 0 && q >= minQuality) found.push(range.toLowerCase().replaceAll('_', '-'));
  }
  return found;
}

const LANGUAGE_RANGE = /^\s*([a-z]{1,8}(?:[-_][a-z0-9]{1,8})*)\s*$/i;

/** An entry's q parameter, 1 when absent; a malformed one counts as 0 so the entry is ignored. */
function quality(params: string[]): number {
  for (const param of params) {
    const value = QUALITY.exec(param)?.[1];
    if (value !== undefined) return QVALUE.test(value) ? Number(value) : 0;
  }
  return 1;
}

/** The bot a trimmed user agent names, or null for a browser. */
function botName(ua: string): string | null {
  if (ua === '') return 'No user agent';
  const known = KNOWN_BOTS.find(([, pattern]) => pattern.test(ua));
  if (known) return known[0];
  return isbot(ua) ? productName(ua) : null;
}

/** A bot's own name: its first product token ("curl/8.5.0" → "curl"), skipping the Mozilla boilerplate. */
function productName(ua: string): string {
  const leading = LEADING_TOKEN.exec(ua)?.[0];
  if (leading !== undefined && !BROWSER_TOKENS.has(leading.toLowerCase())) return leading.slice(0, MAX_NAME);
  for (const [, name = ''] of ua.matchAll(PRODUCT)) {
    if (!BROWSER_TOKENS.has(name.toLowerCase())) return name.slice(0, MAX_NAME);
  }
  return 'Other bot';
}
