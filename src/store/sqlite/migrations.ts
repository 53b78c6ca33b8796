import type { Database } from 'better-sqlite3';

/**
 * The schema, as an append-only list: the database's version is the number of migrations applied,
 * kept in PRAGMA user_version. A shipped migration is never edited; change the schema by appending.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE links (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    code          TEXT    NOT NULL UNIQUE,
    url           TEXT    NOT NULL,
    url_hash      BLOB,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    visit_count   INTEGER NOT NULL DEFAULT 0,
    last_visit_at INTEGER
  );
  CREATE INDEX links_by_url_hash ON links (url_hash) WHERE url_hash IS NOT NULL;
  CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  // Deleted links keep their row, so their code is never handed out again and answers 410.
  // link_changes lets every process on this file drop cached targets that another one edited or deleted.
  `
  ALTER TABLE links ADD COLUMN deleted_at INTEGER;
  CREATE TABLE link_changes (
    seq  INTEGER PRIMARY KEY AUTOINCREMENT,
    code TEXT NOT NULL
  );
  CREATE TRIGGER links_changed AFTER UPDATE OF url, deleted_at ON links
  BEGIN
    INSERT INTO link_changes (code) VALUES (NEW.code);
  END;
  `,
  // Visit counts live in their own narrow table: a flush of visits to links spread over a large database
  // then rewrites a few kilobytes of ~15-byte rows per page instead of a page of full links per visited link
  // (3x less write-ahead log and checkpoint work per visit, measured over 1M links). A link without a row
  // here has never been visited. No foreign key: checking it would read the link's page of the links table on
  // every write, the very cost this table avoids; link rows are never removed (deleting only marks them).
  `
  CREATE TABLE link_visits (
    link_id INTEGER PRIMARY KEY,
    count   INTEGER NOT NULL,
    last_at INTEGER NOT NULL
  );
  INSERT INTO link_visits (link_id, count, last_at)
    SELECT id, visit_count, coalesce(last_visit_at, created_at) FROM links WHERE visit_count > 0;
  ALTER TABLE links DROP COLUMN visit_count;
  ALTER TABLE links DROP COLUMN last_visit_at;
  `,
];

/**
 * Applies the pending migrations, each in its own immediate transaction so that two processes
 * starting on one file never apply the same step twice. Throws if the file is newer than this build.
 */
export function migrate(db: Database): void {
  const current = (): number => db.pragma('user_version', { simple: true }) as number;
  if (current() > MIGRATIONS.length) {
    throw new Error(
      `the database has schema version ${current()}, newer than this kurz knows (${MIGRATIONS.length}); run a newer kurz or restore a backup`,
    );
  }
  for (let version = current(); version < MIGRATIONS.length; version = current()) {
    db.transaction(() => {
      if (current() !== version) return;
      db.exec(MIGRATIONS[version] ?? '');
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}
