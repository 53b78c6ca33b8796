import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { ConfigError, describeConfig, envName, flagName, loadConfig, OPTIONS, proxyWarning } from '../../src/config.ts';
import { tempDir } from '../helpers.ts';

test('defaults: 127.0.0.1:8080, ./data/kurz.db, 6-character obfuscated codes, 302', (t) => {
  const c = loadConfig();
  t.like(c, {
    host: '127.0.0.1',
    port: 8080,
    db: './data/kurz.db',
    publicUrl: 'http://127.0.0.1:8080',
    codeLength: 6,
    codeMode: 'obfuscated',
    redirectStatus: 302,
  });
  t.is(c.dedupeWindow, 30 * 86_400_000);
  t.is(c.durability, 'full');
  t.true(Object.isFrozen(c));
});

test('the names scripts rely on', (t) => {
  const names = OPTIONS.map((o) => envName(o.name));
  for (const name of [
    'KURZ_HOST',
    'KURZ_PORT',
    'KURZ_DB',
    'KURZ_PUBLIC_URL',
    'KURZ_CODE_LENGTH',
    'KURZ_CODE_MODE',
    'KURZ_REDIRECT_STATUS',
    'KURZ_CACHE_SIZE',
    'KURZ_CONFIG',
  ]) {
    t.true(names.includes(name), name);
  }
  t.is(flagName('publicUrl'), 'public-url');
});

test('layers: defaults < file < environment < flags', (t) => {
  const file = { port: 1000, host: '0.0.0.0', codeLength: 7, cacheSize: 5 };
  const c = loadConfig({ file, env: { KURZ_PORT: '2000', KURZ_CODE_LENGTH: '8' }, flags: { port: '3000' } });
  t.is(c.port, 3000);
  t.is(c.codeLength, 8);
  t.is(c.host, '0.0.0.0');
  t.is(c.cacheSize, 5);
  t.is(c.publicUrl, 'http://localhost:3000', 'a wildcard address is shown as localhost');
});

test('the config file is read from KURZ_CONFIG or --config', (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'kurz.json');
  writeFileSync(path, JSON.stringify({ publicUrl: 'https://s.example.com/', redirectStatus: 301, dedupeWindow: 'forever' }));
  const c = loadConfig({ env: { KURZ_CONFIG: path } });
  t.is(c.publicUrl, 'https://s.example.com');
  t.is(c.redirectStatus, 301);
  t.is(c.dedupeWindow, Number.POSITIVE_INFINITY);
  t.is(loadConfig({ flags: { config: path } }).redirectStatus, 301);
});

const DURATIONS: Array<[string, number]> = [
  ['500ms', 500],
  ['5s', 5000],
  ['10m', 600_000],
  ['12h', 43_200_000],
  ['30d', 2_592_000_000],
  ['off', 0],
  ['forever', Number.POSITIVE_INFINITY],
];
for (const [raw, ms] of DURATIONS) {
  test(`dedupeWindow "${raw}" is ${ms} ms`, (t) => {
    t.is(loadConfig({ env: { KURZ_DEDUPE_WINDOW: raw } }).dedupeWindow, ms);
  });
}

