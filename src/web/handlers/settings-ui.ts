import type { Context } from 'koa';
import { defaultPublicUrl, describeConfig, envName, fileEnvName, flagName, OPTIONS, type Config } from '../../config.ts';
import type { WebServices } from '../../context.ts';
import { showPage } from './pages.ts';
import { formatTime } from '../presenters.ts';

/**
 * Each option's value as the start-up log shows it (durations as durations, secrets masked): the
 * `name=value` pairs of describeConfig, split where the next option's name begins.
 */
function shownValues(line: string): Map<string, string> {
  const values = new Map<string, string>();
  let at = 0;
  OPTIONS.forEach((option, i) => {
    const start = at + option.name.length + 1;
    const following = OPTIONS[i + 1];
    const end = following ? line.indexOf(` ${following.name}=`, start) : -1;
    values.set(option.name, line.slice(start, end === -1 ? undefined : end));
    at = end + 1;
  });
  return values;
}

/** The settings page's topics, in its order, each with its options in theirs: every option is in one. */
export const SETTING_TOPICS: ReadonlyArray<{ title: string; id: string; options: readonly (keyof Config)[] }> = [
  {
    title: 'Server and proxy',
    id: 'server',
    options: [
      'config',
      'host',
      'port',
      'workers',
      'publicUrl',
      'unknownHosts',
      'trustedProxies',
      'clientAddressHeader',
      'maxHeaderSize',
      'headersTimeout',
      'requestTimeout',
      'keepAliveTimeout',
    ],
  },
  {
    title: 'Storage and backups',
    id: 'storage',
    options: ['db', 'durability', 'databaseUrl', 'idBlockSize', 'cacheDir', 'backupInterval', 'backupKeep', 'backupDir'],
  },
  {
    title: 'Links and redirects',
    id: 'links',
    options: [
      'codeLength',
      'codeMode',
      'codeOffset',
      'redirectStatus',
      'forwardQuery',
      'cacheSize',
      'negativeCacheTtl',
      'dedupeWindow',
      'maxUrlLength',
      'reviewNewLinks',
      'allowDomains',
      'denyDomains',
      'blocklist',
    ],
  },
  {
    title: 'Visits and analytics',
    id: 'visits',
    options: ['visitFlushInterval', 'visitFlushSize', 'visitBacklog', 'visitRetentionDays', 'geoipDatabase', 'auditRetentionDays'],
  },
  {
    title: 'Accounts and sign-in',
    id: 'accounts',
    options: [
      'adminUser',
      'passwordLogin',
      'sessionIdle',
      'sessionMaxAge',
      'anonymousShortening',
      'oidcIssuer',
      'oidcClientId',
      'oidcClientSecret',
      'oidcScopes',
      'oidcUserClaim',
      'oidcAdminClaim',
      'oidcAdminValue',
      'oidcCreateUsers',
    ],
  },
  {
    title: 'Rate limits',
    id: 'limits',
    options: [
      'creationRateLimit',
      'anonymousRateLimit',
      'apiKeyRateLimit',
      'loginRateLimit',
      'unlockRateLimit',
      'notFoundRateLimit',
      'hashConcurrency',
    ],
  },
  { title: 'Logs and monitoring', id: 'logs', options: ['logLevel', 'logFormat', 'accessLog', 'metricsKey', 'metricsAllow'] },
  { title: 'Webhooks', id: 'webhooks', options: ['webhookAllowPrivate', 'webhookInterval', 'webhookRetryBase', 'webhookTimeout'] },
];

/** Options whose default is worked out at start (from other options or the machine): no fixed default to differ from. */
const WORKED_OUT: ReadonlySet<string> = new Set(['cacheDir', 'backupDir']);

/** Whether `config` sets the option to something other than its default. */
function changed(config: Config, name: keyof Config, fallback: unknown): boolean {
  if (name === 'publicUrl') return config.publicUrl !== defaultPublicUrl(config.host, config.port);
  return !WORKED_OUT.has(name) && config[name] !== fallback;
}

/** /settings: the effective configuration, read-only, by topic (changed options first), and how to change it; the blocklist files in force. */
export function settingsUiHandlers(web: WebServices) {
  return {
    showSettings(ctx: Context): void {
      const values = shownValues(describeConfig(web.config));
      const shown = new Map(
        OPTIONS.filter((o) => o.secret !== 'value').map((o) => [
          o.name,
          {
            name: o.name,
            value: values.get(o.name) ?? '',
            doc: o.doc,
            envs: o.secret ? [envName(o.name), fileEnvName(o.name)] : [envName(o.name)],
            flag: `--${flagName(o.name)}`,
            flagNote: o.secret ? ' (without a password)' : '',
            changed: changed(web.config, o.name, o.parse(o.default)),
          },
        ]),
      );
      const topics = SETTING_TOPICS.map(({ title, id, options }) => {
        const listed = options.flatMap((name) => shown.get(name) ?? []);
        return { title, id, options: [...listed.filter((o) => o.changed), ...listed.filter((o) => !o.changed)] };
      });
      const { files, loadedAt, failure, screened } = web.screening.status();
      const blocklist = {
        files,
        loaded: loadedAt ? formatTime(loadedAt) : null,
        failure,
        screened: screened && { ...screened, at: formatTime(screened.at) },
      };
      const changedCount = [...shown.values()].filter((o) => o.changed).length;
      showPage(ctx, web, 200, 'settings', {
        title: 'Settings',
        section: 'settings',
        topics,
        changedCount,
        adminUser: web.config.adminUser,
        blocklist,
      });
    },
  };
}
