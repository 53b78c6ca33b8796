import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Config } from '../config.ts';
import { AppError } from '../core/errors.ts';
import { codePoint, controlCharacter, unicodeProblem } from './text-rules.ts';
import { EMPTY_BLOCKLIST, listedMessage, matchBlocklist, type BlocklistSource } from '../blocklist/blocklist.ts';

/** Where the server listens. It updates this object once it knows: a configured port 0 becomes the real one. */
export interface Listening {
  port: number;
  addresses: readonly string[];
}

export interface UrlRules {
  readonly maxLength: number;
  /** Hostname of publicUrl, normalised: targets there are refused on any port so links cannot loop. */
  readonly publicHost: string;
  /** Read at every check, never copied, so the server's update after listen is seen. */
  readonly listening: Readonly<Listening>;
  /** Only these domains and their subdomains are accepted (punycode); empty = any. */
  readonly allowDomains: readonly string[];
  /** These domains and their subdomains are refused (punycode), whatever allowDomains says. */
  readonly denyDomains: readonly string[];
  /** Targets on the blocklist in force are refused; read at every check, so that a reload is seen at once. */
  readonly blocklist: BlocklistSource;
}

/**
 * The rules for targets submitted to this instance; without `listening`, it listens on config.host:config.port;
 * without `blocklist`, nothing is listed.
 */
export function urlRules(
  config: Pick<Config, 'maxUrlLength' | 'publicUrl' | 'host' | 'port' | 'allowDomains' | 'denyDomains'>,
  listening?: Listening,
  blocklist: BlocklistSource = { current: EMPTY_BLOCKLIST },
): UrlRules {
  return {
    maxLength: config.maxUrlLength,
    publicHost: normaliseHostname(new URL(config.publicUrl).hostname),
    listening: listening ?? { port: config.port, addresses: [config.host] },
    allowDomains: domainList(config.allowDomains),
    denyDomains: domainList(config.denyDomains),
    blocklist,
  };
}

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:']);

/** Addresses that reach this machine itself, whatever port kurz listens on (IPv4-mapped forms match too). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('0.0.0.0', 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addAddress('::', 'ipv6');

const WILDCARD = new BlockList();
WILDCARD.addAddress('0.0.0.0', 'ipv4');
WILDCARD.addAddress('::', 'ipv6');

/**
 * Validates a submitted target and returns its normalised form (WHATWG serialisation: lower-case
 * scheme and host, IDN as punycode, default port dropped): its scheme, that it does not lead back here,
 * the domain lists, and the blocklist. `loopback` lets it name this machine on another port (a webhook's
 * receiver, with webhookAllowPrivate). Throws AppError('invalid', …, 'url').
 */
export function normaliseUrl(input: unknown, rules: UrlRules, { loopback = false }: { loopback?: boolean } = {}): string {
  if (input === undefined || input === null) throw invalid('url is required');
  if (typeof input !== 'string') throw invalid(`url must be a string, got ${typeof input === 'object' ? 'an object' : typeof input}`);
  const trimmed = input.trim();
  if (trimmed === '') throw invalid('url is required');
  if (trimmed.length > rules.maxLength) throw invalid(`url is longer than ${rules.maxLength} characters`);
  // The URL parser drops tabs and line breaks inside silently, and turns a lone surrogate into U+FFFD:
  // what would be stored is not what was sent.
  const control = controlCharacter(trimmed);
  if (control !== undefined) throw invalid(`url must not contain control characters (found ${codePoint(control)})`);
  const unicode = unicodeProblem(trimmed);
  if (unicode) throw invalid(`url ${unicode}`);
  const url = URL.parse(trimmed);
  if (!url) {
    throw invalid(
      /^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? 'url is not a valid URL' : 'url must be absolute, starting with http:// or https://',
    );
  }
  if (!ALLOWED_PROTOCOLS.has(url.protocol)) throw invalid(`url must use http or https, not ${url.protocol.slice(0, -1)}`);
  if (url.hostname === '') throw invalid('url has no host');
  if (url.username !== '' || url.password !== '') throw invalid('url must not contain a user name or password');
  const hostname = normaliseHostname(url.hostname);
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (leadsBack(hostname, port, rules, loopback)) throw invalid(`url leads back to this kurz instance (${hostname})`);
  const denied = matchingRule(hostname, rules.denyDomains);
  if (denied !== undefined) throw invalid(`url's domain "${hostname}" is refused by denyDomains rule "${denied}"`);
  if (rules.allowDomains.length > 0 && matchingRule(hostname, rules.allowDomains) === undefined) {
    throw invalid(`url's domain "${hostname}" is not in allowDomains (${rules.allowDomains.join(', ')})`);
  }
  const href = url.href;
  if (href.length > rules.maxLength) throw invalid(`url is longer than ${rules.maxLength} characters once normalised`);
  refuseListed(href, rules);
  return href;
}

/**
 * Throws AppError('invalid', …, 'url') when the blocklist in force lists `href` (a normalised target). The
 * writes that store a target call it again inside their transaction, so that a reload between the check and
 * the write cannot let a listed target in.
 */
export function refuseListed(href: string, rules: UrlRules): void {
  const listed = matchBlocklist(rules.blocklist.current, href);
  if (listed) throw invalid(listedMessage(listed, normaliseHostname(URL.parse(href)?.hostname ?? '')));
}

/** Whether host:port reaches this instance: its public host, a loopback name on any port (unless `loopback`), a listen address on the listen port. */
function leadsBack(hostname: string, port: number, rules: UrlRules, loopback: boolean): boolean {
  if (sameHost(hostname, rules.publicHost)) return true;
  if (!loopback && (hostname === 'localhost' || hostname.endsWith('.localhost'))) return true;
  const address = unbracket(hostname);
  if (!loopback && isIP(address) !== 0 && LOOPBACK.check(address, family(address))) return true;
  const { port: listenPort, addresses } = rules.listening;
  if (listenPort === 0 || port !== listenPort) return false;
  return addresses.some((listen) =>
    isIP(listen) !== 0 && WILDCARD.check(listen, family(listen))
      ? interfaceAddresses().some((a) => sameHost(hostname, a))
      : sameHost(hostname, normaliseHostname(listen)),
  );
}

/** The first rule that `hostname` is, or is a subdomain of; an IP address matches only a rule that is the same address. */
function matchingRule(hostname: string, rules: readonly string[]): string | undefined {
  if (isIP(unbracket(hostname)) !== 0) return rules.find((rule) => sameHost(hostname, rule));
  return rules.find((rule) => hostname === rule || hostname.endsWith('.' + rule));
}

/** Equal names, or the same IP address however spelled (`[::ffff:7f00:1]` is 127.0.0.1); brackets optional. */
function sameHost(a: string, b: string): boolean {
  if (a === b) return true;
  const [x, y] = [unbracket(a), unbracket(b)];
  if (isIP(x) === 0 || isIP(y) === 0) return false;
  const list = new BlockList();
  list.addAddress(y, family(y));
  return list.check(x, family(x));
}

function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/** Lower case, without the trailing dot that names the same host (`KURZ.test.` = `kurz.test`). */
function normaliseHostname(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '');
}

function unbracket(hostname: string): string {
  return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
}

function family(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 6 ? 'ipv6' : 'ipv4';
}

function domainList(list: string): string[] {
  return list === '' ? [] : list.split(',');
}

function invalid(message: string): AppError {
  return new AppError('invalid', message, 'url');
}
