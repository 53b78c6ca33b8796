import { isIP } from 'node:net';
import { PackedSet } from './packed-set.ts';

/**
 * One blocklist file, parsed. Every line is read on its own, so one file may mix the formats:
 * - hosts files (`0.0.0.0 evil.example`, several names a line): each name is blocked exactly, as a
 *   resolver reads it; `localhost` and the like are skipped;
 * - domain lists (`evil.example`, `*.evil.example`, `.evil.example`) and Adblock's `||evil.example^`: the
 *   domain and all its subdomains, as `denyDomains` does;
 * - URL lists (`http://evil.example/x.exe`, URLhaus's text lists) and URLhaus's CSV dumps (the third,
 *   quoted field): that URL, however it is spelled (comparableUrl), its fragment dropped;
 * - a bare IP address: that address.
 * `#` starts a comment (at the start of a line, or after a space), as does `!` at the start of a line.
 */
export interface BlocklistFile {
  /** The file's name without its folder: what messages, the log and the UI show. */
  name: string;
  hosts: PackedSet;
  domains: PackedSet;
  urls: PackedSet;
  /** Lines that held no entry kurz understands; the first few in `samples`. */
  invalid: number;
  samples: InvalidLine[];
}

export interface InvalidLine {
  line: number;
  text: string;
  reason: string;
}

/** Every configured file, in order; a target is checked against each. */
export interface Blocklist {
  files: readonly BlocklistFile[];
}

export const EMPTY_BLOCKLIST: Blocklist = Object.freeze({ files: [] });

/** Where the blocklist in force is read at every check: a reload replaces `current` as a whole. */
export interface BlocklistSource {
  readonly current: Blocklist;
}

/** What a listed target matched: the entry, its kind, and the file it came from. */
export interface BlocklistMatch {
  kind: 'host' | 'domain' | 'url';
  rule: string;
  list: string;
}

/** Invalid lines kept as examples for the log; the rest are only counted. */
const SAMPLES = 5;

/** Names every hosts file maps to the machine itself: not blocked, not invalid. */
const LOCAL_NAMES: ReadonlySet<string> = new Set([
  'localhost',
  'localhost.localdomain',
  'local',
  'broadcasthost',
  'ip6-localhost',
  'ip6-loopback',
  'ip6-localnet',
  'ip6-mcastprefix',
  'ip6-allnodes',
  'ip6-allrouters',
  'ip6-allhosts',
  '0.0.0.0',
]);

