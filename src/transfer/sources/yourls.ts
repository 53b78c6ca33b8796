import { AppError } from '../../core/errors.ts';
import { readSqlDump, recordsOf } from '../sql-dump.ts';
import { referrerHost } from '../../visits/classify.ts';
import type { PastVisit } from '../records.ts';
import { peerCount, peerLink, peerText, peerTime, refuseLine, type PeerFile } from './peer-link.ts';

// The columns of YOURLS' tables (includes/functions-install.php), for a dump without CREATE TABLE.
const URL_COLUMNS = ['keyword', 'url', 'title', 'timestamp', 'ip', 'clicks'];
const LOG_COLUMNS = ['click_id', 'click_time', 'shorturl', 'referrer', 'user_agent', 'ip_address', 'country_code'];

/** A country as kurz keeps one: ISO 3166-1 alpha-2, upper case (YOURLS writes an empty one when unknown). */
const COUNTRY = /^[A-Za-z]{2}$/;

/**
 * The links of a YOURLS database as mysqldump writes it: the `yourls_url` table (any table prefix) with each
 * keyword, URL, title, creation time and click count, and from `yourls_log`, when the dump has it, each
 * link's clicks (their time, referrer and country) and so its last click. mysqldump writes TIMESTAMP columns in UTC (its default --tz-utc); YOURLS writes the
 * log's DATETIME in UTC too.
 */
export function readYourls(text: string): PeerFile {
  const tables = readSqlDump(text, 'mysql');
  const urlTable = [...tables.keys()].find((name) => /(^|_)url$/.test(name));
  if (urlTable === undefined) throw new AppError('invalid', 'the dump has no yourls_url table: dump the YOURLS database with mysqldump');
  const logTable = urlTable.replace(/url$/, 'log');
  const lastClick = new Map<string, Date>();
  const clicks = new Map<string, PastVisit[]>();
  const log = tables.get(logTable);
  if (log) {
    for (const { line, row } of recordsOf(log, logTable, LOG_COLUMNS, ['click_time', 'shorturl'])) {
      const at = peerTime(row['click_time'], line, 'click_time');
      const code = row['shorturl'] ?? '';
      const last = lastClick.get(code);
      if (at !== null && (last === undefined || at > last)) lastClick.set(code, at);
      if (at === null) continue;
      const country = row['country_code']?.trim() ?? '';
      const visit = {
        at: at.getTime(),
        referrer: referrerHost(row['referrer'] ?? ''),
        country: COUNTRY.test(country) ? country.toUpperCase() : null,
      };
      const logged = clicks.get(code);
      if (logged) logged.push(visit);
      else clicks.set(code, [visit]);
    }
  }
  const links = recordsOf(tables.get(urlTable)!, urlTable, URL_COLUMNS, ['keyword', 'url']).map(({ line, row }) => {
    const code = row['keyword'] ?? refuseLine(line, 'keyword is NULL');
    const link = peerLink(line, code, row['url'] ?? refuseLine(line, 'url is NULL'));
    link.title = peerText(row['title']);
    link.createdAt = peerTime(row['timestamp'], line, 'timestamp');
    link.visitCount = peerCount(row['clicks'], line, 'clicks');
    link.lastVisitAt = lastClick.get(code) ?? null;
    link.visits = clicks.get(code) ?? [];
    return link;
  });
  return {
    links,
    skips: [],
    notes: log ? [] : [`the dump has no ${logTable} table: each link's last click and its clicks by day are unknown`],
  };
}
