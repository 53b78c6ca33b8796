import { readFileSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { dirname, join } from 'node:path';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';
import { LEVELS, LOG_FORMATS, type Level, type LogFormat } from './core/log.ts';
import { HIDDEN, hasPassword, redactUrl } from './core/redact.ts';

export type CodeMode = 'obfuscated' | 'sequential';
export type RedirectStatus = 301 | 302 | 307 | 308;
/** What an acknowledged write survives on SQLite: a power cut (`full`) or only a crash of kurz (`process`). */
export type Durability = 'full' | 'process';
/** Whose new links wait for an admin's review: nobody's, anonymous creators', or everyone's but the admins'. */
export type ReviewNewLinks = 'off' | 'anonymous' | 'members';
/** The one header a trusted proxy names the client in. */
export type ClientAddressHeader = 'x-forwarded-for' | 'forwarded';

/** The whole configuration, read once at start, frozen and passed down in `deps`. */
export interface Config {
  readonly config: string;
  readonly host: string;
  readonly port: number;
  readonly db: string;
  readonly durability: Durability;
  readonly unknownHosts: 'default' | 'refuse';
  readonly databaseUrl: string;
  readonly idBlockSize: number;
  readonly workers: number;
  readonly publicUrl: string;
  readonly codeLength: number;
  readonly codeMode: CodeMode;
  readonly codeOffset: number;
  readonly redirectStatus: RedirectStatus;
  readonly cacheSize: number;
  readonly negativeCacheTtl: number;
  readonly dedupeWindow: number;
  readonly maxUrlLength: number;
  readonly visitFlushInterval: number;
  readonly visitFlushSize: number;
  readonly visitBacklog: number;
  readonly cacheDir: string;
  readonly trustedProxies: string;
  readonly clientAddressHeader: ClientAddressHeader;
  readonly forwardQuery: boolean;
  readonly adminUser: string;
  readonly sessionIdle: number;
  readonly sessionMaxAge: number;
  readonly anonymousShortening: boolean;
  readonly anonymousRateLimit: number;
  readonly reviewNewLinks: ReviewNewLinks;
  readonly creationRateLimit: number;
  readonly loginRateLimit: number;
  readonly unlockRateLimit: number;
  readonly hashConcurrency: number;
  readonly apiKeyRateLimit: number;
  readonly notFoundRateLimit: number;
  readonly maxHeaderSize: number;
  readonly headersTimeout: number;
  readonly requestTimeout: number;
  readonly keepAliveTimeout: number;
  readonly allowDomains: string;
  readonly denyDomains: string;
  readonly blocklist: string;
  readonly visitRetentionDays: number;
  readonly auditRetentionDays: number;
  readonly geoipDatabase: string;
  readonly backupInterval: number;
  readonly backupKeep: number;
  readonly backupDir: string;
  readonly logLevel: Level;
  readonly logFormat: LogFormat;
  readonly accessLog: boolean;
  readonly metricsKey: string;
  readonly metricsAllow: string;
  readonly oidcIssuer: string;
  readonly oidcClientId: string;
  readonly oidcClientSecret: string;
  readonly oidcScopes: string;
  readonly oidcUserClaim: string;
  readonly oidcAdminClaim: string;
  readonly oidcAdminValue: string;
  readonly oidcCreateUsers: boolean;
  readonly passwordLogin: boolean;
  readonly webhookAllowPrivate: boolean;
  readonly webhookInterval: number;
  readonly webhookRetryBase: number;
  readonly webhookTimeout: number;
}

type Value = string | number | boolean;

interface Option {
  name: keyof Config;
  doc: string;
  default: Value;
  /** Turns a raw value (string from env/flags, string or number from the file) into the typed one. */
  parse: (raw: unknown) => Value;
  /**
   * A secret: `value`, the whole value; `url`, the password a URL may carry. Never logged, shown or taken
   * from a flag (which `ps` shows); also read from the file that KURZ_<NAME>_FILE names.
   */
  secret?: 'value' | 'url';
  /** Durations are shown as durations in the start-up log, not as raw milliseconds. */
  duration?: boolean;
}

/** Thrown for any invalid setting; the message names the key and where it came from. */
export class ConfigError extends Error {}

const MAX_DAYS_MS = 100 * 365 * 86_400_000;

/** The largest number a rate-limit setting takes: out of reach, for load tests. */
const RATE_MAX = 1_000_000_000;

/** The option table: one row per setting. Env var is `KURZ_` + the name in SCREAMING_SNAKE, flag `--kebab-case`. */
export const OPTIONS: readonly Option[] = [
  { name: 'config', default: '', parse: text(), doc: 'JSON config file to read (see config/kurz.example.json); empty = none' },
  { name: 'host', default: '127.0.0.1', parse: text(1), doc: 'Address to listen on' },
  { name: 'port', default: 8080, parse: integer(0, 65_535), doc: 'TCP port to listen on (0 = any free port)' },
  { name: 'db', default: './data/kurz.db', parse: text(1), doc: 'SQLite database file; its folder is created if missing' },
  {
    name: 'durability',
    default: 'full',
    parse: oneOf(['full', 'process']),
    doc: 'SQLite: what an answered write survives: full (a power cut: synced to disk first) or process (a crash of kurz, not of the machine)',
  },
  {
    name: 'databaseUrl',
    default: '',
    parse: postgresUrl(),
    secret: 'url',
    doc: 'postgres://USER:PASSWORD@HOST:PORT/DATABASE: store everything in PostgreSQL instead of the SQLite file (empty = SQLite); with a password, only from KURZ_DATABASE_URL, KURZ_DATABASE_URL_FILE or the config file',
  },
  {
    name: 'idBlockSize',
    default: 100,
    parse: integer(1, 1_000_000),
    doc: 'PostgreSQL only: link ids a node reserves at a time; the unused rest of a block is skipped when the node stops',
  },
  {
    name: 'workers',
    default: 1,
    parse: workerCount(),
    doc: 'Server processes sharing the port and the database: a number, or "auto" for one per core',
  },
  {
    name: 'publicUrl',
    default: '',
    parse: baseUrl(),
    doc: 'Base of rendered short URLs, e.g. https://s.example.com; empty = http://HOST:PORT',
  },
  {
    name: 'unknownHosts',
    default: 'default',
    parse: oneOf(['default', 'refuse']),
    doc: "A request whose Host is none of kurz's domains: default (served as the default domain, the publicUrl's host) or refuse (421 Misdirected Request)",
  },
  {
    name: 'codeLength',
    default: 6,
    parse: integer(4, 10),
    doc: 'Length of generated codes (4-10); longer ones follow when a length is used up',
  },
  {
    name: 'codeMode',
    default: 'obfuscated',
    parse: oneOf(['obfuscated', 'sequential']),
    doc: 'obfuscated (FF1, unguessable) or sequential (shortest)',
  },
  { name: 'codeOffset', default: 0, parse: integer(0, 2 ** 40), doc: 'Sequential mode only: added to the id before base62' },
  { name: 'redirectStatus', default: 302, parse: oneOf([301, 302, 307, 308]), doc: 'HTTP status of redirects' },
  {
    name: 'cacheSize',
    default: 100_000,
    parse: integer(0, 100_000_000),
    doc: 'Links kept in the in-memory redirect cache (0 = off), each from its second lookup on',
  },
  {
    name: 'negativeCacheTtl',
    default: '5s',
    parse: duration(0, 3_600_000),
    duration: true,
    doc: 'How long an unknown code is remembered as unknown (0 = off)',
  },
  {
    name: 'dedupeWindow',
    default: '30d',
    parse: duration(0, Number.POSITIVE_INFINITY, { off: 0, forever: Number.POSITIVE_INFINITY }),
    duration: true,
    doc: 'The same URL within this long returns the existing link: a duration, "forever" or "off"',
  },
  { name: 'maxUrlLength', default: 8192, parse: integer(16, 65_536), doc: 'Longest target URL accepted, in characters' },
  {
    name: 'visitFlushInterval',
    default: '1s',
    parse: duration(10, 60_000),
    duration: true,
    doc: 'Buffered visits are written at least this often',
  },
  {
    name: 'visitFlushSize',
    default: 10_000,
    parse: integer(1, 1_000_000),
    doc: 'Buffered visits are written as soon as this many links have visits pending',
  },
  {
    name: 'visitBacklog',
    default: 100_000,
    parse: integer(1, 10_000_000),
    doc: 'Visits that wait for the database with their detail; past it only their counts per link and hour do (the stats say how many lost their detail)',
  },
  {
    name: 'cacheDir',
    default: '',
    parse: text(),
    doc: 'Where the executable unpacks its SQLite addon; empty = $XDG_CACHE_HOME/kurz or ~/.cache/kurz',
  },
  {
    name: 'trustedProxies',
    default: '',
    parse: addressList(),
    doc: 'Proxies whose clientAddressHeader names the client: addresses or CIDR ranges, comma-separated (empty = none)',
  },
  {
    name: 'clientAddressHeader',
    default: 'x-forwarded-for',
    parse: headerName(['x-forwarded-for', 'forwarded']),
    doc: 'The one header a trusted proxy names the client in: x-forwarded-for or forwarded (RFC 7239); no other is read',
  },
  {
    name: 'forwardQuery',
    default: false,
    parse: boolean(),
    doc: "Links that do not say otherwise append the visitor's query string to their target",
  },
  {
    name: 'adminUser',
    default: 'admin',
    parse: userName(),
    doc: 'User name of the first admin (the account kurz makes at its first start)',
  },
  {
    name: 'sessionIdle',
    default: '12h',
    parse: duration(60_000, 365 * 86_400_000),
    duration: true,
    doc: 'A login session ends after this long without a request',
  },
  {
    name: 'sessionMaxAge',
    default: '30d',
    parse: duration(60_000, 365 * 86_400_000),
    duration: true,
    doc: 'A login session ends this long after the login, however busy',
  },
  {
    name: 'anonymousShortening',
    default: false,
    parse: boolean(),
    doc: 'Anyone may shorten links through the form on / without logging in (rate-limited per client)',
  },
  {
    name: 'anonymousRateLimit',
    default: 10,
    parse: integer(0, RATE_MAX),
    doc: 'Links one client may shorten anonymously per minute (0 = no limit)',
  },
  {
    name: 'reviewNewLinks',
    default: 'off',
    parse: oneOf(['off', 'anonymous', 'members']),
    doc: "New links that wait for an admin's review before they redirect: off, anonymous (those shortened on / without logging in) or members (every link but an admin's)",
  },
  {
    name: 'creationRateLimit',
    default: 6000,
    parse: integer(0, RATE_MAX),
    doc: 'Links one client may create per minute with an API key or a login; a batch counts its links (0 = no limit)',
  },
  {
    name: 'loginRateLimit',
    default: 4,
    parse: integer(0, RATE_MAX),
    doc: 'Failed logins per client and per account before each attempt waits 1 s, doubling up to 15 min (0 = no limit)',
  },
  {
    name: 'unlockRateLimit',
    default: 6,
    parse: integer(0, RATE_MAX),
    doc: 'Wrong passwords per client and link, and per link from all clients, before each attempt waits 1 s, doubling up to 15 min (0 = no limit)',
  },
  {
    name: 'hashConcurrency',
    default: 0,
    parse: integer(0, 64),
    doc: 'Password checks (logins, link passwords) run at once by this process; more are answered 429 (0 = half the CPUs, 1 to 3)',
  },
  {
    name: 'apiKeyRateLimit',
    default: 20,
    parse: integer(0, RATE_MAX),
    doc: 'Requests with a wrong API key one client may send per minute; then 429 until the minute ends (0 = no limit)',
  },
  {
    name: 'notFoundRateLimit',
    default: 100,
    parse: integer(0, RATE_MAX),
    doc: 'Unknown codes and paths one client may ask for per minute; then all its requests get 429 until the minute ends (0 = no limit)',
  },
  {
    name: 'maxHeaderSize',
    default: 16_384,
    parse: integer(1024, 1_048_576),
    doc: 'Largest request line and headers accepted, in bytes; larger ones get 431',
  },
  {
    name: 'headersTimeout',
    default: '10s',
    parse: duration(1000, 3_600_000),
    duration: true,
    doc: "A client must send a request's headers within this long, or gets 408 and is disconnected",
  },
  {
    name: 'requestTimeout',
    default: '30s',
    parse: duration(1000, 3_600_000),
    duration: true,
    doc: 'A client must send a whole request (headers and body) within this long, or gets 408 and is disconnected',
  },
  {
    name: 'keepAliveTimeout',
    default: '5s',
    parse: duration(1000, 3_600_000),
    duration: true,
    doc: 'An idle kept-alive connection is closed after this long',
  },
  {
    name: 'allowDomains',
    default: '',
    parse: domainList(),
    doc: 'Only targets on these domains (and their subdomains) are accepted, comma-separated (empty = any)',
  },
  {
    name: 'denyDomains',
    default: '',
    parse: domainList(),
    doc: 'Targets on these domains (and their subdomains) are refused, comma-separated',
  },
  {
    name: 'blocklist',
    default: '',
    parse: fileList(),
    doc: 'Blocklist files (hosts files, domain lists, URL lists such as URLhaus), comma-separated: listed targets are refused and their links answer 410; reread when a file changes. Local files only',
  },
  {
    name: 'visitRetentionDays',
    default: 90,
    parse: integer(0, 36_500),
    doc: 'Days each raw visit is kept for export (0 = none); the stats come from hourly rollups, kept for good',
  },
  {
    name: 'auditRetentionDays',
    default: 365,
    parse: integer(0, 36_500),
    doc: 'Days each audit trail entry (who created, edited, moved or deleted what) is kept (0 = for good)',
  },
  {
    name: 'geoipDatabase',
    default: '',
    parse: text(),
    doc: 'A MaxMind-format database (.mmdb: GeoLite2/GeoIP2 Country or City, DB-IP, IPinfo) for visit countries and the rule conditions on country and city (only a City database answers cities); empty = none',
  },
  {
    name: 'backupInterval',
    default: 'off',
    parse: duration(1000, Number.POSITIVE_INFINITY, { off: 0 }),
    duration: true,
    doc: 'SQLite: the server writes a backup of the database into backupDir this often (e.g. 6h); "off" = never',
  },
  {
    name: 'backupKeep',
    default: 7,
    parse: integer(1, 100_000),
    doc: 'Scheduled backups kept in backupDir; after each one, the oldest beyond this many are deleted',
  },
  {
    name: 'backupDir',
    default: '',
    parse: text(),
    doc: 'Folder of the scheduled backups; empty = "backups" beside the database file',
  },
  { name: 'logLevel', default: 'info', parse: oneOf(LEVELS), doc: 'Least important log events written: debug, info, warn or error' },
  {
    name: 'logFormat',
    default: 'auto',
    parse: oneOf(LOG_FORMATS),
    doc: 'Log lines as json (one object a line) or text (time level message key=value); auto = text on a terminal, else json',
  },
  {
    name: 'accessLog',
    default: false,
    parse: boolean(),
    doc: 'One log line per request, redirects included (address, method, path, status, duration, bytes, user agent, referrer)',
  },
  {
    name: 'metricsKey',
    default: '',
    parse: secretKey(16),
    secret: 'value',
    doc: 'GET /metrics from any address with "Authorization: Bearer KEY" (empty = no key); a secret: only from KURZ_METRICS_KEY, KURZ_METRICS_KEY_FILE or the config file',
  },
  {
    name: 'metricsAllow',
    default: '127.0.0.1,::1',
    parse: addressList(),
    doc: 'Addresses or CIDR ranges whose own connections may GET /metrics without the key, on a request with no forwarding header, comma-separated (empty = none)',
  },
  {
    name: 'oidcIssuer',
    default: '',
    parse: issuerUrl(),
    doc: "Single sign-on: the OpenID Connect provider's issuer URL, https (http only on a loopback address); empty = single sign-on off",
  },
  { name: 'oidcClientId', default: '', parse: text(), doc: 'Single sign-on: the client id kurz is registered with at the provider' },
  {
    name: 'oidcClientSecret',
    default: '',
    parse: secretKey(1),
    secret: 'value',
    doc: 'Single sign-on: the client secret (empty = a public client, PKCE only); a secret: only from KURZ_OIDC_CLIENT_SECRET, KURZ_OIDC_CLIENT_SECRET_FILE or the config file',
  },
  {
    name: 'oidcScopes',
    default: 'openid profile email',
    parse: scopeList(),
    doc: 'Single sign-on: the scopes asked for, space-separated; must hold openid',
  },
  {
    name: 'oidcUserClaim',
    default: 'preferred_username',
    parse: claimName(false),
    doc: 'Single sign-on: the ID token claim whose value is the kurz user name',
  },
  {
    name: 'oidcAdminClaim',
    default: '',
    parse: claimName(true),
    doc: 'Single sign-on: the claim that makes an admin (a string equal to oidcAdminValue, or an array holding it), e.g. groups; empty = none',
  },
  {
    name: 'oidcAdminValue',
    default: '',
    parse: text(),
    doc: 'Single sign-on: the value of oidcAdminClaim that makes an admin, e.g. kurz-admins',
  },
  {
    name: 'oidcCreateUsers',
    default: true,
    parse: boolean(),
    doc: 'Single sign-on: a user the provider vouches for but kurz does not know yet is created as a member',
  },
  {
    name: 'passwordLogin',
    default: true,
    parse: boolean(),
    doc: "Whether the login form takes passwords; false = single sign-on only (the CLI's kurz admin password still works)",
  },
  {
    name: 'webhookAllowPrivate',
    default: false,
    parse: boolean(),
    doc: 'Webhooks may reach loopback, private, link-local, CGNAT and cloud metadata addresses (a receiver on your own network); off, a hook whose host resolves there is refused at every delivery',
  },
  {
    name: 'webhookInterval',
    default: '1s',
    parse: duration(50, 60_000),
    duration: true,
    doc: 'How often the process that delivers webhooks turns new events into deliveries and sends those due: at most one link.clicked POST per hook each time',
  },
  {
    name: 'webhookRetryBase',
    default: '30s',
    parse: duration(0, 3_600_000),
    duration: true,
    doc: 'A failed webhook delivery is tried again after this, doubling each time (with jitter, at most an hour apart) until a day has passed since the first attempt',
  },
  {
    name: 'webhookTimeout',
    default: '5s',
    parse: duration(100, 60_000),
    duration: true,
    doc: 'How long one webhook delivery may take, connecting included, before it counts as failed',
  },
];

/** `publicUrl` -> `KURZ_PUBLIC_URL`. */
export function envName(name: string): string {
  return 'KURZ_' + name.replace(/[A-Z]/g, (c) => '_' + c).toUpperCase();
}

/** `metricsKey` -> `KURZ_METRICS_KEY_FILE`: names a file holding a secret option's value. */
export function fileEnvName(name: string): string {
  return `${envName(name)}_FILE`;
}

/** Whether `value` of `option` holds a secret: all of it, or a URL's password. */
function holdsSecret(option: Option, value: unknown): boolean {
  if (option.secret === 'value') return true;
  return option.secret === 'url' && typeof value === 'string' && hasPassword(value);
}

/** `publicUrl` -> `public-url`. */
export function flagName(name: string): string {
  return name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
}

/** Where each layer of settings comes from; `file` is read from disk when not given. */
export interface ConfigSources {
  env?: Record<string, string | undefined>;
  flags?: Record<string, string>;
  file?: Record<string, unknown>;
}

/**
 * Builds the config: defaults < config file < KURZ_* environment < flags.
 * Throws ConfigError naming the key for anything invalid, unknown or unreadable.
 */
export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? {};
  const flags = sources.flags ?? {};
  const envNames = OPTIONS.flatMap((o) => (o.secret ? [envName(o.name), fileEnvName(o.name)] : [envName(o.name)]));
  for (const key of Object.keys(env)) {
    if (key.startsWith('KURZ_') && !envNames.includes(key)) {
      throw new ConfigError(`unknown environment variable ${key} (known: ${envNames.join(', ')})`);
    }
  }
  for (const key of Object.keys(flags)) {
    const option = OPTIONS.find((o) => flagName(o.name) === key);
    if (!option) throw new ConfigError(`unknown option --${key}`);
    if (holdsSecret(option, flags[key])) {
      const what = option.secret === 'url' ? 'holds a password, which' : 'is a secret, which';
      throw new ConfigError(
        `${option.name} (flag --${key}) ${what} every user of this machine can read in the process list: set ${envName(option.name)}, or ${fileEnvName(option.name)} naming a file that holds it, or the key "${option.name}" in the config file`,
      );
    }
  }
  const configPath = flags['config'] ?? env['KURZ_CONFIG'] ?? '';
  const file = sources.file ?? (configPath ? readConfigFile(configPath) : {});
  for (const key of Object.keys(file)) {
    if (!OPTIONS.some((o) => o.name === key)) throw new ConfigError(`config file ${configPath}: unknown key "${key}"`);
    if (key === 'config') throw new ConfigError(`config file ${configPath}: key "config" cannot be set inside a config file`);
  }

  const values: Record<string, Value> = {};
  for (const option of OPTIONS) {
    const layers: Array<[string, unknown]> = [
      ['default', option.default],
      [`config file ${configPath}`, file[option.name]],
      option.secret ? fromEnvOrFile(option, env) : [`environment variable ${envName(option.name)}`, env[envName(option.name)]],
      [`flag --${flagName(option.name)}`, flags[flagName(option.name)]],
    ];
    for (const [source, raw] of layers) {
      if (raw === undefined) continue;
      try {
        values[option.name] = option.parse(raw);
      } catch (err) {
        throw new ConfigError(`${option.name} (${source}): ${(err as Error).message}`);
      }
    }
  }
  if (Number(values['headersTimeout']) > Number(values['requestTimeout'])) {
    throw new ConfigError(
      `headersTimeout (${formatDuration(Number(values['headersTimeout']))}) must not be longer than requestTimeout (${formatDuration(Number(values['requestTimeout']))}): the headers are part of the request`,
    );
  }
  if (values['cacheDir'] === '') {
    const base = env['XDG_CACHE_HOME'] || join(env['HOME'] || homedir(), '.cache');
    values['cacheDir'] = join(base, 'kurz');
  }
  if (values['backupDir'] === '') values['backupDir'] = join(dirname(String(values['db'])), 'backups');
  if (values['databaseUrl'] !== '' && values['backupInterval'] !== 0) {
    throw new ConfigError('backupInterval: scheduled backups copy the SQLite file; on PostgreSQL, back up with pg_dump (see the README)');
  }
  ssoProblems(values);
  if (values['publicUrl'] === '') values['publicUrl'] = defaultPublicUrl(String(values['host']), Number(values['port']));
  return Object.freeze(values) as unknown as Config;
}

