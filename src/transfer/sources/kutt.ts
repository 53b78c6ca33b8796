import { AppError } from '../../core/errors.ts';
import { readSqlDump, recordsOf, type SqlTables } from '../sql-dump.ts';
import { peerCount, peerLink, peerText, peerTime, refuseLine, type PeerFile } from './peer-link.ts';

// Kutt v3's tables in the order its models create them (server/models/*.model.js), for a dump without CREATE TABLE.
const LINK_COLUMNS = [
  'id',
  'address',
  'description',
  'banned',
  'banned_by_id',
  'domain_id',
  'password',
  'expire_in',
  'target',
  'user_id',
  'visit_count',
  'uuid',
  'created_at',
  'updated_at',
];
const DOMAIN_COLUMNS = ['id', 'banned', 'banned_by_id', 'address', 'homepage', 'user_id', 'uuid', 'created_at', 'updated_at'];

/** The SQLite file header: a Kutt database file rather than a dump. */
export const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Kutt's tables from an SQL dump of them: sqlite3's .dump, pg_dump --inserts, or mysqldump. */
export function kuttDumpTables(text: string): SqlTables {
  return readSqlDump(text, /^-- MySQL dump|^-- MariaDB dump/m.test(text.slice(0, 500)) ? 'mysql' : 'standard');
}

/**
 * The links of a Kutt v3 database (its SQLite file's tables, or a dump's): each address on its domain (the
 * `domains` table names a link's domain_id; none is Kutt's default domain), target, description, visit count,
 * creation and expiry. A banned link, and one with a password (Kutt's bcrypt hash is no kurz password), is skipped.
 */
export function readKutt(tables: SqlTables): PeerFile {
  const table = tables.get('links');
  if (!table) throw new AppError('invalid', 'the file has no links table: give Kutt’s database file or a dump of its links table');
  const hosts = new Map<string, string>();
  const domains = tables.get('domains');
  if (domains) {
    for (const { row } of recordsOf(domains, 'domains', DOMAIN_COLUMNS, ['id', 'address'])) {
      const [id, host] = [row['id'], row['address']];
      if (id != null && host != null) hosts.set(id, host);
    }
  }
  const file: PeerFile = { links: [], skips: [], notes: [] };
  for (const { line, row } of recordsOf(table, 'links', LINK_COLUMNS, ['address', 'target'])) {
    const code = row['address'] ?? refuseLine(line, 'address is NULL');
    const skip = { line, code, url: row['target'] ?? null, domain: hosts.get(row['domain_id'] ?? '') ?? null };
    if (truthy(row['banned'])) {
      file.skips.push({ ...skip, reason: 'banned on Kutt' });
      continue;
    }
    if (peerText(row['password']) !== null) {
      file.skips.push({ ...skip, reason: 'has a password on Kutt, whose hash kurz cannot check: create it again with its password' });
      continue;
    }
    const link = peerLink(line, code, row['target'] ?? refuseLine(line, 'target is NULL'));
    const domainId = peerText(row['domain_id']);
    if (domainId !== null) {
      link.domain =
        hosts.get(domainId) ?? refuseLine(line, `domain_id ${domainId} is not in the file's domains table: include the domains table`);
    }
    link.title = peerText(row['description']);
    link.createdAt = peerTime(row['created_at'], line, 'created_at');
    link.expiresAt = peerTime(row['expire_in'], line, 'expire_in');
    link.visitCount = peerCount(row['visit_count'], line, 'visit_count');
    file.links.push(link);
  }
  return file;
}

function truthy(value: string | null | undefined): boolean {
  return value === '1' || value === 'true' || value === 't';
}
