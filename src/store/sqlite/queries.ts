/** Every SQL statement kurz runs, by name. Stores prepare them once, at construction. */

/** A link with its visit counts: select from LINKS. */
const LINK_COLUMNS = `id, code, url, url_hash IS NULL AS isAlias, created_at AS createdAt, updated_at AS updatedAt,
  coalesce(v.count, 0) AS visitCount, v.last_at AS lastVisitAt, deleted_at AS deletedAt`;

const LINKS = `links LEFT JOIN link_visits AS v ON v.link_id = links.id`;

export const LINK_BY_CODE = `SELECT ${LINK_COLUMNS} FROM ${LINKS} WHERE code = ?`;

export const TARGET_BY_CODE = `SELECT id, url, deleted_at IS NOT NULL AS deleted FROM links WHERE code = ?`;

export const LINK_BY_ID = `SELECT ${LINK_COLUMNS} FROM ${LINKS} WHERE id = ?`;

/**
 * The dedupe probe: ids of the live deduplicable links with this URL hash created at or after the cut-off.
 * Bare (no join, no ORDER BY), because nearly every probe finds nothing; the link is read only on a hit.
 */
export const LINK_IDS_BY_URL_HASH = `SELECT id FROM links WHERE url_hash = ? AND created_at >= ? AND deleted_at IS NULL`;

/** Newest first, paged by id; `search` is a LIKE pattern matched against code and URL. */
export const LIST_LINKS = `SELECT ${LINK_COLUMNS} FROM ${LINKS}
  WHERE id < @before AND (@search IS NULL OR code LIKE @search ESCAPE '\\' OR url LIKE @search ESCAPE '\\')
    AND (@includeDeleted OR deleted_at IS NULL)
  ORDER BY id DESC LIMIT @limit`;

/** One page of every link, oldest first, after the id `after`. */
export const ALL_LINKS_PAGE = `SELECT ${LINK_COLUMNS} FROM ${LINKS} WHERE id > ? ORDER BY id LIMIT ?`;

/** Live links whose last visit (or creation, if never visited) is before the cut-off. */
export const UNVISITED_LINKS = `SELECT ${LINK_COLUMNS} FROM ${LINKS}
  WHERE deleted_at IS NULL AND coalesce(v.last_at, created_at) < ? ORDER BY id`;

export const DELETE_LINK = `UPDATE links SET deleted_at = @now, updated_at = @now WHERE id = @id AND deleted_at IS NULL`;

export const IMPORT_LINK = `INSERT INTO links (code, url, url_hash, created_at, updated_at, deleted_at)
  VALUES (@code, @url, @urlHash, @createdAt, @updatedAt, @deletedAt)`;

export const LAST_CHANGE = `SELECT coalesce(max(seq), 0) AS seq FROM link_changes`;

export const CHANGES_AFTER = `SELECT seq, code FROM link_changes WHERE seq > ? ORDER BY seq`;

export const FORGET_CHANGES_BEFORE = `DELETE FROM link_changes WHERE seq <= ?`;

export const LAST_LINK_ID = `SELECT seq FROM sqlite_sequence WHERE name = 'links'`;

export const INSERT_LINK = `INSERT INTO links (id, code, url, url_hash, created_at, updated_at)
  VALUES (@id, @code, @url, @urlHash, @createdAt, @createdAt)`;

export const ADD_VISITS = `INSERT INTO link_visits (link_id, count, last_at) VALUES (@id, @count, @lastVisitAt)
  ON CONFLICT (link_id) DO UPDATE SET count = count + excluded.count, last_at = max(last_at, excluded.last_at)`;

export const SETTING = `SELECT value FROM settings WHERE key = ?`;

export const INSERT_SETTING_IF_MISSING = `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`;

export const PING = `SELECT 1 AS ok`;

/** FULL: a link that was answered 201 survives a power cut, not only a crash. The connection's default. */
export const SYNC_DURABLE = `PRAGMA synchronous = FULL`;

/** WAL commits without waiting for the disk: visit counts, and group commits whose sync runs after (syncWal). */
export const SYNC_WITHOUT_WAITING = `PRAGMA synchronous = NORMAL`;

/** Immediate: takes the write lock at once, so a transaction never fails half-way on a lock upgrade. */
export const BEGIN = `BEGIN IMMEDIATE`;

export const COMMIT = `COMMIT`;

export const ROLLBACK = `ROLLBACK`;

/** Each job of a group commit runs in its own savepoint, so one that fails is undone alone. */
export const SAVEPOINT = `SAVEPOINT job`;

export const RELEASE = `RELEASE job`;

export const ROLLBACK_TO = `ROLLBACK TO job`;

export const SQLITE_VERSION = `SELECT sqlite_version()`;