/** The publicUrl kurz takes when none is set: its own address, which the world outside rarely reaches. */
export function defaultPublicUrl(host: string, port: number): string {
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shownHost}:${port}`;
}

/** Throws ConfigError for single sign-on settings that do not fit together. */
function ssoProblems(values: Record<string, Value>): void {
  const on = values['oidcIssuer'] !== '';
  if (!on) {
    if (values['passwordLogin'] === false)
      throw new ConfigError('passwordLogin: false needs single sign-on (oidcIssuer), or nobody could log in');
    return;
  }
  if (values['oidcClientId'] === '')
    throw new ConfigError(
      `oidcClientId: must be set when oidcIssuer is (${String(values['oidcIssuer'])}): the client id kurz is registered with there`,
    );
  if ((values['oidcAdminClaim'] === '') !== (values['oidcAdminValue'] === ''))
    throw new ConfigError('oidcAdminClaim and oidcAdminValue: set both (e.g. groups and kurz-admins) or neither');
}

/**
 * A secret option's environment layer: KURZ_<NAME>, or the content of the file KURZ_<NAME>_FILE names
 * (without its trailing line break). Throws ConfigError naming the key and the path, never the content.
 */
function fromEnvOrFile(option: Option, env: Record<string, string | undefined>): [string, unknown] {
  const [name, fileName] = [envName(option.name), fileEnvName(option.name)];
  const path = env[fileName];
  if (path === undefined) return [`environment variable ${name}`, env[name]];
  if (env[name] !== undefined) throw new ConfigError(`${option.name}: both ${name} and ${fileName} are set; set one of them`);
  if (path === '') throw new ConfigError(`${option.name} (environment variable ${fileName}): names no file`);
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError(`${option.name} (environment variable ${fileName}): cannot read the file ${path}: ${reason}`);
  }
  return [`file ${path} of environment variable ${fileName}`, content.replace(/[\r\n]+$/, '')];
}

function readConfigFile(path: string): Record<string, unknown> {
  let textContent: string;
  try {
    textContent = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`config: cannot read config file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(textContent);
  } catch (err) {
    throw new ConfigError(`config: config file ${path} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`config: config file ${path} must hold a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * The warning for a start that makes every visitor one client: kurz on a loopback address with an https
 * `publicUrl` is behind a proxy on this machine, and without `trustedProxies` every request has the
 * proxy's address, so one scanner or four wrong logins make everyone wait. Undefined for any other start.
 */
export function proxyWarning(config: Config): string | undefined {
  if (config.trustedProxies !== '' || !config.publicUrl.startsWith('https:')) return undefined;
  const proxy = config.host === 'localhost' ? '127.0.0.1,::1' : isLoopback(config.host) ? config.host : undefined;
  if (proxy === undefined) return undefined;
  return (
    `kurz listens on ${config.host} with the https publicUrl ${config.publicUrl}, so a proxy on this machine passes every request on, ` +
    `but trustedProxies is empty: every visitor has the proxy's address and they share each per-client limit. ` +
    `Set KURZ_TRUSTED_PROXIES=${proxy} (trustedProxies) and have the proxy overwrite ${config.clientAddressHeader} with the client's address (clientAddressHeader)`
  );
}

/** True for an address of this machine's loopback interface (127.0.0.0/8, ::1 and their mapped forms). */
function isLoopback(host: string): boolean {
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}

/** One line per option for the start-up log, secrets masked. */
export function describeConfig(config: Config): string {
  return OPTIONS.map((o) => `${o.name}=${shown(o, config[o.name])}`).join(' ');
}

/** One value as the start-up log shows it. */
function shown(option: Option, value: Value): Value {
  if (value === '') return '(none)';
  if (option.secret === 'value') return HIDDEN;
  if (option.secret === 'url') return redactUrl(String(value));
  return option.duration ? formatDuration(Number(value)) : value;
}

function formatDuration(ms: number): string {
  if (ms === Number.POSITIVE_INFINITY) return 'forever';
  if (ms === 0) return 'off';
  const unit = Object.entries(UNITS)
    .reverse()
    .find(([, size]) => ms % size === 0) ?? ['ms', 1];
  return `${ms / unit[1]}${unit[0]}`;
}

function text(minLength = 0): (raw: unknown) => string {
  return (raw) => {
    if (typeof raw !== 'string') throw new Error(`must be a string, got ${JSON.stringify(raw)}`);
    if (raw.length < minLength) throw new Error('must not be empty');
    return raw;
  };
}

/** A shared secret: empty (none), or at least `minLength` printable characters without spaces. */
function secretKey(minLength: number): (raw: unknown) => string {
  return (raw) => {
    if (typeof raw !== 'string') throw new Error(`must be a string, got ${typeof raw}`);
    if (raw === '') return '';
    if (!/^[\x21-\x7e]+$/.test(raw)) throw new Error('must be printable ASCII without spaces (it is sent in an HTTP header)');
    if (raw.length < minLength)
      throw new Error(`must be at least ${minLength} characters long (e.g. openssl rand -hex 16), got ${raw.length}`);
    return raw;
  };
}

function integer(min: number, max: number): (raw: unknown) => number {
  return (raw) => {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(n)) throw new Error(`must be a whole number, got ${JSON.stringify(raw)}`);
    if (n < min || n > max) throw new Error(`must be between ${min} and ${max}, got ${n}`);
    return n;
  };
}

/** One of `allowed`, header names compared case-insensitively. */
function headerName<T extends string>(allowed: readonly T[]): (raw: unknown) => T {
  const parse = oneOf(allowed);
  return (raw) => parse(typeof raw === 'string' ? raw.trim().toLowerCase() : raw);
}

function oneOf<T extends Value>(allowed: readonly T[]): (raw: unknown) => T {
  return (raw) => {
    const found = allowed.find((a) => String(a) === String(raw).trim());
    if (found === undefined) throw new Error(`must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
    return found;
  };
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration as every setting and flag writes it (`500ms`, `5s`, `10m`, `12h`, `30d`), in milliseconds.
 * Throws an Error whose message says what is accepted.
 */
export function parseDuration(raw: string, min = 1): number {
  return duration(min, Number.POSITIVE_INFINITY)(raw);
}

/** Durations are written `500ms`, `5s`, `10m`, `12h`, `30d` (or a bare number of milliseconds). */
function duration(min: number, max: number, words: Record<string, number> = {}): (raw: unknown) => number {
  return (raw) => {
    const s = String(raw).trim();
    const word = words[s];
    if (word !== undefined) return word;
    const m = /^(\d+)(ms|s|m|h|d)?$/.exec(s);
    if (!m || (typeof raw !== 'string' && typeof raw !== 'number')) {
      const extra = Object.keys(words).map((w) => `"${w}"`);
      throw new Error(
        `must be a duration like 500ms, 5s, 10m, 12h or 30d${extra.length ? ` or ${extra.join(' or ')}` : ''}, got ${JSON.stringify(raw)}`,
      );
    }
    const ms = Number(m[1]) * (UNITS[m[2] ?? 'ms'] ?? 1);
    const limit = Math.min(max, MAX_DAYS_MS);
    if (ms < min || ms > limit)
      throw new Error(`must be between ${min}ms and ${limit === MAX_DAYS_MS ? '36500d' : `${limit}ms`}, got ${s}`);
    return ms;
  };
}

function boolean(): (raw: unknown) => boolean {
  return (raw) => {
    if (typeof raw === 'boolean') return raw;
    const s = String(raw).trim().toLowerCase();
    if (s === 'true' || s === '1' || s === 'yes' || s === 'on') return true;
    if (s === 'false' || s === '0' || s === 'no' || s === 'off') return false;
    throw new Error(`must be true or false, got ${JSON.stringify(raw)}`);
  };
}

/** What a user name may be (after trimming); USER_NAME_RULE says it in words. */
export const USER_NAME = /^[A-Za-z0-9._@-]{1,64}$/;
export const USER_NAME_RULE = '1-64 letters, digits, ".", "_", "@" or "-"';

function userName(): (raw: unknown) => string {
  return (raw) => {
    if (typeof raw !== 'string' || !USER_NAME.test(raw.trim())) throw new Error(`must be ${USER_NAME_RULE}, got ${JSON.stringify(raw)}`);
    return raw.trim();
  };
}

/** True for a host name (or address) of this machine's loopback: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || isLoopback(host);
}

/** An OpenID Connect issuer: an https URL (http only on a loopback host), without query or fragment, or empty. */
function issuerUrl(): (raw: unknown) => string {
  return (raw) => {
    if (typeof raw !== 'string') throw new Error(`must be a string, got ${JSON.stringify(raw)}`);
    const s = raw.trim();
    if (s === '') return '';
    const url = URL.parse(s);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new Error(`must be an https URL like https://auth.example.com, got ${JSON.stringify(s)}`);
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
      throw new Error(
        `must be https (plain http only for a provider on this machine: localhost, 127.0.0.1, ::1), got ${JSON.stringify(s)}`,
      );
    if (url.search || url.hash || url.username || url.password) throw new Error('must not contain a query, fragment or credentials');
    // The issuer is compared to the discovery document's as written, so a trailing slash is kept.
    return s;
  };
}

/** Space-separated OAuth scopes, one of them openid. */
function scopeList(): (raw: unknown) => string {
  return (raw) => {
    if (typeof raw !== 'string') throw new Error(`must be a string of space-separated scopes, got ${JSON.stringify(raw)}`);
    const scopes = raw.trim().split(/\s+/).filter(Boolean);
    if (!scopes.includes('openid')) throw new Error(`must include openid, got ${JSON.stringify(raw)}`);
    const bad = scopes.find((scope) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope));
    if (bad !== undefined) throw new Error(`"${bad}" is not a scope (printable ASCII without quotes or backslashes)`);
    return scopes.join(' ');
  };
}

/** A claim name: letters, digits, ".", "_", ":", "/" or "-" (or, if `optional`, empty). */
function claimName(optional: boolean): (raw: unknown) => string {
  return (raw) => {
    if (typeof raw !== 'string') throw new Error(`must be a string, got ${JSON.stringify(raw)}`);
    const s = raw.trim();
    if (s === '' && optional) return '';
    if (!/^[A-Za-z0-9._:/-]{1,128}$/.test(s))
      throw new Error(`must be a claim name like preferred_username or groups, got ${JSON.stringify(raw)}`);
    return s;
  };
}

/** Domain names, comma-separated, lower-cased and in their ASCII (punycode) form. */
function domainList(): (raw: unknown) => string {
  return (raw) => {
    if (typeof raw !== 'string') throw new Error(`must be a string of comma-separated domains, got ${JSON.stringify(raw)}`);
    const list =
      raw.trim() === ''
        ? []
        : raw.split(',').map((s) =>
            s
              .trim()
              .replace(/^\*?\./, '')
              .replace(/\.$/, ''),
          );
    return list
      .map((domain) => {
        const host = URL.parse(`http://${domain}/`)?.hostname;
        if (!host || domain === '' || /[/:@?#]/.test(domain)) throw new Error(`"${domain}" is not a domain name like example.com`);
        return host;
      })
      .join(',');
  };
}

/** Local file paths, comma-separated; a URL is refused, since kurz never downloads anything. */
function fileList(): (raw: unknown) => string {
  return (raw) => {
    if (typeof raw !== 'string') throw new Error(`must be a string of comma-separated file paths, got ${JSON.stringify(raw)}`);
    const list = raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim());
    for (const path of list) {
      if (path === '') throw new Error('must not hold an empty path (two commas in a row, or one at an end)');
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path))
        throw new Error(
          `"${path}" is a URL, but kurz never downloads anything: fetch the list into a local file with a timer (see the README, "Blocklists") and name that file`,
        );
    }
    return list.join(',');
  };
}

