/** Every SQL statement kurz runs, by name. Stores prepare them once, at construction. */

const LINK_COLUMNS = `id, code, url, created_at AS createdAt, updated_at AS updatedAt,
  visit_count AS visitCount, last_visit_at AS lastVisitAt`;

export const LINK_BY_CODE = `SELECT ${LINK_COLUMNS} FROM links WHERE code = ?`;

export const TARGET_BY_CODE = `SELECT id, url FROM links WHERE code = ?`;

export const LINK_BY_URL_HASH = `SELECT ${LINK_COLUMNS} FROM links
  WHERE url_hash = ? AND created_at >= ? ORDER BY id DESC LIMIT 1`;

export const LAST_LINK_ID = `SELECT seq FROM sqlite_sequence WHERE name = 'links'`;

export const INSERT_LINK = `INSERT INTO links (id, code, url, url_hash, created_at, updated_at)
  VALUES (@id, @code, @url, @urlHash, @now, @now)`;

export const ADD_VISITS = `UPDATE links SET visit_count = visit_count + @count,
  last_visit_at = max(coalesce(last_visit_at, 0), @lastVisitAt) WHERE id = @id`;

export const SETTING = `SELECT value FROM settings WHERE key = ?`;

export const INSERT_SETTING_IF_MISSING = `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`;

export const PING = `SELECT 1 AS ok`;