const INVALID: Array<[string, Parameters<typeof loadConfig>[0], string]> = [
  ['port not a number', { env: { KURZ_PORT: 'eighty' } }, 'port (environment variable KURZ_PORT): must be a whole number, got "eighty"'],
  ['port out of range', { flags: { port: '70000' } }, 'port (flag --port): must be between 0 and 65535, got 70000'],
  [
    'code length below 4',
    { env: { KURZ_CODE_LENGTH: '3' } },
    'codeLength (environment variable KURZ_CODE_LENGTH): must be between 4 and 10, got 3',
  ],
  [
    'unknown code mode',
    { env: { KURZ_CODE_MODE: 'random' } },
    'codeMode (environment variable KURZ_CODE_MODE): must be one of obfuscated, sequential, got "random"',
  ],
  ['redirect status 303', { file: { redirectStatus: 303 } }, 'redirectStatus (config file ): must be one of 301, 302, 307, 308, got 303'],
  [
    'unknown durability',
    { env: { KURZ_DURABILITY: 'normal' } },
    'durability (environment variable KURZ_DURABILITY): must be one of full, process, got "normal"',
  ],
  [
    'public URL without scheme',
    { env: { KURZ_PUBLIC_URL: 's.example.com' } },
    'publicUrl (environment variable KURZ_PUBLIC_URL): must be an http(s) URL like https://s.example.com, got "s.example.com"',
  ],
  [
    'duration without unit word',
    { env: { KURZ_DEDUPE_WINDOW: 'a month' } },
    'dedupeWindow (environment variable KURZ_DEDUPE_WINDOW): must be a duration like 500ms, 5s, 10m, 12h or 30d or "off" or "forever", got "a month"',
  ],
  ['number where text is due', { file: { db: 5 } }, 'db (config file ): must be a string, got 5'],
  ['empty database path', { env: { KURZ_DB: '' } }, 'db (environment variable KURZ_DB): must not be empty'],
  ['unknown KURZ_ variable', { env: { KURZ_PROT: '1' } }, 'unknown environment variable KURZ_PROT'],
  ['unknown key in the file', { file: { prot: 1 } }, 'config file : unknown key "prot"'],
  ['unknown flag', { flags: { prot: '1' } }, 'unknown option --prot'],
];
for (const [name, sources, message] of INVALID) {
  test(`invalid config: ${name}`, (t) => {
    const err = t.throws(() => loadConfig(sources), { instanceOf: ConfigError });
    t.true(err.message.startsWith(message), err.message);
  });
}

test('an unreadable or malformed config file is named in the error', (t) => {
  const dir = tempDir(t);
  t.throws(() => loadConfig({ env: { KURZ_CONFIG: join(dir, 'missing.json') } }), {
    message: /cannot read config file .*missing\.json: ENOENT/,
  });
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{ port: 1 }');
  t.throws(() => loadConfig({ env: { KURZ_CONFIG: bad } }), { message: /bad\.json is not valid JSON/ });
  writeFileSync(bad, '[1]');
  t.throws(() => loadConfig({ env: { KURZ_CONFIG: bad } }), { message: /bad\.json must hold a JSON object/ });
});

test('describeConfig lists every option', (t) => {
  const line = describeConfig(loadConfig({ env: { KURZ_DEDUPE_WINDOW: 'forever' } }));
  for (const o of OPTIONS) t.true(line.includes(`${o.name}=`), o.name);
  t.true(line.includes('dedupeWindow=forever'));
});