/** A host name already in lower-case ASCII: the common case, checked without the URL parser. */
const ASCII_NAME = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/;
/** Characters no host name holds: a token with one is a path, a port or a URL without its scheme. */
const NOT_IN_NAME = /[/:@?#\\[\]%\s"'<>^|*$]/;
const ADBLOCK = /^\|\|([^/^$|*]+)\^?$/;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const SINGLE_LABEL = 'a single label would block a whole top-level domain';

/** Parses one file (its bytes, or its text); `name` is what matches report. Never throws: a line it cannot read is counted in `invalid`. */
export function parseBlocklist(content: Buffer | string, name: string): BlocklistFile {
  const parser = blocklistParser(name);
  for (const line of linesOf(typeof content === 'string' ? Buffer.from(content) : content)) parser.line(line);
  return parser.result();
}

/**
 * A file's lines, without a byte order mark, each decoded on its own: no string of the whole file, which
 * would be megabytes for the collector to move to its old generation at every reload.
 */
export function* linesOf(bytes: Buffer): Generator<string> {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  for (let start = bom ? 3 : 0; start <= bytes.length;) {
    const newline = bytes.indexOf(10, start);
    const end = newline === -1 ? bytes.length : newline;
    yield bytes.toString('utf8', start, end);
    start = end + 1;
  }
}

/** A parser fed one line at a time (so that a large file can be read between other work), then asked for the result. */
export function blocklistParser(name: string): { line(raw: string): void; result(): BlocklistFile } {
  const hosts = new PackedSet();
  const domains = new PackedSet();
  const urls = new PackedSet();
  const samples: InvalidLine[] = [];
  let invalid = 0;
  let lineNo = 0;

  const refuse = (raw: string, reason: string): void => {
    invalid++;
    const shown = raw.trim();
    if (samples.length < SAMPLES) samples.push({ line: lineNo, text: shown.length > 200 ? `${shown.slice(0, 200)}…` : shown, reason });
  };

  const addHost = (token: string, raw: string): void => {
    const host = hostName(token) ?? (isIP(token) !== 0 ? addressName(token) : undefined);
    if (host === undefined) refuse(raw, `"${token}" is not a host name`);
    else if (LOCAL_NAMES.has(host)) return;
    else if (!host.includes('.') && isIP(host) === 0) refuse(raw, SINGLE_LABEL);
    else hosts.add(host);
  };

  const addUrl = (text: string, raw: string): void => {
    const url = listedUrl(text);
    if (url === undefined) refuse(raw, 'not an http(s) URL');
    else urls.add(url);
  };

  const addDomain = (token: string, raw: string, reason: string): void => {
    const domain = hostName(token);
    if (domain === undefined) refuse(raw, reason);
    else if (LOCAL_NAMES.has(domain)) return;
    else if (!domain.includes('.')) refuse(raw, SINGLE_LABEL);
    else domains.add(domain);
  };

  function line(raw: string): void {
    lineNo++;
    const text = withoutComment(raw);
    if (text === '') return;
    const first = text.charCodeAt(0);
    // Adblock's comments and its [Adblock Plus 2.0] header
    if (first === 33 /* ! */ || first === 91 /* [ */) return;
    if (first === 34 /* " */) {
      const url = csvUrl(text);
      if (url === undefined) refuse(raw, 'a CSV line without a URL in its third field (URLhaus: "id","dateadded","url",…)');
      else addUrl(url, raw);
      return;
    }
    if (text.startsWith('||')) {
      addDomain(ADBLOCK.exec(text)?.[1] ?? '', raw, 'only Adblock rules of the form ||domain^ are read (no paths, wildcards or $options)');
      return;
    }
    if (SCHEME.test(text)) {
      if (/\s/.test(text)) refuse(raw, 'a URL line holds one URL and nothing else');
      else addUrl(text, raw);
      return;
    }
    const tokens = /\s/.test(text) ? text.split(/\s+/) : [text];
    const head = tokens[0] ?? '';
    if (tokens.length > 1) {
      if (!isAddress(head)) refuse(raw, 'a line of several names is a hosts line, which starts with an IP address (0.0.0.0 evil.example)');
      else for (let i = 1; i < tokens.length; i++) addHost(tokens[i] ?? '', raw);
      return;
    }
    if (isIP(head) !== 0) {
      const address = addressName(head);
      if (address === undefined) refuse(raw, 'not an IP address');
      else hosts.add(address);
      return;
    }
    const bare = head.startsWith('*.') ? head.slice(2) : head.startsWith('.') ? head.slice(1) : head;
    addDomain(bare, raw, 'not a domain name, a hosts line or an http(s) URL');
  }

  return { line, result: () => ({ name, hosts: hosts.trim(), domains: domains.trim(), urls: urls.trim(), invalid, samples }) };
}

/**
 * The entry a target is listed under, or undefined. `href` is a target as url-rules normalises it.
 * A URL entry is checked first, then the host exactly, then each domain the host belongs to, in every file:
 * O(labels) set lookups.
 */
export function matchBlocklist(list: Blocklist, href: string): BlocklistMatch | undefined {
  if (list.files.length === 0) return undefined;
  const url = URL.parse(href);
  if (!url) return undefined;
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  const address = host.startsWith('[') || isIP(host) !== 0;
  // The URL's one spelling costs more than the rest of the check: made only for a file that lists URLs.
  let bare: string | undefined;
  for (const file of list.files) {
    if (file.urls.size > 0 && file.urls.has((bare ??= comparableUrl(url)))) return { kind: 'url', rule: bare, list: file.name };
    if (file.hosts.has(host)) return { kind: 'host', rule: host, list: file.name };
    if (address) continue;
    for (let at = 0; at !== -1;) {
      if (file.domains.has(host, at)) return { kind: 'domain', rule: host.slice(at), list: file.name };
      const dot = host.indexOf('.', at);
      at = dot === -1 ? -1 : dot + 1;
    }
  }
  return undefined;
}

/** Why a target is refused, naming the entry and its file (never the file's folder). */
export function listedMessage(match: BlocklistMatch, hostname: string): string {
  if (match.kind === 'url') return `url is on a blocklist (in ${match.list})`;
  if (match.kind === 'host') return `url's host "${match.rule}" is on a blocklist (in ${match.list})`;
  return `url's domain "${hostname}" is on a blocklist (rule "${match.rule}" in ${match.list})`;
}

/** The entries of a parsed file, by kind. */
export function entryCounts(file: BlocklistFile): { hosts: number; domains: number; urls: number } {
  return { hosts: file.hosts.size, domains: file.domains.size, urls: file.urls.size };
}

/** Whether `token` is an IP address; the sinks hosts files use are recognised without the (slow) general check. */
function isAddress(token: string): boolean {
  return token === '0.0.0.0' || token === '127.0.0.1' || isIP(token) !== 0;
}

/** A line without its comment: from a `#` at its start or after white space. */
function withoutComment(raw: string): string {
  const line = raw.trim();
  if (line.charCodeAt(0) === 35 /* # */) return '';
  if (!line.includes('#')) return line;
  const hash = line.search(/\s#/);
  return hash === -1 ? line : line.slice(0, hash).trimEnd();
}

/** A host name as targets carry it (lower case, IDN as punycode, no trailing dot), or undefined if it is none. */
function hostName(token: string): string | undefined {
  const name = (token.endsWith('.') ? token.slice(0, -1) : token).toLowerCase();
  if (name === '' || name.length > 253) return undefined;
  if (ASCII_NAME.test(name)) return name;
  if (NOT_IN_NAME.test(name)) return undefined;
  const host = URL.parse(`http://${name}/`)?.hostname;
  return host && ASCII_NAME.test(host) ? host : undefined;
}

/** An IP address as a URL's hostname spells it (`[::1]` for IPv6). */
function addressName(token: string): string | undefined {
  return URL.parse(`http://${isIP(token) === 6 ? `[${token}]` : token}/`)?.hostname;
}

/** A listed URL as comparableUrl spells it; undefined unless http(s). */
function listedUrl(text: string): string | undefined {
  const url = URL.parse(text);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return undefined;
  return comparableUrl(url);
}

/** Characters RFC 3986 calls unreserved: the same URL whether written as themselves or percent-encoded. */
const UNRESERVED = /[A-Za-z0-9._~-]/;

/**
 * The one spelling of a URL that a URL entry and a target are compared in, so that writing it otherwise does
 * not slip past the list: the WHATWG serialisation (lower-case scheme and host, punycode, no default port,
 * `/` for an empty path) without the fragment, the host's trailing dot or an empty query, with unreserved
 * characters decoded and other escapes in upper case. The path and query keep their case. Changes `url`.
 */
export function comparableUrl(url: URL): string {
  url.hash = '';
  if (url.hostname.endsWith('.')) url.hostname = url.hostname.slice(0, -1);
  if (url.search === '') url.search = '';
  url.pathname = unescapeUnreserved(url.pathname);
  if (url.search !== '') url.search = unescapeUnreserved(url.search);
  return url.href;
}

function unescapeUnreserved(part: string): string {
  if (!part.includes('%')) return part;
  return part.replace(/%([0-9A-Fa-f]{2})/g, (escape: string, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : escape.toUpperCase();
  });
}

/** The third field of a URLhaus CSV line (`"id","dateadded","url",…`), unquoted; undefined when there is none. */
function csvUrl(line: string): string | undefined {
  const fields: string[] = [];
  for (let at = 0; at < line.length && fields.length < 3;) {
    if (line[at] !== '"') return undefined;
    let value = '';
    let i = at + 1;
    for (;;) {
      const close = line.indexOf('"', i);
      if (close === -1) return undefined;
      value += line.slice(i, close);
      if (line[close + 1] === '"') {
        value += '"';
        i = close + 2;
        continue;
      }
      at = close + 1;
      break;
    }
    fields.push(value);
    if (line[at] === ',') at++;
    else if (at < line.length) return undefined;
  }
  const url = fields[2];
  return url !== undefined && SCHEME.test(url) ? url : undefined;
}
