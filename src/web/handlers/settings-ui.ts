import type { Context } from 'koa';
import { describeConfig, envName, fileEnvName, flagName, OPTIONS } from '../../config.ts';
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

/** /settings: the effective configuration, read-only, and how to change it; the blocklist files in force. */
export function settingsUiHandlers(web: WebServices) {
  return {
    showSettings(ctx: Context): void {
      const values = shownValues(describeConfig(web.config));
      const options = OPTIONS.filter((o) => o.secret !== 'value').map((o) => ({
        name: o.name,
        value: values.get(o.name) ?? '',
        doc: o.doc,
        env: o.secret ? `${envName(o.name)} or ${fileEnvName(o.name)}` : envName(o.name),
        flag: o.secret ? `--${flagName(o.name)} (without a password)` : `--${flagName(o.name)}`,
      }));
      const { files, loadedAt, failure, screened } = web.screening.status();
      const blocklist = {
        files,
        loaded: loadedAt ? formatTime(loadedAt) : null,
        failure,
        screened: screened && { ...screened, at: formatTime(screened.at) },
      };
      showPage(ctx, web, 200, 'settings', { title: 'Settings', section: 'settings', options, adminUser: web.config.adminUser, blocklist });
    },
  };
}