test('trustedProxies takes addresses and CIDR ranges, and names a bad one', (t) => {
  t.is(loadConfig({ env: { KURZ_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' } }).trustedProxies, '127.0.0.1,10.0.0.0/8');
  t.throws(() => loadConfig({ env: { KURZ_TRUSTED_PROXIES: '10.0.0.0/8,proxy.example' } }), {
    message: /^trustedProxies \(environment variable KURZ_TRUSTED_PROXIES\): invalid IP address: proxy\.example/,
  });
});

test('clientAddressHeader is x-forwarded-for or forwarded, in any case, and names anything else', (t) => {
  t.is(loadConfig().clientAddressHeader, 'x-forwarded-for');
  t.is(loadConfig({ env: { KURZ_CLIENT_ADDRESS_HEADER: 'Forwarded' } }).clientAddressHeader, 'forwarded');
  t.is(loadConfig({ flags: { 'client-address-header': ' X-Forwarded-For ' } }).clientAddressHeader, 'x-forwarded-for');
  for (const bad of ['x-real-ip', '', 'forwarded,x-forwarded-for']) {
    t.throws(() => loadConfig({ env: { KURZ_CLIENT_ADDRESS_HEADER: bad } }), {
      instanceOf: ConfigError,
      message: /^clientAddressHeader \(environment variable KURZ_CLIENT_ADDRESS_HEADER\): must be one of x-forwarded-for, forwarded/,
    });
  }
  t.throws(() => loadConfig({ file: { clientAddressHeader: 7 } }), { message: /^clientAddressHeader \(.*\): must be one of/ });
});

const PROXY_WARNINGS: Array<[string, Record<string, string>, string | undefined]> = [
  ['loopback and https, no trusted proxies', { KURZ_HOST: '127.0.0.1', KURZ_PUBLIC_URL: 'https://s.example.com' }, '127.0.0.1'],
  ['::1', { KURZ_HOST: '::1', KURZ_PUBLIC_URL: 'https://s.example.com' }, '::1'],
  ['localhost', { KURZ_HOST: 'localhost', KURZ_PUBLIC_URL: 'https://s.example.com' }, '127.0.0.1,::1'],
  ['127.0.0.2', { KURZ_HOST: '127.0.0.2', KURZ_PUBLIC_URL: 'https://s.example.com' }, '127.0.0.2'],
  ['::1 written out', { KURZ_HOST: '0:0:0:0:0:0:0:1', KURZ_PUBLIC_URL: 'https://s.example.com' }, '0:0:0:0:0:0:0:1'],
  ['IPv4-mapped loopback', { KURZ_HOST: '::ffff:127.0.0.1', KURZ_PUBLIC_URL: 'https://s.example.com' }, '::ffff:127.0.0.1'],
  ['another address', { KURZ_HOST: '192.0.2.10', KURZ_PUBLIC_URL: 'https://s.example.com' }, undefined],
  ['trusted proxies set', { KURZ_PUBLIC_URL: 'https://s.example.com', KURZ_TRUSTED_PROXIES: '127.0.0.1' }, undefined],
  ['http publicUrl', { KURZ_PUBLIC_URL: 'http://s.example.com' }, undefined],
  ['every interface', { KURZ_HOST: '0.0.0.0', KURZ_PUBLIC_URL: 'https://s.example.com' }, undefined],
];

for (const [name, env, proxy] of PROXY_WARNINGS) {
  test(`proxyWarning: ${name}`, (t) => {
    const warning = proxyWarning(loadConfig({ env }));
    if (proxy === undefined) t.is(warning, undefined);
    else t.true(warning?.includes(`Set KURZ_TRUSTED_PROXIES=${proxy} (trustedProxies)`), warning);
  });
}

test('databaseUrl takes a postgres:// URL, logged with its password masked, and names anything else', (t) => {
  const config = loadConfig({ env: { KURZ_DATABASE_URL: 'postgres://kurz:s3cret@db.example.com:5432/kurz' } });
  t.is(config.databaseUrl, 'postgres://kurz:s3cret@db.example.com:5432/kurz');
  const line = describeConfig(config);
  t.regex(line, /databaseUrl=postgres:\/\/kurz:\*\*\*@db\.example\.com:5432\/kurz/);
  t.false(line.includes('s3cret'));
  t.is(loadConfig({ flags: { 'database-url': 'postgresql://localhost/kurz' } }).databaseUrl, 'postgresql://localhost/kurz');
  const wrong = t.throws(() => loadConfig({ env: { KURZ_DATABASE_URL: 'mysql://u:pw@host/db' } }), { instanceOf: ConfigError });
  t.regex(wrong.message, /^databaseUrl \(environment variable KURZ_DATABASE_URL\): must be a URL like postgres:/);
  t.false(wrong.message.includes(':pw@'), 'the password is masked in the error too');
});

test('workers is a count or "auto" (one per core); idBlockSize a positive count', (t) => {
  t.is(loadConfig({}).workers, 1);
  t.is(loadConfig({ flags: { workers: '3' } }).workers, 3);
  t.is(loadConfig({ env: { KURZ_WORKERS: 'auto' } }).workers, availableParallelism());
  t.throws(() => loadConfig({ flags: { workers: '0' } }), { message: /^workers \(flag --workers\): must be between 1 and 64, got 0/ });
  t.throws(() => loadConfig({ flags: { workers: 'many' } }), { message: /^workers \(flag --workers\): must be a whole number/ });
  t.is(loadConfig({}).idBlockSize, 100);
  t.throws(() => loadConfig({ env: { KURZ_ID_BLOCK_SIZE: '0' } }), { message: /^idBlockSize .*between 1 and 1000000/ });
});

test('scheduled backups: off by default, an interval of 1s or more, a count to keep, a folder beside the database', (t) => {
  t.like(loadConfig({ env: { KURZ_DB: '/srv/kurz/kurz.db' } }), { backupInterval: 0, backupKeep: 7, backupDir: '/srv/kurz/backups' });
  t.like(loadConfig({ env: { KURZ_BACKUP_INTERVAL: '6h', KURZ_BACKUP_KEEP: '30', KURZ_BACKUP_DIR: '/var/backups/kurz' } }), {
    backupInterval: 6 * 3_600_000,
    backupKeep: 30,
    backupDir: '/var/backups/kurz',
  });
  t.regex(describeConfig(loadConfig({ env: { KURZ_BACKUP_INTERVAL: '6h' } })), /backupInterval=6h backupKeep=7 backupDir=data\/backups/);
  t.regex(describeConfig(loadConfig({})), /backupInterval=off/);
  t.throws(() => loadConfig({ env: { KURZ_BACKUP_INTERVAL: '500ms' } }), {
    message: /^backupInterval .*between 1000ms and 36500d, got 500ms/,
  });
  t.throws(() => loadConfig({ env: { KURZ_BACKUP_KEEP: '0' } }), { message: /^backupKeep .*between 1 and 100000, got 0/ });
  t.throws(() => loadConfig({ env: { KURZ_BACKUP_INTERVAL: '6h', KURZ_DATABASE_URL: 'postgres://kurz@db.example.com/kurz' } }), {
    instanceOf: ConfigError,
    message: 'backupInterval: scheduled backups copy the SQLite file; on PostgreSQL, back up with pg_dump (see the README)',
  });
});

test('rate limits are counts, 0 for off; the server timeouts are durations, headers within the whole request', (t) => {
  const defaults = loadConfig({});
  t.like(defaults, { creationRateLimit: 6000, anonymousRateLimit: 10, loginRateLimit: 4, unlockRateLimit: 6, apiKeyRateLimit: 20 });
  t.like(defaults, {
    notFoundRateLimit: 100,
    maxHeaderSize: 16_384,
    headersTimeout: 10_000,
    requestTimeout: 30_000,
    keepAliveTimeout: 5000,
  });
  t.is(loadConfig({ env: { KURZ_NOT_FOUND_RATE_LIMIT: '0' } }).notFoundRateLimit, 0);
  t.throws(() => loadConfig({ flags: { 'api-key-rate-limit': '-1' } }), {
    message: /^apiKeyRateLimit \(flag --api-key-rate-limit\): must be between 0 and 1000000000, got -1/,
  });
  t.throws(() => loadConfig({ flags: { 'max-header-size': '100' } }), { message: /^maxHeaderSize .*between 1024 and 1048576, got 100/ });
  t.is(loadConfig({ env: { KURZ_REQUEST_TIMEOUT: '2m' } }).requestTimeout, 120_000);
  t.throws(() => loadConfig({ env: { KURZ_HEADERS_TIMEOUT: '1m' } }), {
    instanceOf: ConfigError,
    message: 'headersTimeout (1m) must not be longer than requestTimeout (30s): the headers are part of the request',
  });
});

// Issue 23, files and secrets.
const SECRETS = OPTIONS.filter((o) => o.secret !== undefined).map((o) => o.name);

test('the secret options are marked in the table: metricsKey, databaseUrl and oidcClientSecret', (t) => {
  t.deepEqual(SECRETS.sort(), ['databaseUrl', 'metricsKey', 'oidcClientSecret']);
});

test('a secret is read from the file KURZ_<NAME>_FILE names, without its trailing line break', (t) => {
  const dir = tempDir(t);
  const key = join(dir, 'metrics-key');
  writeFileSync(key, 'a-metrics-key-read-from-a-file\n');
  const url = join(dir, 'database-url');
  writeFileSync(url, 'postgres://kurz:s3cret@db.example.com/kurz\r\n');
  const config = loadConfig({ env: { KURZ_METRICS_KEY_FILE: key, KURZ_DATABASE_URL_FILE: url } });
  t.is(config.metricsKey, 'a-metrics-key-read-from-a-file');
  t.is(config.databaseUrl, 'postgres://kurz:s3cret@db.example.com/kurz');
  const line = describeConfig(config);
  t.false(line.includes('a-metrics-key-read-from-a-file'));
  t.false(line.includes('s3cret'));
});

test('only secret options have a _FILE variable', (t) => {
  const err = t.throws(() => loadConfig({ env: { KURZ_PORT_FILE: '/etc/kurz/port' } }), { instanceOf: ConfigError });
  t.regex(err.message, /^unknown environment variable KURZ_PORT_FILE \(known: .*KURZ_METRICS_KEY_FILE/);
});

for (const name of ['metricsKey', 'databaseUrl']) {
  test(`${name}: its variable and its _FILE together are refused, naming both`, (t) => {
    const file = join(tempDir(t), 'secret');
    writeFileSync(file, 'a-secret-of-enough-characters');
    t.throws(() => loadConfig({ env: { [envName(name)]: 'postgres://db/kurz', [`${envName(name)}_FILE`]: file } }), {
      instanceOf: ConfigError,
      message: `${name}: both ${envName(name)} and ${envName(name)}_FILE are set; set one of them`,
    });
  });

  test(`${name}: an unreadable _FILE is named with its path and why, never its content`, (t) => {
    const dir = tempDir(t);
    t.throws(() => loadConfig({ env: { [`${envName(name)}_FILE`]: join(dir, 'missing') } }), {
      instanceOf: ConfigError,
      message: `${name} (environment variable ${envName(name)}_FILE): cannot read the file ${join(dir, 'missing')}: ENOENT`,
    });
    t.throws(() => loadConfig({ env: { [`${envName(name)}_FILE`]: dir } }), { message: /: cannot read the file .*: EISDIR$/ });
  });
}

test('a bad secret read from a file is named by its key, variable and path, never its content', (t) => {
  const file = join(tempDir(t), 'metrics-key');
  writeFileSync(file, 'short-secret\n');
  const err = t.throws(() => loadConfig({ env: { KURZ_METRICS_KEY_FILE: file } }), { instanceOf: ConfigError });
  t.is(
    err.message,
    `metricsKey (file ${file} of environment variable KURZ_METRICS_KEY_FILE): must be at least 16 characters long (e.g. openssl rand -hex 16), got 12`,
  );
});

// A flag is in every user's process list (ps): a secret given as one is refused, naming what to use.
const SECRET_FLAGS: Array<[string, string, string]> = [
  ['metrics-key', 'a-metrics-key-of-32-characters!!', 'metricsKey (flag --metrics-key) is a secret, which'],
  ['database-url', 'postgres://kurz:s3cret@db.example.com/kurz', 'databaseUrl (flag --database-url) holds a password, which'],
  ['database-url', 'postgres://kurz@db.example.com/kurz?password=s3cret', 'databaseUrl (flag --database-url) holds a password, which'],
];
for (const [flag, value, start] of SECRET_FLAGS) {
  test(`--${flag} ${value.slice(0, 24)}… is refused, naming the environment variables to use`, (t) => {
    const err = t.throws(() => loadConfig({ flags: { [flag]: value } }), { instanceOf: ConfigError });
    const name = flag === 'metrics-key' ? 'KURZ_METRICS_KEY' : 'KURZ_DATABASE_URL';
    const key = flag === 'metrics-key' ? 'metricsKey' : 'databaseUrl';
    t.is(
      err.message,
      `${start} every user of this machine can read in the process list: set ${name}, or ${name}_FILE naming a file that holds it, or the key "${key}" in the config file`,
    );
    t.false(err.message.includes('s3cret') || err.message.includes('a-metrics-key'));
  });
}

test('a database URL without a password may be a flag; a secret in the config file is taken', (t) => {
  t.is(loadConfig({ flags: { 'database-url': 'postgres://kurz@db.example.com/kurz' } }).databaseUrl, 'postgres://kurz@db.example.com/kurz');
  t.is(loadConfig({ file: { metricsKey: 'a-metrics-key-of-32-characters!!' } }).metricsKey, 'a-metrics-key-of-32-characters!!');
});

test("a database URL's password is hidden wherever it is written, and a URL that does not parse shows its scheme and host only", (t) => {
  const line = describeConfig(loadConfig({ env: { KURZ_DATABASE_URL: 'postgres://kurz@db.example.com/kurz?password=s3cret' } }));
  t.regex(line, /databaseUrl=postgres:\/\/kurz@db\.example\.com\/kurz\?password=\*\*\* /);
  t.false(line.includes('s3cret'));
  for (const [url, shown] of [
    ['postgres://kurz:s3cret@db example/kurz', 'postgres:…'],
    ['mysql://kurz:s3cret@db.example.com/kurz?password=s3cret', 'mysql://kurz:***@db.example.com/kurz?password=***'],
    ['postgres:kurz:s3cret@db.example.com', 'postgres:…'],
  ]) {
    const err = t.throws(() => loadConfig({ env: { KURZ_DATABASE_URL: url } }), { instanceOf: ConfigError });
    t.true(err.message.endsWith(`, got ${JSON.stringify(shown)}`), err.message);
    t.false(err.message.includes('s3cret'), err.message);
  }
});

// Issue 25, single sign-on.
const SSO = { oidcIssuer: 'https://auth.example.com', oidcClientId: 'kurz' };

test('single sign-on is off by default; its defaults', (t) => {
  t.like(loadConfig(), {
    oidcIssuer: '',
    oidcScopes: 'openid profile email',
    oidcUserClaim: 'preferred_username',
    oidcAdminClaim: '',
    oidcAdminValue: '',
    oidcCreateUsers: true,
    passwordLogin: true,
  });
});

test('a single sign-on setup is taken from the environment, the client secret from its _FILE', (t) => {
  const file = join(tempDir(t), 'oidc-secret');
  writeFileSync(file, 'the-client-secret\n');
  const config = loadConfig({
    env: {
      KURZ_OIDC_ISSUER: 'https://auth.example.com/application/o/kurz/',
      KURZ_OIDC_CLIENT_ID: 'kurz',
      KURZ_OIDC_CLIENT_SECRET_FILE: file,
      KURZ_OIDC_SCOPES: ' openid  profile email groups ',
      KURZ_OIDC_ADMIN_CLAIM: 'groups',
      KURZ_OIDC_ADMIN_VALUE: 'kurz-admins',
      KURZ_OIDC_CREATE_USERS: 'false',
      KURZ_PASSWORD_LOGIN: 'false',
    },
  });
  t.like(config, {
    oidcIssuer: 'https://auth.example.com/application/o/kurz/',
    oidcClientSecret: 'the-client-secret',
    oidcScopes: 'openid profile email groups',
    oidcCreateUsers: false,
    passwordLogin: false,
  });
  t.false(describeConfig(config).includes('the-client-secret'));
  t.regex(describeConfig(config), /oidcClientSecret=\*\*\*/);
});

test('the client secret is refused as a flag, naming the variables to use', (t) => {
  const err = t.throws(() => loadConfig({ flags: { 'oidc-client-secret': 'the-client-secret' } }), { instanceOf: ConfigError });
  t.regex(
    err.message,
    /^oidcClientSecret \(flag --oidc-client-secret\) is a secret, which .* set KURZ_OIDC_CLIENT_SECRET, or KURZ_OIDC_CLIENT_SECRET_FILE/,
  );
  t.false(err.message.includes('the-client-secret'));
});

test('plain http issuers only on this machine', (t) => {
  for (const issuer of ['http://127.0.0.1:9000', 'http://localhost:9000/realms/x', 'http://[::1]:9000'])
    t.is(loadConfig({ file: { ...SSO, oidcIssuer: issuer } }).oidcIssuer, issuer);
  t.throws(() => loadConfig({ file: { ...SSO, oidcIssuer: 'http://auth.example.com' } }), {
    message: /^oidcIssuer \(config file \): must be https \(plain http only for a provider on this machine/,
  });
});

const BAD_SSO: Array<[Record<string, unknown>, RegExp]> = [
  [{ oidcIssuer: 'auth.example.com' }, /^oidcIssuer \(config file \): must be an https URL/],
  [{ oidcIssuer: 'https://auth.example.com/?x=1' }, /^oidcIssuer .*must not contain a query/],
  [{ oidcIssuer: 'https://auth.example.com' }, /^oidcClientId: must be set when oidcIssuer is \(https:\/\/auth\.example\.com\)/],
  [{ ...SSO, oidcScopes: 'profile email' }, /^oidcScopes \(config file \): must include openid/],
  [{ ...SSO, oidcUserClaim: '' }, /^oidcUserClaim \(config file \): must be a claim name/],
  [{ ...SSO, oidcUserClaim: 'user name' }, /^oidcUserClaim .*must be a claim name/],
  [{ ...SSO, oidcAdminClaim: 'groups' }, /^oidcAdminClaim and oidcAdminValue: set both/],
  [{ ...SSO, oidcAdminValue: 'kurz-admins' }, /^oidcAdminClaim and oidcAdminValue: set both/],
  [{ ...SSO, oidcCreateUsers: 'maybe' }, /^oidcCreateUsers \(config file \): must be true or false/],
  [{ ...SSO, oidcClientSecret: 'has spaces in it' }, /^oidcClientSecret \(config file \): must be printable ASCII/],
  [{ passwordLogin: false }, /^passwordLogin: false needs single sign-on \(oidcIssuer\)/],
];
for (const [file, message] of BAD_SSO) {
  test(`single sign-on setting ${JSON.stringify(file)} is refused, naming the key`, (t) => {
    t.throws(() => loadConfig({ file }), { instanceOf: ConfigError, message });
  });
}