function addressList(): (raw: unknown) => string {
  return (raw) => {
    if (typeof raw !== 'string') throw new Error(`must be a string of comma-separated addresses, got ${JSON.stringify(raw)}`);
    const list = raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim());
    try {
      proxyaddr.compile(list);
    } catch (err) {
      throw new Error(`${(err as Error).message}; give addresses or CIDR ranges like 10.0.0.0/8, separated by commas`, { cause: err });
    }
    return list.join(',');
  };
}

function baseUrl(): (raw: unknown) => string {
  return (raw) => {
    if (typeof raw !== 'string') throw new Error(`must be a string, got ${JSON.stringify(raw)}`);
    if (raw === '') return '';
    const url = URL.parse(raw);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new Error(`must be an http(s) URL like https://s.example.com, got ${JSON.stringify(raw)}`);
    if (url.search || url.hash || url.username || url.password) throw new Error('must not contain a query, fragment or credentials');
    return url.href.replace(/\/+$/, '');
  };
}

/** A PostgreSQL connection URL, or empty. */
function postgresUrl(): (raw: unknown) => string {
  return (raw) => {
    if (typeof raw !== 'string') throw new Error(`must be a string, got ${JSON.stringify(raw)}`);
    const s = raw.trim();
    if (s === '') return '';
    const url = URL.parse(s);
    if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') || !/^[a-z]+:\/\//i.test(s))
      throw new Error(`must be a URL like postgres://kurz:PASSWORD@db.example.com:5432/kurz, got ${JSON.stringify(redactUrl(s))}`);
    return s;
  };
}

/** A number of processes, or "auto": one per core. */
function workerCount(): (raw: unknown) => number {
  const count = integer(1, 64);
  return (raw) => (String(raw).trim() === 'auto' ? Math.min(64, availableParallelism()) : count(raw));
}
