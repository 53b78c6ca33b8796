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
  // Link options, access control. is_alias stops being inferred from url_hash: a link is a dedupe target
  // only while it is a bare URL nobody edited, which an alias never is. claimed_visits counts visits of
  // links with max_visits, claimed at the redirect (visit_count comes later, from the buffer). The change
  // log now follows every column the redirect cache holds. Sessions and API keys keep only hashes of
  // their secrets.
  `
  ALTER TABLE links ADD COLUMN is_alias INTEGER NOT NULL DEFAULT 0;
  UPDATE links SET is_alias = url_hash IS NULL;
  ALTER TABLE links ADD COLUMN title TEXT;
  ALTER TABLE links ADD COLUMN note TEXT;
  ALTER TABLE links ADD COLUMN expires_at INTEGER;
  ALTER TABLE links ADD COLUMN max_visits INTEGER;
  ALTER TABLE links ADD COLUMN claimed_visits INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE links ADD COLUMN password_hash TEXT;
  ALTER TABLE links ADD COLUMN redirect_status INTEGER;
  ALTER TABLE links ADD COLUMN forward_query INTEGER;
  ALTER TABLE links ADD COLUMN enabled INTEGER NOT NULL DEFAULT 1;
  DROP TRIGGER links_changed;
  CREATE TRIGGER links_changed
    AFTER UPDATE OF url, deleted_at, enabled, expires_at, max_visits, password_hash, redirect_status, forward_query ON links
  BEGIN
    INSERT INTO link_changes (code) VALUES (NEW.code);
  END;
  CREATE TABLE link_tags (
    link_id INTEGER NOT NULL,
    tag     TEXT    NOT NULL,
    PRIMARY KEY (link_id, tag)
  ) WITHOUT ROWID;
  CREATE INDEX link_tags_by_tag ON link_tags (tag, link_id);
  CREATE TABLE sessions (
    id_hash    TEXT    PRIMARY KEY,
    user       TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    seen_at    INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE api_keys (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    name         TEXT    NOT NULL,
    prefix       TEXT    NOT NULL,
    key_hash     TEXT    NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
  );
  CREATE UNIQUE INDEX api_keys_live_name ON api_keys (name) WHERE revoked_at IS NULL;
  `,
  // Visit analytics. Raw visits are kept for the retention period, without client address or user agent.
  // The rollups are what the stats read: per link and hour (the series), per link, hour and dimension
  // (the top lists of periods by the hour) and per link, day and dimension (by the day: 24 times fewer
  // rows), per day and link (the dashboard's top links), per day (its totals); each clustered by what its
  // query ranges over.
  // visitors holds the day's salted visitor hashes, to count a visitor once per link and day; a day's rows
  // go when its salt does. links_by_created answers "links created per day".
  `
  CREATE TABLE visits (
    id       INTEGER PRIMARY KEY,
    link_id  INTEGER NOT NULL,
    at       INTEGER NOT NULL,
    bot      TEXT,
    referrer TEXT,
    browser  TEXT,
    os       TEXT,
    device   TEXT,
    country  TEXT,
    language TEXT
  );
  CREATE INDEX visits_by_at ON visits (at);
  CREATE TABLE visit_hours (
    link_id INTEGER NOT NULL,
    hour    INTEGER NOT NULL,
    humans  INTEGER NOT NULL,
    bots    INTEGER NOT NULL,
    uniques INTEGER NOT NULL,
    PRIMARY KEY (link_id, hour)
  ) WITHOUT ROWID;
  CREATE TABLE visit_dimensions (
    link_id   INTEGER NOT NULL,
    hour      INTEGER NOT NULL,
    dimension INTEGER NOT NULL,
    value     TEXT    NOT NULL,
    count     INTEGER NOT NULL,
    PRIMARY KEY (link_id, hour, dimension, value)
  ) WITHOUT ROWID;
  CREATE TABLE visit_dimension_days (
    link_id   INTEGER NOT NULL,
    day       INTEGER NOT NULL,
    dimension INTEGER NOT NULL,
    value     TEXT    NOT NULL,
    count     INTEGER NOT NULL,
    PRIMARY KEY (link_id, day, dimension, value)
  ) WITHOUT ROWID;
  CREATE TABLE visit_totals (
    day     INTEGER PRIMARY KEY,
    humans  INTEGER NOT NULL,
    bots    INTEGER NOT NULL,
    uniques INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE visit_days (
    day     INTEGER NOT NULL,
    link_id INTEGER NOT NULL,
    humans  INTEGER NOT NULL,
    bots    INTEGER NOT NULL,
    uniques INTEGER NOT NULL,
    PRIMARY KEY (day, link_id)
  ) WITHOUT ROWID;
  CREATE TABLE visitors (
    day     INTEGER NOT NULL,
    link_id INTEGER NOT NULL,
    hash    BLOB    NOT NULL,
    PRIMARY KEY (day, link_id, hash)
  ) WITHOUT ROWID;
  CREATE INDEX links_by_created ON links (created_at);
  `,
  // The background writer's receipt, kept with each chunk of visits it writes (VisitReceipt): when a writer
  // is killed, the server hands the next one exactly the visits it had not written. One row per writer
  // process, removed once the server has read it (a row is left only if the server dies too).
  `
  CREATE TABLE visit_handovers (
    writer    TEXT    PRIMARY KEY,
    pass_from INTEGER NOT NULL,
    pass_to   INTEGER NOT NULL,
    written   INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // Abuse screening: a link whose target is on a blocklist is disabled apart from the person's own `enabled`,
  // so that it comes back when the list no longer names it. The change log follows it, for every cache.
  `
  ALTER TABLE links ADD COLUMN blocked_rule TEXT;
  ALTER TABLE links ADD COLUMN blocked_list TEXT;
  ALTER TABLE links ADD COLUMN blocked_at INTEGER;
  CREATE INDEX links_blocked ON links (id) WHERE blocked_rule IS NOT NULL;
  DROP TRIGGER links_changed;
  CREATE TRIGGER links_changed
    AFTER UPDATE OF url, deleted_at, enabled, expires_at, max_visits, password_hash, redirect_status, forward_query, blocked_rule ON links
  BEGIN
    INSERT INTO link_changes (code) VALUES (NEW.code);
  END;
  `,
  // The dashboard's link figures, kept as links change: links created per UTC day, and of those the ones not
  // deleted. Counting the links table instead took a read of every link per dashboard, on the server's
  // event loop (redirects waited behind it). The triggers keep it in the transaction that changes a link.
  `
  CREATE TABLE link_days (
    day     INTEGER PRIMARY KEY,
    created INTEGER NOT NULL,
    live    INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO link_days (day, created, live)
    SELECT created_at - created_at % 86400000, count(*), sum(deleted_at IS NULL) FROM links GROUP BY 1;
  CREATE TRIGGER link_days_inserted AFTER INSERT ON links
  BEGIN
    INSERT INTO link_days (day, created, live) VALUES (NEW.created_at - NEW.created_at % 86400000, 1, NEW.deleted_at IS NULL)
      ON CONFLICT (day) DO UPDATE SET created = created + 1, live = live + excluded.live;
  END;
  CREATE TRIGGER link_days_updated AFTER UPDATE OF created_at, deleted_at ON links
  BEGIN
    UPDATE link_days SET created = created - 1, live = live - (OLD.deleted_at IS NULL)
      WHERE day = OLD.created_at - OLD.created_at % 86400000;
    INSERT INTO link_days (day, created, live) VALUES (NEW.created_at - NEW.created_at % 86400000, 1, NEW.deleted_at IS NULL)
      ON CONFLICT (day) DO UPDATE SET created = created + 1, live = live + excluded.live;
  END;
  CREATE TRIGGER link_days_deleted AFTER DELETE ON links
  BEGIN
    UPDATE link_days SET created = created - 1, live = live - (OLD.deleted_at IS NULL)
      WHERE day = OLD.created_at - OLD.created_at % 86400000;
  END;
  `,
  // API keys get scopes (space-separated), an optional expiry, and the address of their last use. A key
  // made before scopes keeps what it could do then: every API route, none of which needed more.
  `
  ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'links:read links:write stats:read export';
  ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;
  ALTER TABLE api_keys ADD COLUMN last_used_from TEXT;
  `,
  // Several short domains. A link's code is unique within its domain (the index is (code, domain_id), so it
  // also finds a code on any domain, as a generated code must be unique across all). SQLite cannot drop a
  // column's UNIQUE, so links is built again: its rows, ids and sequence (ids taken but never inserted stay
  // taken), indexes and triggers. Domain 0 is the default domain, the publicUrl's host: every link lands on it.
  // The change log names the link and its address (a move logs the old and the new one), and a change of
  // the domains table logs the domain alone, so that every process reloads its domains.
  `
  CREATE TABLE domains (
    id                 INTEGER PRIMARY KEY,
    host               TEXT    NOT NULL,
    scheme             TEXT,
    not_found_redirect TEXT,
    root_redirect      TEXT,
    created_at         INTEGER NOT NULL,
    removed_at         INTEGER
  );
  CREATE UNIQUE INDEX domains_by_host ON domains (host) WHERE removed_at IS NULL;
  INSERT INTO domains (id, host, created_at) VALUES (0, '', CAST(strftime('%s', 'now') AS INTEGER) * 1000);
  CREATE TABLE links_new (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    code            TEXT    NOT NULL,
    url             TEXT    NOT NULL,
    url_hash        BLOB,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    deleted_at      INTEGER,
    is_alias        INTEGER NOT NULL DEFAULT 0,
    title           TEXT,
    note            TEXT,
    expires_at      INTEGER,
    max_visits      INTEGER,
    claimed_visits  INTEGER NOT NULL DEFAULT 0,
    password_hash   TEXT,
    redirect_status INTEGER,
    forward_query   INTEGER,
    enabled         INTEGER NOT NULL DEFAULT 1,
    blocked_rule    TEXT,
    blocked_list    TEXT,
    blocked_at      INTEGER,
    domain_id       INTEGER NOT NULL DEFAULT 0
  );
  INSERT INTO links_new (id, code, url, url_hash, created_at, updated_at, deleted_at, is_alias, title, note, expires_at,
      max_visits, claimed_visits, password_hash, redirect_status, forward_query, enabled, blocked_rule, blocked_list, blocked_at)
    SELECT id, code, url, url_hash, created_at, updated_at, deleted_at, is_alias, title, note, expires_at,
      max_visits, claimed_visits, password_hash, redirect_status, forward_query, enabled, blocked_rule, blocked_list, blocked_at
    FROM links ORDER BY id;
  DELETE FROM sqlite_sequence WHERE name = 'links_new';
  UPDATE sqlite_sequence SET name = 'links_new' WHERE name = 'links';
  DROP TABLE links;
  ALTER TABLE links_new RENAME TO links;
  CREATE UNIQUE INDEX links_by_address ON links (code, domain_id);
  CREATE INDEX links_by_domain ON links (domain_id, id);
  CREATE INDEX links_by_url_hash ON links (url_hash) WHERE url_hash IS NOT NULL;
  CREATE INDEX links_by_created ON links (created_at);
  CREATE INDEX links_blocked ON links (id) WHERE blocked_rule IS NOT NULL;
  CREATE TABLE link_changes_new (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    link_id   INTEGER,
    domain_id INTEGER NOT NULL,
    code      TEXT
  );
  INSERT INTO link_changes_new (seq, link_id, domain_id, code)
    SELECT seq, (SELECT id FROM links WHERE links.code = link_changes.code), 0, code FROM link_changes ORDER BY seq;
  DELETE FROM sqlite_sequence WHERE name = 'link_changes_new';
  UPDATE sqlite_sequence SET name = 'link_changes_new' WHERE name = 'link_changes';
  DROP TABLE link_changes;
  ALTER TABLE link_changes_new RENAME TO link_changes;
  CREATE TRIGGER links_changed
    AFTER UPDATE OF url, deleted_at, enabled, expires_at, max_visits, password_hash, redirect_status, forward_query, blocked_rule,
      code, domain_id ON links
  BEGIN
    INSERT INTO link_changes (link_id, domain_id, code) VALUES (OLD.id, OLD.domain_id, OLD.code);
    INSERT INTO link_changes (link_id, domain_id, code) SELECT NEW.id, NEW.domain_id, NEW.code
      WHERE NEW.domain_id IS NOT OLD.domain_id OR NEW.code IS NOT OLD.code;
  END;
  CREATE TRIGGER domains_inserted AFTER INSERT ON domains
  BEGIN
    INSERT INTO link_changes (link_id, domain_id, code) VALUES (NULL, NEW.id, NULL);
  END;
  CREATE TRIGGER domains_changed AFTER UPDATE ON domains
  BEGIN
    INSERT INTO link_changes (link_id, domain_id, code) VALUES (NULL, NEW.id, NULL);
  END;
  CREATE TRIGGER link_days_inserted AFTER INSERT ON links
  BEGIN
    INSERT INTO link_days (day, created, live) VALUES (NEW.created_at - NEW.created_at % 86400000, 1, NEW.deleted_at IS NULL)
      ON CONFLICT (day) DO UPDATE SET created = created + 1, live = live + excluded.live;
  END;
  CREATE TRIGGER link_days_updated AFTER UPDATE OF created_at, deleted_at ON links
  BEGIN
    UPDATE link_days SET created = created - 1, live = live - (OLD.deleted_at IS NULL)
      WHERE day = OLD.created_at - OLD.created_at % 86400000;
    INSERT INTO link_days (day, created, live) VALUES (NEW.created_at - NEW.created_at % 86400000, 1, NEW.deleted_at IS NULL)
      ON CONFLICT (day) DO UPDATE SET created = created + 1, live = live + excluded.live;
  END;
  CREATE TRIGGER link_days_deleted AFTER DELETE ON links
  BEGIN
    UPDATE link_days SET created = created - 1, live = live - (OLD.deleted_at IS NULL)
      WHERE day = OLD.created_at - OLD.created_at % 86400000;
  END;
  `,
  // Several users. The first admin (id 1) is added at start under adminUser, with the password the settings
  // kept for it; every link, key and session made before is theirs. A user name is unique whatever its case.
  // An invitation is known only by its hash and lasts until it is used or expires.
  `
  CREATE TABLE users (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    name              TEXT    NOT NULL,
    email             TEXT,
    role              TEXT    NOT NULL CHECK (role IN ('admin', 'member')),
    state             TEXT    NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled')),
    password_hash     TEXT,
    invite_hash       TEXT,
    invite_expires_at INTEGER,
    created_at        INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX users_by_name ON users (lower(name));
  CREATE UNIQUE INDEX users_by_invite ON users (invite_hash) WHERE invite_hash IS NOT NULL;
  ALTER TABLE links ADD COLUMN owner_id INTEGER NOT NULL DEFAULT 1;
  CREATE INDEX links_by_owner ON links (owner_id, id);
  ALTER TABLE api_keys ADD COLUMN user_id INTEGER NOT NULL DEFAULT 1;
  DROP INDEX api_keys_live_name;
  CREATE UNIQUE INDEX api_keys_live_name ON api_keys (user_id, name) WHERE revoked_at IS NULL;
  ALTER TABLE sessions ADD COLUMN user_id INTEGER NOT NULL DEFAULT 1;
  `,
  // The audit trail: who did what to which thing. The actor's and the subject's names are copied (a label
  // outlives a renamed or deleted thing); details are a small JSON object. An index per filter, each ending
  // in the time, for the newest-first pages.
  `
  CREATE TABLE audit_log (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    at            INTEGER NOT NULL,
    actor_id      INTEGER,
    actor_name    TEXT    NOT NULL,
    via           TEXT    NOT NULL,
    key_name      TEXT,
    client        TEXT,
    action        TEXT    NOT NULL,
    subject_kind  TEXT    NOT NULL,
    subject_id    INTEGER NOT NULL,
    subject_label TEXT    NOT NULL,
    details       TEXT    NOT NULL DEFAULT '{}'
  );
  CREATE INDEX audit_by_time ON audit_log (at, id);
  CREATE INDEX audit_by_actor ON audit_log (actor_id, at, id);
  CREATE INDEX audit_by_actor_name ON audit_log (actor_name, at, id);
  CREATE INDEX audit_by_subject ON audit_log (subject_kind, subject_id, at, id);
  CREATE INDEX audit_by_action ON audit_log (action, at, id);
  `,
  // Each user's figures, from the same rollups as the instance's: link_days and visit_totals are kept per
  // owner (the instance's figures are their sums over a handful of users), and visit_days names each row's
  // owner (index visit_days_by_owner: a user's top links read their own rows). A link handed to another
  // user takes its history along (link_owner_changed), so that figures never show a link to someone who no
  // longer owns it. A day's totals were the sums of its links' days, and are made so again, per owner.
  `
  CREATE TABLE link_days_new (
    day      INTEGER NOT NULL,
    owner_id INTEGER NOT NULL,
    created  INTEGER NOT NULL,
    live     INTEGER NOT NULL,
    PRIMARY KEY (day, owner_id)
  ) WITHOUT ROWID;
  INSERT INTO link_days_new (day, owner_id, created, live)
    SELECT created_at - created_at % 86400000, owner_id, count(*), sum(deleted_at IS NULL) FROM links GROUP BY 1, 2;
  DROP TRIGGER link_days_inserted;
  DROP TRIGGER link_days_updated;
  DROP TRIGGER link_days_deleted;
  DROP TABLE link_days;
  ALTER TABLE link_days_new RENAME TO link_days;
  CREATE TRIGGER link_days_inserted AFTER INSERT ON links
  BEGIN
    INSERT INTO link_days (day, owner_id, created, live)
      VALUES (NEW.created_at - NEW.created_at % 86400000, NEW.owner_id, 1, NEW.deleted_at IS NULL)
      ON CONFLICT (day, owner_id) DO UPDATE SET created = created + 1, live = live + excluded.live;
  END;
  CREATE TRIGGER link_days_updated AFTER UPDATE OF created_at, deleted_at, owner_id ON links
  BEGIN
    UPDATE link_days SET created = created - 1, live = live - (OLD.deleted_at IS NULL)
      WHERE day = OLD.created_at - OLD.created_at % 86400000 AND owner_id = OLD.owner_id;
    INSERT INTO link_days (day, owner_id, created, live)
      VALUES (NEW.created_at - NEW.created_at % 86400000, NEW.owner_id, 1, NEW.deleted_at IS NULL)
      ON CONFLICT (day, owner_id) DO UPDATE SET created = created + 1, live = live + excluded.live;
  END;
  CREATE TRIGGER link_days_deleted AFTER DELETE ON links
  BEGIN
    UPDATE link_days SET created = created - 1, live = live - (OLD.deleted_at IS NULL)
      WHERE day = OLD.created_at - OLD.created_at % 86400000 AND owner_id = OLD.owner_id;
  END;
  CREATE TABLE visit_totals_new (
    day      INTEGER NOT NULL,
    owner_id INTEGER NOT NULL,
    humans   INTEGER NOT NULL,
    bots     INTEGER NOT NULL,
    uniques  INTEGER NOT NULL,
    PRIMARY KEY (day, owner_id)
  ) WITHOUT ROWID;
  ALTER TABLE visit_days ADD COLUMN owner_id INTEGER NOT NULL DEFAULT 1;
  UPDATE visit_days SET owner_id = (SELECT owner_id FROM links WHERE links.id = visit_days.link_id)
    WHERE link_id IN (SELECT id FROM links WHERE owner_id <> 1);
  CREATE INDEX visit_days_by_owner ON visit_days (owner_id, day);
  INSERT INTO visit_totals_new (day, owner_id, humans, bots, uniques)
    SELECT day, owner_id, sum(humans), sum(bots), sum(uniques) FROM visit_days GROUP BY day, owner_id;
  DROP TABLE visit_totals;
  ALTER TABLE visit_totals_new RENAME TO visit_totals;
  CREATE TRIGGER link_owner_changed AFTER UPDATE OF owner_id ON links WHEN NEW.owner_id <> OLD.owner_id
  BEGIN
    UPDATE visit_totals SET
      humans = humans - (SELECT humans FROM visit_days WHERE day = visit_totals.day AND link_id = NEW.id),
      bots = bots - (SELECT bots FROM visit_days WHERE day = visit_totals.day AND link_id = NEW.id),
      uniques = uniques - (SELECT uniques FROM visit_days WHERE day = visit_totals.day AND link_id = NEW.id)
      WHERE owner_id = OLD.owner_id AND day IN (SELECT day FROM visit_days WHERE link_id = NEW.id AND day IN
        (SELECT DISTINCT hour - hour % 86400000 FROM visit_hours WHERE link_id = NEW.id));
    INSERT INTO visit_totals (day, owner_id, humans, bots, uniques)
      SELECT day, NEW.owner_id, humans, bots, uniques FROM visit_days WHERE link_id = NEW.id AND day IN
        (SELECT DISTINCT hour - hour % 86400000 FROM visit_hours WHERE link_id = NEW.id)
      ON CONFLICT (day, owner_id) DO UPDATE SET humans = humans + excluded.humans, bots = bots + excluded.bots,
        uniques = uniques + excluded.uniques;
    UPDATE visit_days SET owner_id = NEW.owner_id WHERE link_id = NEW.id AND day IN
      (SELECT DISTINCT hour - hour % 86400000 FROM visit_hours WHERE link_id = NEW.id);
  END;
  `,
  // Domains limited to some users (migration 14). A domain with \`limited\` 0 is open to every user; with 1,
  // to the users domain_users names (none: admins only; admins may always use every domain). Setting them
  // updates the domains row in the same transaction, so its trigger tells every process to reload.
  `
  ALTER TABLE domains ADD COLUMN limited INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE domain_users (
    domain_id INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    PRIMARY KEY (domain_id, user_id)
  ) WITHOUT ROWID;
  `,
  // The review queue (reviewNewLinks): a link waits ('pending') until an admin approves it (NULL) or rejects
  // it ('rejected', for good). links_in_review holds only the links in review, so the queue, its count and
  // the list's filter read nothing else. The change log follows the column, so that every cache drops an
  // approved or rejected link.
  `
  ALTER TABLE links ADD COLUMN review TEXT CHECK (review IN ('pending', 'rejected'));
  CREATE INDEX links_in_review ON links (review, id) WHERE review IS NOT NULL;
  DROP TRIGGER links_changed;
  CREATE TRIGGER links_changed
    AFTER UPDATE OF url, deleted_at, enabled, expires_at, max_visits, password_hash, redirect_status, forward_query, blocked_rule,
      code, domain_id, review ON links
  BEGIN
    INSERT INTO link_changes (link_id, domain_id, code) VALUES (OLD.id, OLD.domain_id, OLD.code);
    INSERT INTO link_changes (link_id, domain_id, code) SELECT NEW.id, NEW.domain_id, NEW.code
      WHERE NEW.domain_id IS NOT OLD.domain_id OR NEW.code IS NOT OLD.code;
  END;
  `,
  // A link created through kurz records who created it on its own row (migration 16), which the audit trail
  // shows as its link.create entry: an audit row per creation, with its five indexes, cost creation a third
  // of its rate. created_url keeps the first target once an edit changes it (the trigger). links_handed_on
  // holds only links their creator no longer owns, so a page of one user's creations reads their own links
  // (links_by_owner) and these, never every link.
  `
  ALTER TABLE links ADD COLUMN creator_id INTEGER;
  ALTER TABLE links ADD COLUMN created_via TEXT;
  ALTER TABLE links ADD COLUMN created_key TEXT;
  ALTER TABLE links ADD COLUMN created_client TEXT;
  ALTER TABLE links ADD COLUMN created_url TEXT;
  UPDATE links SET creator_id = a.actor_id, created_via = a.via, created_key = a.key_name, created_client = a.client,
    created_url = nullif(json_extract(a.details, '$.url'), links.url)
    FROM audit_log AS a WHERE a.action = 'link.create' AND a.subject_kind = 'link' AND a.subject_id = links.id;
  DELETE FROM audit_log WHERE action = 'link.create';
  CREATE INDEX links_handed_on ON links (creator_id, created_at) WHERE creator_id <> owner_id;
  CREATE TRIGGER links_keep_created_url AFTER UPDATE OF url ON links
    WHEN OLD.created_via IS NOT NULL AND OLD.created_url IS NULL AND NEW.url IS NOT OLD.url
  BEGIN
    UPDATE links SET created_url = OLD.url WHERE id = OLD.id;
  END;
  `,
  // A link's redirect rules (migration 17): their JSON as set through the API (src/rules/rule.ts's ruleJson,
  // validated on write), NULL for none. The change log follows the column, so that every cache drops a link
  // whose rules changed.
  `
  ALTER TABLE links ADD COLUMN rules TEXT;
  DROP TRIGGER links_changed;
  CREATE TRIGGER links_changed
    AFTER UPDATE OF url, deleted_at, enabled, expires_at, max_visits, password_hash, redirect_status, forward_query, blocked_rule,
      code, domain_id, review, rules ON links
  BEGIN
    INSERT INTO link_changes (link_id, domain_id, code) VALUES (OLD.id, OLD.domain_id, OLD.code);
    INSERT INTO link_changes (link_id, domain_id, code) SELECT NEW.id, NEW.domain_id, NEW.code
      WHERE NEW.domain_id IS NOT OLD.domain_id OR NEW.code IS NOT OLD.code;
  END;
  `,
  // A/B splits (migration 18). A link's own split: its variants' JSON as set through the API (rules/rule.ts's
  // parseSplit, validated on write), NULL for none; the change log follows the column. The visitor hash's
  // salt of each day, kept here so that every process (a worker, another PostgreSQL node) computes the same
  // hash: made once per day by whoever needs it first, deleted with the day's visitor hashes.
  `
  ALTER TABLE links ADD COLUMN split TEXT;
  DROP TRIGGER links_changed;
  CREATE TRIGGER links_changed
    AFTER UPDATE OF url, deleted_at, enabled, expires_at, max_visits, password_hash, redirect_status, forward_query, blocked_rule,
      code, domain_id, review, rules, split ON links
  BEGIN
    INSERT INTO link_changes (link_id, domain_id, code) VALUES (OLD.id, OLD.domain_id, OLD.code);
    INSERT INTO link_changes (link_id, domain_id, code) SELECT NEW.id, NEW.domain_id, NEW.code
      WHERE NEW.domain_id IS NOT OLD.domain_id OR NEW.code IS NOT OLD.code;
  END;
  CREATE TABLE visitor_salts (
    day  INTEGER PRIMARY KEY,
    salt BLOB    NOT NULL
  );
  `,
  // A link's social preview (migration 19): its JSON ({title, description, image}, links/preview.ts), NULL for
  // none. The change log follows the column, so that every cache drops a link whose preview changed.
  `
  ALTER TABLE links ADD COLUMN preview TEXT;
  DROP TRIGGER links_changed;
  CREATE TRIGGER links_changed
    AFTER UPDATE OF url, deleted_at, enabled, expires_at, max_visits, password_hash, redirect_status, forward_query, blocked_rule,
      code, domain_id, review, rules, split, preview ON links
  BEGIN
    INSERT INTO link_changes (link_id, domain_id, code) VALUES (OLD.id, OLD.domain_id, OLD.code);
    INSERT INTO link_changes (link_id, domain_id, code) SELECT NEW.id, NEW.domain_id, NEW.code
      WHERE NEW.domain_id IS NOT OLD.domain_id OR NEW.code IS NOT OLD.code;
  END;
  `,
  // A link's pages before the redirect (migration 20, issue 26): links.pages holds their settings' JSON
  // (src/rules/page-settings.ts, validated on write), NULL for the defaults; the change log follows it. Form
  // answers get a table of their own, gone with their link (a purge deletes its row).
  `
  ALTER TABLE links ADD COLUMN pages TEXT;
  DROP TRIGGER links_changed;
  CREATE TRIGGER links_changed
    AFTER UPDATE OF url, deleted_at, enabled, expires_at, max_visits, password_hash, redirect_status, forward_query, blocked_rule,
      code, domain_id, review, rules, split, preview, pages ON links
  BEGIN
    INSERT INTO link_changes (link_id, domain_id, code) VALUES (OLD.id, OLD.domain_id, OLD.code);
    INSERT INTO link_changes (link_id, domain_id, code) SELECT NEW.id, NEW.domain_id, NEW.code
      WHERE NEW.domain_id IS NOT OLD.domain_id OR NEW.code IS NOT OLD.code;
  END;
  CREATE TABLE form_answers (
    id      INTEGER PRIMARY KEY,
    link_id INTEGER NOT NULL REFERENCES links (id) ON DELETE CASCADE,
    at      INTEGER NOT NULL,
    answers TEXT NOT NULL
  );
  CREATE INDEX form_answers_by_link ON form_answers (link_id, id);
  `,
  // The dashboard's last 24 hours (migration 21): the instance's hours are read across links, by hour. A
  // row's hour never changes, so the index grows with new rows alone, not with each count added.
  `
  CREATE INDEX visit_hours_by_hour ON visit_hours (hour);
  `,
  // Webhooks (migration 22). A user's hooks, with the events they ask for (space-separated) and the secret
  // that signs their deliveries (kept as it is: signing needs it). webhook_events is the outbox: the triggers
  // record a link's creation, edit and deletion, and each raw visit, in the transaction that writes them,
  // whatever process that is, and only for an owner with an enabled hook asking for that event; the process
  // that delivers turns them into webhook_deliveries (one per hook; a hook's clicks together) and removes
  // them. A delivery's next_at is NULL once it is delivered or given up.
  `
  CREATE TABLE webhooks (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id),
    url        TEXT    NOT NULL,
    events     TEXT    NOT NULL,
    secret     TEXT    NOT NULL,
    enabled    INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX webhooks_by_user ON webhooks (user_id);
  CREATE TABLE webhook_events (
    id       INTEGER PRIMARY KEY,
    event    TEXT    NOT NULL,
    link_id  INTEGER NOT NULL,
    owner_id INTEGER NOT NULL,
    visit_id INTEGER,
    at       INTEGER NOT NULL
  );
  CREATE TABLE webhook_deliveries (
    id           INTEGER PRIMARY KEY,
    hook_id      INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event        TEXT    NOT NULL,
    body         TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_at      INTEGER,
    last_status  INTEGER,
    last_error   TEXT,
    delivered_at INTEGER
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE next_at IS NOT NULL;
  CREATE INDEX webhook_deliveries_by_hook ON webhook_deliveries (hook_id, id);
  CREATE TRIGGER links_webhook_created AFTER INSERT ON links
    WHEN EXISTS (SELECT 1 FROM webhooks WHERE user_id = NEW.owner_id AND enabled = 1 AND instr(' ' || events || ' ', ' link.created ') > 0)
  BEGIN
    INSERT INTO webhook_events (event, link_id, owner_id, at) VALUES ('link.created', NEW.id, NEW.owner_id, NEW.created_at);
  END;
  CREATE TRIGGER links_webhook_deleted AFTER UPDATE OF deleted_at ON links
    WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL
      AND EXISTS (SELECT 1 FROM webhooks WHERE user_id = NEW.owner_id AND enabled = 1 AND instr(' ' || events || ' ', ' link.deleted ') > 0)
  BEGIN
    INSERT INTO webhook_events (event, link_id, owner_id, at) VALUES ('link.deleted', NEW.id, NEW.owner_id, NEW.deleted_at);
  END;
  CREATE TRIGGER links_webhook_updated AFTER UPDATE ON links
    WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NULL
      AND (NEW.updated_at IS NOT OLD.updated_at OR NEW.url IS NOT OLD.url OR NEW.code IS NOT OLD.code
        OR NEW.domain_id IS NOT OLD.domain_id OR NEW.owner_id IS NOT OLD.owner_id OR NEW.title IS NOT OLD.title
        OR NEW.note IS NOT OLD.note OR NEW.expires_at IS NOT OLD.expires_at OR NEW.max_visits IS NOT OLD.max_visits
        OR NEW.password_hash IS NOT OLD.password_hash OR NEW.redirect_status IS NOT OLD.redirect_status
        OR NEW.forward_query IS NOT OLD.forward_query OR NEW.enabled IS NOT OLD.enabled OR NEW.review IS NOT OLD.review
        OR NEW.rules IS NOT OLD.rules OR NEW.split IS NOT OLD.split OR NEW.preview IS NOT OLD.preview OR NEW.pages IS NOT OLD.pages)
      AND EXISTS (SELECT 1 FROM webhooks WHERE user_id = NEW.owner_id AND enabled = 1 AND instr(' ' || events || ' ', ' link.updated ') > 0)
  BEGIN
    INSERT INTO webhook_events (event, link_id, owner_id, at) VALUES ('link.updated', NEW.id, NEW.owner_id, NEW.updated_at);
  END;
  CREATE TRIGGER visits_webhook_clicked AFTER INSERT ON visits
    WHEN EXISTS (SELECT 1 FROM webhooks WHERE enabled = 1 AND instr(' ' || events || ' ', ' link.clicked ') > 0
      AND user_id = (SELECT owner_id FROM links WHERE id = NEW.link_id))
  BEGIN
    INSERT INTO webhook_events (event, link_id, owner_id, visit_id, at)
      SELECT 'link.clicked', NEW.link_id, owner_id, NEW.id, NEW.at FROM links WHERE id = NEW.link_id;
  END;
  `,
  // A link.clicked is recorded by the visit store's flush (RECORD_CLICKS, one statement a flush, and only
  // while a hook asks for clicks), not by a trigger on visits (migration 23): the trigger's check ran for
  // every raw visit, 2-3 µs each with no hook at all, about what writing the row costs.
  `
  DROP TRIGGER visits_webhook_clicked;
  `,
  // A link's start time and whether robots.txt allows it (migration 24): starts_at NULL is live from its
  // creation, crawlable 0 is disallowed like every other path. The change log follows both, so that every
  // cache drops a link whose start time changed and every robots.txt is made again.
  `
  ALTER TABLE links ADD COLUMN starts_at INTEGER;
  ALTER TABLE links ADD COLUMN crawlable INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX links_crawlable ON links (domain_id) WHERE crawlable = 1;
  DROP TRIGGER links_changed;
  CREATE TRIGGER links_changed
    AFTER UPDATE OF url, deleted_at, enabled, expires_at, max_visits, password_hash, redirect_status, forward_query, blocked_rule,
      code, domain_id, review, rules, split, preview, pages, starts_at, crawlable ON links
  BEGIN
    INSERT INTO link_changes (link_id, domain_id, code) VALUES (OLD.id, OLD.domain_id, OLD.code);
    INSERT INTO link_changes (link_id, domain_id, code) SELECT NEW.id, NEW.domain_id, NEW.code
      WHERE NEW.domain_id IS NOT OLD.domain_id OR NEW.code IS NOT OLD.code;
  END;
  `,
  // Visits only counted, their detail dropped (dimension 11, 'undetailed'), read across links for a period
  // (migration 25): partial indexes by time, so the figure costs only the periods that had any.
  `
  CREATE INDEX visit_dimensions_undetailed ON visit_dimensions (hour) WHERE dimension = 11;
  CREATE INDEX visit_dimension_days_undetailed ON visit_dimension_days (day) WHERE dimension = 11;
  `,
  // Visits only counted become columns of the hours, days and owners' days they are counted in, instead of
  // rows of dimension 11 ('humans' and 'bots'): a stop that writes a backlog of them writes two B-tree rows
  // per count fewer, and the dashboard's figure comes with the visits it already reads. A link handed to
  // another user takes them along with its other figures (link_owner_changed, as migration 13's).
  `
  ALTER TABLE visit_hours ADD COLUMN undetailed_humans INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE visit_hours ADD COLUMN undetailed_bots INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE visit_days ADD COLUMN undetailed_humans INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE visit_days ADD COLUMN undetailed_bots INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE visit_totals ADD COLUMN undetailed_humans INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE visit_totals ADD COLUMN undetailed_bots INTEGER NOT NULL DEFAULT 0;
  UPDATE visit_hours SET undetailed_humans = d.count FROM visit_dimensions d
    WHERE d.dimension = 11 AND d.value = 'humans' AND d.link_id = visit_hours.link_id AND d.hour = visit_hours.hour;
  UPDATE visit_hours SET undetailed_bots = d.count FROM visit_dimensions d
    WHERE d.dimension = 11 AND d.value = 'bots' AND d.link_id = visit_hours.link_id AND d.hour = visit_hours.hour;
  UPDATE visit_days SET undetailed_humans = d.count FROM visit_dimension_days d
    WHERE d.dimension = 11 AND d.value = 'humans' AND d.link_id = visit_days.link_id AND d.day = visit_days.day;
  UPDATE visit_days SET undetailed_bots = d.count FROM visit_dimension_days d
    WHERE d.dimension = 11 AND d.value = 'bots' AND d.link_id = visit_days.link_id AND d.day = visit_days.day;
  UPDATE visit_totals SET undetailed_humans = s.humans, undetailed_bots = s.bots FROM (
    SELECT d.day, v.owner_id, sum(iif(d.value = 'humans', d.count, 0)) AS humans, sum(iif(d.value = 'bots', d.count, 0)) AS bots
    FROM visit_dimension_days d JOIN visit_days v ON v.day = d.day AND v.link_id = d.link_id
    WHERE d.dimension = 11 GROUP BY d.day, v.owner_id
  ) s WHERE s.day = visit_totals.day AND s.owner_id = visit_totals.owner_id;
  DELETE FROM visit_dimensions WHERE dimension = 11;
  DELETE FROM visit_dimension_days WHERE dimension = 11;
  DROP INDEX visit_dimensions_undetailed;
  DROP INDEX visit_dimension_days_undetailed;
  DROP TRIGGER link_owner_changed;
  CREATE TRIGGER link_owner_changed AFTER UPDATE OF owner_id ON links WHEN NEW.owner_id <> OLD.owner_id
  BEGIN
    UPDATE visit_totals SET
      humans = humans - (SELECT humans FROM visit_days WHERE day = visit_totals.day AND link_id = NEW.id),
      bots = bots - (SELECT bots FROM visit_days WHERE day = visit_totals.day AND link_id = NEW.id),
      uniques = uniques - (SELECT uniques FROM visit_days WHERE day = visit_totals.day AND link_id = NEW.id),
      undetailed_humans = undetailed_humans - (SELECT undetailed_humans FROM visit_days WHERE day = visit_totals.day AND link_id = NEW.id),
      undetailed_bots = undetailed_bots - (SELECT undetailed_bots FROM visit_days WHERE day = visit_totals.day AND link_id = NEW.id)
      WHERE owner_id = OLD.owner_id AND day IN (SELECT day FROM visit_days WHERE link_id = NEW.id AND day IN
        (SELECT DISTINCT hour - hour % 86400000 FROM visit_hours WHERE link_id = NEW.id));
    INSERT INTO visit_totals (day, owner_id, humans, bots, uniques, undetailed_humans, undetailed_bots)
      SELECT day, NEW.owner_id, humans, bots, uniques, undetailed_humans, undetailed_bots FROM visit_days
        WHERE link_id = NEW.id AND day IN (SELECT DISTINCT hour - hour % 86400000 FROM visit_hours WHERE link_id = NEW.id)
      ON CONFLICT (day, owner_id) DO UPDATE SET humans = humans + excluded.humans, bots = bots + excluded.bots,
        uniques = uniques + excluded.uniques, undetailed_humans = undetailed_humans + excluded.undetailed_humans,
        undetailed_bots = undetailed_bots + excluded.undetailed_bots;
    UPDATE visit_days SET owner_id = NEW.owner_id WHERE link_id = NEW.id AND day IN
      (SELECT DISTINCT hour - hour % 86400000 FROM visit_hours WHERE link_id = NEW.id);
  END;
  `,
];

/**
 * Applies the pending migrations, all in one immediate transaction: an upgrade is all or nothing (a step
 * that fails, or a kill half-way, leaves the file at the schema it had), a new file gets its tables with
 * one sync of the disk instead of one per step, and two processes starting on one file never apply a step
 * twice. Throws if the file is newer than this build.
 */
export function migrate(db: Database): void {
  const current = (): number => db.pragma('user_version', { simple: true }) as number;
  if (current() > MIGRATIONS.length) {
    throw new Error(
      `the database has schema version ${current()}, newer than this kurz knows (${MIGRATIONS.length}); run a newer kurz or restore a backup`,
    );
  }
  if (current() === MIGRATIONS.length) return;
  db.transaction(() => {
    for (let version = current(); version < MIGRATIONS.length; version++) db.exec(MIGRATIONS[version] ?? '');
    db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).immediate();
}
