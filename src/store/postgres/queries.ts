import type { AuditFilterName } from '../audit-rows.ts';
import type { ListAsk } from '../list-ask.ts';

/** Every SQL statement the PostgreSQL backend runs, by name. Parameters are positional ($1, $2, …). */

/** "kurz" in ASCII: the advisory lock key under which migrations run, and the class of kurz's two-key locks. */
export const KURZ_LOCK = 0x6b75727a;

/**
 * The channel the change triggers notify (migration 4): "linkId domain code" for a link edited, deleted or
 * moved (a move notifies its old and its new address), "- domain -" for a domain added, edited or removed.
 */
export const LINK_CHANGES_CHANNEL = 'kurz_link_changes';

// Connection and transactions.

export const PING = `SELECT 1 AS ok`;

export const SERVER_VERSION = `SELECT current_setting('server_version') AS version`;

/** First statement of a transaction that only reads, all of it from one snapshot (kurz check). */
export const READ_ONLY_SNAPSHOT = `SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`;
export const DATABASE_SIZE = `SELECT pg_database_size(current_database())::float8 AS bytes`;

export const BEGIN = `BEGIN`;

export const COMMIT = `COMMIT`;

export const ROLLBACK = `ROLLBACK`;

/** Each job of a group commit runs in its own savepoint, so one that fails is undone alone. */
export const SAVEPOINT = `SAVEPOINT job`;

/** The previous job's savepoint released and the next one's begun, in one round trip (simple protocol). */
export const NEXT_SAVEPOINT = `RELEASE job; SAVEPOINT job`;

export const ROLLBACK_TO = `ROLLBACK TO job`;

/** Around the jobs of a group commit run together: undone as a whole when they cannot all stand (link-store.ts). */
export const SAVEPOINT_TOGETHER = `SAVEPOINT together`;

export const ROLLBACK_TO_TOGETHER = `ROLLBACK TO together`;

export const LISTEN_LINK_CHANGES = `LISTEN ${LINK_CHANGES_CHANNEL}`;

// Schema and migrations.

export const LOCK_MIGRATIONS = `SELECT pg_advisory_lock(${KURZ_LOCK})`;

export const UNLOCK_MIGRATIONS = `SELECT pg_advisory_unlock(${KURZ_LOCK})`;

export const HAS_SCHEMA_TABLE = `SELECT to_regclass('kurz_schema') IS NOT NULL AS present`;

/** Tables, views and sequences in the schema kurz would create its tables in. */
export const OBJECTS_IN_SCHEMA = `SELECT count(*) AS count FROM pg_class
  WHERE relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND relkind IN ('r', 'p', 'v', 'm', 'f', 'S')`;

export const CREATE_SCHEMA_TABLE = `CREATE TABLE kurz_schema (version integer NOT NULL); INSERT INTO kurz_schema (version) VALUES (0)`;

export const SCHEMA_VERSION = `SELECT version FROM kurz_schema`;

export const SET_SCHEMA_VERSION = `UPDATE kurz_schema SET version = $1`;

// Links.

/** A link with its visit counts and tags (a JSON array as text, sorted bytewise as SQLite sorts): select from LINKS. */
const LINK_COLUMNS = `links.id, domain_id AS domain, owner_id AS "ownerId", code, url, is_alias AS "isAlias", created_at AS "createdAt", updated_at AS "updatedAt",
  coalesce(v.count, 0) AS "visitCount", v.last_at AS "lastVisitAt", deleted_at AS "deletedAt", title, note,
  (SELECT coalesce(json_agg(tag ORDER BY tag COLLATE "C"), '[]'::json)::text FROM link_tags WHERE link_id = links.id) AS tags,
  expires_at AS "expiresAt", max_visits AS "maxVisits", claimed_visits AS "claimedVisits", password_hash AS "passwordHash",
  redirect_status AS "redirectStatus", forward_query AS "forwardQuery", enabled, blocked_rule AS "blockedRule",
  blocked_list AS "blockedList", blocked_at AS "blockedAt", review, split, (rules IS NOT NULL)::int AS "hasRules", preview, pages,
  starts_at AS "startsAt", crawlable`;

const LINKS = `links LEFT JOIN link_visits AS v ON v.link_id = links.id`;

/** The link with code $1 on domain $2 (the unique index links_by_address). */
export const LINK_BY_ADDRESS = `SELECT ${LINK_COLUMNS} FROM ${LINKS} WHERE code = $1 AND domain_id = $2`;

/** Inside a write: locks the row, so edits of one link from several nodes take turns. */
export const LINK_BY_ADDRESS_FOR_UPDATE = `${LINK_BY_ADDRESS} FOR UPDATE OF links`;

/** The redirect's lookup: the target and what the redirect cache holds of the link's options. Code $1, domain $2. */
export const TARGET_BY_ADDRESS = `SELECT id, url, (deleted_at IS NOT NULL)::int AS deleted, (blocked_rule IS NOT NULL)::int AS blocked,
  enabled, expires_at AS "expiresAt", max_visits AS "maxVisits", (password_hash IS NOT NULL)::int AS locked, review,
  redirect_status AS "redirectStatus", forward_query AS "forwardQuery", rules, split, preview, pages, starts_at AS "startsAt"
  FROM links WHERE code = $1 AND domain_id = $2`;

export const LINK_BY_ID = `SELECT ${LINK_COLUMNS} FROM ${LINKS} WHERE links.id = $1`;

/** The live crawlable links of domain $1, for its robots.txt (index links_crawlable). */
export const CRAWLABLE_LINKS = `SELECT code, starts_at AS "startsAt", expires_at AS "expiresAt" FROM links
  WHERE domain_id = $1 AND crawlable = 1 AND deleted_at IS NULL AND enabled = 1 AND blocked_rule IS NULL AND review IS NULL`;

/** Serialises the dedupe probes of one URL hash (its first four bytes, $1) across nodes until the transaction ends. */
export const LOCK_URL_HASH = `SELECT pg_advisory_xact_lock(${KURZ_LOCK}, $1)`;

/**
 * The dedupe probe: the newest live deduplicable link of owner $4 on domain $3 with this URL hash created at or after the
 * cut-off; one in review only when $5 (its creator's links wait too). Only the URL hash's index may find the rows:
 * the domain and the owner are compared as `+ 0`, which no index serves. Without statistics (a new database, or one
 * `kurz migrate` just filled, until autovacuum analyzes it) the planner otherwise reads them through the owner's and
 * the domain's indexes, which hold nearly every link, so each creation read them all.
 */
export const LINK_ID_BY_URL_HASH = `SELECT max(id) AS id FROM links
  WHERE url_hash = $1 AND created_at >= $2 AND deleted_at IS NULL AND domain_id + 0 = $3 AND owner_id + 0 = $4
    AND (review IS NULL OR $5::boolean)`;

/** LOCK_URL_HASH for several keys, taken in order, so that two transactions never wait for each other's. */
export const LOCK_URL_HASHES = `SELECT pg_advisory_xact_lock(${KURZ_LOCK}, k) FROM (SELECT DISTINCT unnest($1::integer[]) AS k ORDER BY k) AS keys`;

/**
 * LINK_ID_BY_URL_HASH for several probes, a parameter of theirs an array each: a row per probe, in order, its id null
 * for none. The domain and the owner as `+ 0` there too.
 */
export const LINK_IDS_BY_URL_HASH = `SELECT (SELECT max(id) FROM links
    WHERE url_hash = p.hash AND created_at >= p.since AND deleted_at IS NULL AND domain_id + 0 = p.domain AND owner_id + 0 = p.owner
      AND (review IS NULL OR p.in_review)) AS id
  FROM unnest($1::bytea[], $2::bigint[], $3::bigint[], $4::bigint[], $5::boolean[]) WITH ORDINALITY AS p(hash, since, domain, owner, in_review, n)
  ORDER BY p.n`;

/** What each order sorts by, of the row `links` (or `c`, the cursor's link): text in code point order, as SQLite's. */
const ORDER_KEYS = {
  created: (t: string) => `${t}.id`,
  visits: () => 'coalesce(v.count, 0)',
  code: (t: string) => `${t}.code COLLATE "C"`,
  url: (t: string) => `${t}.url COLLATE "C"`,
  title: (t: string) => `coalesce(${t}.title, '') COLLATE "C"`,
} as const;

/** The list's filters of `ask` (without its cursor), their values pushed by `$`. */
function listFilters(ask: ListAsk, $: (value: unknown, type: string) => string): Array<string | null> {
  return [
    ask.search === null
      ? null
      : (() => {
          const p = $(ask.search, 'text');
          return `(code ILIKE ${p} ESCAPE '\\' OR url ILIKE ${p} ESCAPE '\\' OR title ILIKE ${p} ESCAPE '\\' OR note ILIKE ${p} ESCAPE '\\')`;
        })(),
    ask.tags === null
      ? null
      : `links.id IN (SELECT link_id FROM link_tags WHERE tag = ANY(${$(ask.tags, 'text[]')}) GROUP BY link_id HAVING count(*) >= ${$(ask.tagsNeeded, 'int')})`,
    ask.excludeTags === null
      ? null
      : `links.id NOT IN (SELECT link_id FROM link_tags WHERE tag = ANY(${$(ask.excludeTags, 'text[]')}) GROUP BY link_id HAVING count(*) >= ${$(ask.excludeNeeded, 'int')})`,
    ask.includeDeleted ? null : 'deleted_at IS NULL',
    ask.blocked ? 'blocked_rule IS NOT NULL' : null,
    ask.review === null ? null : `review = ${$(ask.review, 'text')}`,
    ask.domain === null ? null : `domain_id = ${$(ask.domain, 'bigint')}`,
    ask.owner === null ? null : `owner_id = ${$(ask.owner, 'bigint')}`,
    ask.createdFrom === null ? null : `created_at >= ${$(ask.createdFrom, 'bigint')}`,
    ask.createdBefore === null ? null : `created_at < ${$(ask.createdBefore, 'bigint')}`,
    ask.state === null ? null : stateFilter(ask.state, () => $(ask.now, 'bigint')),
  ];
}

/**
 * The list's query and its values: `search` an ILIKE pattern on code, URL, title and note; `tags`, of which a
 * link needs `tagsNeeded`; `excludeTags`, `excludeNeeded` of which leave it out; `state` as LIST_STATES names
 * it, at `now`; in `sort` and `order` (the key, then the id), after the cursor's link (a text order reads its
 * key by id), skipping `offset`.
 */
export function listLinks(ask: ListAsk): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const $ = (value: unknown, type: string): string => `$${values.push(value)}::${type}`;
  const filters = listFilters(ask, $);
  const key = ORDER_KEYS[ask.sort]('links');
  const [beyond, direction] = ask.order === 'desc' ? ['<', 'DESC'] : ['>', 'ASC'];
  if (ask.after !== null) {
    const id = $(ask.after.id, 'bigint');
    const cursorKey =
      ask.sort === 'visits' ? $(ask.after.visits, 'bigint') : `(SELECT ${ORDER_KEYS[ask.sort]('c')} FROM links AS c WHERE c.id = ${id})`;
    filters.push(
      ask.sort === 'created'
        ? `links.id ${beyond} ${id}`
        : `(${key} ${beyond} ${cursorKey} OR (${key} = ${cursorKey} AND links.id ${beyond} ${id}))`,
    );
  }
  const where = filters.filter((f) => f !== null);
  const order = ask.sort === 'created' ? `links.id ${direction}` : `${key} ${direction}, links.id ${direction}`;
  return {
    text: `SELECT ${LINK_COLUMNS} FROM ${LINKS} ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY ${order} LIMIT ${$(ask.limit, 'int')} OFFSET ${$(ask.offset, 'int')}`,
    values,
  };
}

/** How many links the list's filters take (numbered pages' total), and its values. */
export function countLinks(ask: ListAsk): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const where = listFilters(ask, (value, type) => `$${values.push(value)}::${type}`).filter((f) => f !== null);
  return { text: `SELECT count(*)::int AS count FROM links ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}`, values };
}

/** A link's state as the list filters it (LIST_STATES), `now()` naming the time it is judged at. */
function stateFilter(state: string, now: () => string): string {
  if (state === 'deleted') return 'deleted_at IS NOT NULL';
  const live = 'deleted_at IS NULL AND ';
  if (state === 'active') {
    const at = now();
    return `${live}enabled = 1 AND blocked_rule IS NULL AND review IS NULL AND (expires_at IS NULL OR expires_at > ${at}) AND (max_visits IS NULL OR claimed_visits < max_visits) AND (starts_at IS NULL OR starts_at <= ${at})`;
  }
  if (state === 'scheduled') return `${live}starts_at > ${now()}`;
  if (state === 'disabled') return `${live}enabled = 0`;
  if (state === 'expired') return `${live}expires_at <= ${now()}`;
  if (state === 'used-up') return `${live}max_visits IS NOT NULL AND claimed_visits >= max_visits`;
  if (state === 'blocked') return `${live}blocked_rule IS NOT NULL`;
  return `${live}review = 'pending'`;
}

/** Tags of live links (of owner $1, unless null), most used first. */
export const TAG_COUNTS = `SELECT tag, count(*) AS count FROM link_tags JOIN links ON links.id = link_tags.link_id
  WHERE deleted_at IS NULL AND ($1::bigint IS NULL OR owner_id = $1) GROUP BY tag ORDER BY count DESC, tag COLLATE "C"`;

export const DELETE_TAGS = `DELETE FROM link_tags WHERE link_id = $1`;

export const INSERT_TAGS = `INSERT INTO link_tags (link_id, tag) SELECT $1::bigint, unnest($2::text[]) ON CONFLICT DO NOTHING`;

/**
 * Sets every editable column; the caller merges the edit into the stored link first. A new target clears the
 * link's block: it passed the blocklist on its way in. $13 is the domain: another one moves the link (the
 * unique index links_by_address refuses it when the code is taken there). $14 is the owner, $15 and $16 the start time and
 * whether robots.txt allows it (laterOptionParams).
 */
export const UPDATE_LINK = `UPDATE links SET url = $2, url_hash = $3, title = $4, note = $5, expires_at = $6, max_visits = $7,
  password_hash = $8, redirect_status = $9, forward_query = $10, enabled = $11, updated_at = $12, domain_id = $13, owner_id = $14,
  starts_at = $15, crawlable = $16,
  blocked_rule = CASE WHEN url = $2 THEN blocked_rule END, blocked_list = CASE WHEN url = $2 THEN blocked_list END,
  blocked_at = CASE WHEN url = $2 THEN blocked_at END
  WHERE id = $1 AND deleted_at IS NULL`;

/** Takes one of a limited link's visits; no row changes once they are used up. */
export const CLAIM_VISIT = `UPDATE links SET claimed_visits = claimed_visits + 1
  WHERE id = $1 AND deleted_at IS NULL AND max_visits IS NOT NULL AND claimed_visits < max_visits RETURNING id`;

export const HAS_VISITS_LEFT = `SELECT claimed_visits < max_visits AS "left" FROM links
  WHERE id = $1 AND deleted_at IS NULL AND max_visits IS NOT NULL`;

/** One page of every link, oldest first, after the id $1, $2 at a time. */
export const ALL_LINKS_PAGE = `SELECT ${LINK_COLUMNS} FROM ${LINKS} WHERE links.id > $1 ORDER BY links.id LIMIT $2`;

/** Live links whose last visit (or creation, if never visited) is before the cut-off. */
export const UNVISITED_LINKS = `SELECT ${LINK_COLUMNS} FROM ${LINKS}
  WHERE deleted_at IS NULL AND coalesce(v.last_at, created_at) < $1 ORDER BY links.id`;

/** Every link of one owner ($2) to another ($1) (index links_by_owner); the trigger moves their figures. */
export const HAND_OVER_LINKS = `UPDATE links SET owner_id = $1 WHERE owner_id = $2`;

/** A tag renamed: first given to the links with the old one (a link with both keeps one), then the old one taken off (DELETE_TAG). */
export const ADD_RENAMED_TAG = `INSERT INTO link_tags (link_id, tag) SELECT t.link_id, $2 FROM link_tags t JOIN links l ON l.id = t.link_id
  WHERE t.tag = $1 AND ($3::bigint IS NULL OR l.owner_id = $3) ON CONFLICT DO NOTHING`;

export const DELETE_TAG = `DELETE FROM link_tags t USING links l WHERE l.id = t.link_id AND t.tag = $1 AND ($2::bigint IS NULL OR l.owner_id = $2)`;

export const DELETE_LINK = `UPDATE links SET deleted_at = $2, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL`;

// The blocklist (links/screening.ts): a scan reads live links' targets in pages and sets or clears their block.

/** One page of live links' targets, after the id $1, $2 at a time. */
export const LIVE_LINK_URLS_PAGE = `SELECT id, domain_id AS domain, code, url, rules, split, blocked_rule AS "blockedRule", blocked_list AS "blockedList" FROM links
  WHERE id > $1 AND deleted_at IS NULL ORDER BY id LIMIT $2`;

/** Sets (or, with nulls, clears) link $1's block ($3 rule, $4 list, $5 time), unless its target is no longer $2. */
export const SET_BLOCK = `UPDATE links SET blocked_rule = $3, blocked_list = $4, blocked_at = $5
  WHERE id = $1 AND url = $2 AND deleted_at IS NULL`;

/** Live links the blocklist disabled (index links_blocked). */
export const BLOCKED_COUNT = `SELECT count(*)::int AS count FROM links WHERE blocked_rule IS NOT NULL AND deleted_at IS NULL`;

// A link's redirect rules (src/rules/): their JSON, NULL for none.

/** Link $1's rules. */
export const LINK_RULES = `SELECT rules FROM links WHERE id = $1`;

/** Sets live link $1's rules to $2 (NULL clears them) at $3; it is no longer a dedupe target, as after an edit. */
export const SET_RULES = `UPDATE links SET rules = $2, updated_at = $3, url_hash = NULL WHERE id = $1 AND deleted_at IS NULL`;

// A link's own A/B split (rules/stored.ts): its variants' JSON, NULL for none.

/** Sets live link $1's split to $2 (NULL removes it) at $3; it is no longer a dedupe target, as after an edit. */
export const SET_SPLIT = `UPDATE links SET split = $2, updated_at = $3, url_hash = NULL WHERE id = $1 AND deleted_at IS NULL`;

// The visitor hash's daily salt (visits/visitor-salts.ts).

/** The salt of day $1 (its start, ms). */
export const VISITOR_SALT = `SELECT salt FROM visitor_salts WHERE day = $1`;

/** Stores salt $2 for day $1 unless the day has one: two nodes racing end with the first one's. */
export const ADD_VISITOR_SALT = `INSERT INTO visitor_salts (day, salt) VALUES ($1, $2) ON CONFLICT DO NOTHING`;

/** Deletes the salts of days before $1, with their visitor hashes: the hashes can no longer be made again. */
export const DELETE_VISITOR_SALTS_BEFORE = `DELETE FROM visitor_salts WHERE day < $1`;

// A link's social preview (links/preview.ts): its JSON, NULL for none.

/** Sets link $1's preview to $2, in the transaction that inserts, imports or edits it. */
export const SET_PREVIEW = `UPDATE links SET preview = $2 WHERE id = $1`;
// A link's pages before the redirect (src/rules/page-settings.ts): their JSON, NULL for the defaults; and its form answers.

/** Link $1's page settings. */
export const LINK_PAGES = `SELECT pages FROM links WHERE id = $1`;

/** Sets live link $1's page settings to $2 (NULL: the defaults) at $3. */
export const SET_PAGES = `UPDATE links SET pages = $2, updated_at = $3 WHERE id = $1 AND deleted_at IS NULL`;

/** Stores answers $3 to link $1's form at $2. */
export const ADD_FORM_ANSWER = `INSERT INTO form_answers (link_id, at, answers) VALUES ($1, $2, $3)`;

/** Up to $3 of link $1's form answers below the id $2, newest first. */
export const FORM_ANSWERS_PAGE = `SELECT id, at, answers FROM form_answers WHERE link_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`;

/** How many answers link $1's form has. */
export const FORM_ANSWER_COUNT = `SELECT count(*)::int AS count FROM form_answers WHERE link_id = $1`;

/** Deletes every answer to link $1's form. */
export const DELETE_FORM_ANSWERS = `DELETE FROM form_answers WHERE link_id = $1`;

// The review queue (links/review.ts).

/** Moves live link $1 from review state $2 to $3 (null: approved) at $4; a rejected link stops being a dedupe target. */
export const SET_REVIEW = `UPDATE links SET review = $3, updated_at = $4, url_hash = CASE WHEN $3::text IS NULL THEN url_hash END
  WHERE id = $1 AND deleted_at IS NULL AND review IS NOT DISTINCT FROM $2::text`;

/** Live links waiting for review (index links_in_review). */
export const PENDING_COUNT = `SELECT count(*)::int AS count FROM links WHERE review = 'pending' AND deleted_at IS NULL`;

/** The columns every insert sets, from $1 (the id) to $17 (its review); typed, as INSERT_LINK selects them. */
const NEW_LINK_COLUMNS = `id, domain_id, code, url, url_hash, is_alias, created_at, title, note, expires_at, max_visits, password_hash,
  redirect_status, forward_query, enabled, owner_id, review`;

const NEW_LINK_VALUES = `$1::bigint, $2::bigint, $3::text, $4::text, $5::bytea, $6::integer, $7::bigint, $8::text, $9::text,
  $10::bigint, $11::bigint, $12::text, $13::integer, $14::integer, $15::integer, $16::bigint, $17::text`;

/**
 * A link created through kurz: $18 to $21 record who created it (audit-rows.ts reads that as the audit
 * trail's entry), $22 and $23 are its start time and whether robots.txt allows it. No row comes back when the code is taken on the link's domain, or, for a generated code ($6 = 0: not an
 * alias), on any domain (links_by_address starts with the code): generated codes are unique across all.
 */
export const INSERT_LINK = `INSERT INTO links (${NEW_LINK_COLUMNS}, updated_at, creator_id, created_via, created_key, created_client,
    starts_at, crawlable)
  SELECT ${NEW_LINK_VALUES}, $7, $18::bigint, $19::text, $20::text, $21::text, $22::bigint, $23::integer
  WHERE $6 = 1 OR NOT EXISTS (SELECT 1 FROM links WHERE code = $3)
  ON CONFLICT (code, domain_id) DO NOTHING RETURNING id`;

/**
 * INSERT_LINK for several links at once, a column of theirs an array each (in INSERT_LINK's parameter order);
 * a row of a taken code is left out as there, so only the ids inserted come back. Rows of one statement do
 * not see each other: the caller gives it no two rows with one code.
 */
export const INSERT_LINKS = `INSERT INTO links (${NEW_LINK_COLUMNS}, updated_at, creator_id, created_via, created_key, created_client,
    starts_at, crawlable)
  SELECT n.id, n.domain_id, n.code, n.url, n.url_hash, n.is_alias, n.created_at, n.title, n.note, n.expires_at, n.max_visits,
    n.password_hash, n.redirect_status, n.forward_query, n.enabled, n.owner_id, n.review, n.created_at, n.creator_id, n.created_via,
    n.created_key, n.created_client, n.starts_at, n.crawlable
  FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bytea[], $6::integer[], $7::bigint[], $8::text[], $9::text[],
    $10::bigint[], $11::bigint[], $12::text[], $13::integer[], $14::integer[], $15::integer[], $16::bigint[], $17::text[],
    $18::bigint[], $19::text[], $20::text[], $21::text[], $22::bigint[], $23::integer[])
    AS n(id, domain_id, code, url, url_hash, is_alias, created_at, title, note, expires_at, max_visits, password_hash, redirect_status,
      forward_query, enabled, owner_id, review, creator_id, created_via, created_key, created_client, starts_at, crawlable)
  WHERE n.is_alias = 1 OR NOT EXISTS (SELECT 1 FROM links WHERE links.code = n.code)
  ON CONFLICT (code, domain_id) DO NOTHING RETURNING id`;

/** An imported link under its own code ($21 and $22: its start time and crawlable): no row comes back when the code is taken on its domain. */
export const IMPORT_LINK = `INSERT INTO links (${NEW_LINK_COLUMNS}, updated_at, deleted_at, claimed_visits, starts_at, crawlable)
  VALUES (${NEW_LINK_VALUES}, $18, $19, $20, $21, $22) ON CONFLICT (code, domain_id) DO NOTHING RETURNING id`;

/**
 * Reserves $1 link ids for this node: run on its own, never inside a write transaction, so that nodes
 * never wait for each other's transactions to get ids.
 */
export const RESERVE_LINK_IDS = `UPDATE kurz_ids SET next_id = next_id + $1 WHERE name = 'links' RETURNING next_id - $1 AS first`;

export const LAST_CHANGE = `SELECT coalesce(max(seq), 0) AS seq FROM link_changes`;

export const CHANGES_AFTER = `SELECT seq, link_id AS "linkId", domain_id AS domain, code FROM link_changes WHERE seq > $1 ORDER BY seq`;

export const FORGET_CHANGES_BEFORE = `DELETE FROM link_changes WHERE seq <= $1`;

// Visits: raw rows and the rollups a flush adds to. Rows go as arrays, one per column; each upsert sorts
// its rows by primary key, so that two nodes flushing at once lock rows in one order and cannot deadlock.

/** A link's all-time human visits and last visit. */
export const ADD_LINK_VISITS = `INSERT INTO link_visits (link_id, count, last_at)
  SELECT link_id, sum(count), max(last_at) FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS r(link_id, count, last_at)
  GROUP BY link_id ORDER BY link_id
  ON CONFLICT (link_id) DO UPDATE SET count = link_visits.count + excluded.count, last_at = greatest(link_visits.last_at, excluded.last_at)`;

/** The visitor hashes new for their link and day come back; one seen before is not unique. */
export const INSERT_VISITORS = `INSERT INTO visitors (day, link_id, hash)
  SELECT DISTINCT day, link_id, hash FROM unnest($1::bigint[], $2::bigint[], $3::bytea[]) AS r(day, link_id, hash)
  ORDER BY day, link_id, hash
  ON CONFLICT DO NOTHING RETURNING day, link_id AS "linkId", hash`;

/** What an hour's, a day's or an owner's day's row of `table` adds on conflict: each count to its own. */
const addCounts = (table: string): string => `humans = ${table}.humans + excluded.humans, bots = ${table}.bots + excluded.bots,
  uniques = ${table}.uniques + excluded.uniques, undetailed_humans = ${table}.undetailed_humans + excluded.undetailed_humans,
  undetailed_bots = ${table}.undetailed_bots + excluded.undetailed_bots`;

/** A flush's days, one array per column: (day, link, humans, bots, uniques, undetailed humans, undetailed bots). */
const DAY_ROWS = `unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])
  AS r(day, link_id, humans, bots, uniques, undetailed_humans, undetailed_bots)`;

export const ADD_VISIT_HOURS = `INSERT INTO visit_hours (link_id, hour, humans, bots, uniques, undetailed_humans, undetailed_bots)
  SELECT link_id, hour, sum(humans), sum(bots), sum(uniques), sum(undetailed_humans), sum(undetailed_bots)
  FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])
    AS r(link_id, hour, humans, bots, uniques, undetailed_humans, undetailed_bots)
  GROUP BY link_id, hour ORDER BY link_id, hour
  ON CONFLICT (link_id, hour) DO UPDATE SET ${addCounts('visit_hours')}`;

/** A day's visits of each link, under the link's owner (a link is never removed; one not there counts as the first admin's). */
export const ADD_VISIT_DAYS = `INSERT INTO visit_days (day, link_id, owner_id, humans, bots, uniques, undetailed_humans, undetailed_bots)
  SELECT r.day, r.link_id, coalesce(min(links.owner_id), 1), sum(r.humans), sum(r.bots), sum(r.uniques), sum(r.undetailed_humans),
    sum(r.undetailed_bots)
  FROM ${DAY_ROWS}
  LEFT JOIN links ON links.id = r.link_id
  GROUP BY r.day, r.link_id ORDER BY r.day, r.link_id
  ON CONFLICT (day, link_id) DO UPDATE SET ${addCounts('visit_days')}`;

/** The same days summed per owner: each user's figures, whose sum is the instance's. */
export const ADD_VISIT_TOTALS = `INSERT INTO visit_totals (day, owner_id, humans, bots, uniques, undetailed_humans, undetailed_bots)
  SELECT r.day, coalesce(links.owner_id, 1), sum(r.humans), sum(r.bots), sum(r.uniques), sum(r.undetailed_humans), sum(r.undetailed_bots)
  FROM ${DAY_ROWS}
  LEFT JOIN links ON links.id = r.link_id
  GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (day, owner_id) DO UPDATE SET ${addCounts('visit_totals')}`;

export const ADD_VISIT_DIMENSIONS = `INSERT INTO visit_dimensions (link_id, hour, dimension, value, count)
  SELECT link_id, hour, dimension, value, sum(count)
  FROM unnest($1::bigint[], $2::bigint[], $3::integer[], $4::text[], $5::bigint[]) AS r(link_id, hour, dimension, value, count)
  GROUP BY link_id, hour, dimension, value ORDER BY link_id, hour, dimension, value
  ON CONFLICT (link_id, hour, dimension, value) DO UPDATE SET count = visit_dimensions.count + excluded.count`;

export const ADD_VISIT_DIMENSION_DAYS = `INSERT INTO visit_dimension_days (link_id, day, dimension, value, count)
  SELECT link_id, day, dimension, value, sum(count)
  FROM unnest($1::bigint[], $2::bigint[], $3::integer[], $4::text[], $5::bigint[]) AS r(link_id, day, dimension, value, count)
  GROUP BY link_id, day, dimension, value ORDER BY link_id, day, dimension, value
  ON CONFLICT (link_id, day, dimension, value) DO UPDATE SET count = visit_dimension_days.count + excluded.count`;

/** Raw visits, in the order given. */
export const INSERT_VISITS = `INSERT INTO visits (link_id, at, bot, referrer, browser, os, device, country, language)
  SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])`;

/**
 * A background writer's receipt before it writes anything: each chunk then updates a committed row, whose
 * lock has a server reading the receipt of a killed writer wait for that writer's last transaction to end.
 */
export const START_HANDOVER = `INSERT INTO visit_handovers (writer, pass_from, pass_to, written) VALUES ($1, 0, 0, 0)
  ON CONFLICT (writer) DO NOTHING`;

/**
 * A background writer's receipt, replaced with each chunk it writes, first in the chunk's transaction. A
 * writer's receipts only grow (by pass, then by visits written), so no row comes back when this chunk was
 * committed already: its COMMIT's answer was lost with the connection, and the chunk is not written again.
 */
export const SET_HANDOVER = `INSERT INTO visit_handovers AS h (writer, pass_from, pass_to, written) VALUES ($1, $2, $3, $4)
  ON CONFLICT (writer) DO UPDATE SET pass_from = excluded.pass_from, pass_to = excluded.pass_to, written = excluded.written
  WHERE (h.pass_from, h.written) < (excluded.pass_from, excluded.written)
  RETURNING writer`;

/** A writer's receipt, removed as it is read. */
export const TAKE_HANDOVER = `DELETE FROM visit_handovers WHERE writer = $1 RETURNING pass_from AS "from", pass_to AS "to", written`;

/** The oldest raw visits before the cut-off, $2 at a time (index visits_by_at). */
export const DELETE_VISITS_BEFORE = `DELETE FROM visits WHERE id IN (SELECT id FROM visits WHERE at < $1 ORDER BY at LIMIT $2)`;

export const COUNT_VISITS_BEFORE = `SELECT count(*) AS count FROM visits WHERE at < $1`;

export const DELETE_VISITORS_BEFORE = `DELETE FROM visitors WHERE day < $1`;

/** One link's hours in [$2, $3). */
export const LINK_HOURS = `SELECT hour AS t, humans, bots, uniques, undetailed_humans + undetailed_bots AS undetailed FROM visit_hours
  WHERE link_id = $1 AND hour >= $2 AND hour < $3 ORDER BY hour`;

/** One link's breakdowns in [$2, $3), summed. */
export const LINK_DIMENSIONS = `SELECT dimension, value, sum(count) AS count FROM visit_dimensions
  WHERE link_id = $1 AND hour >= $2 AND hour < $3 GROUP BY dimension, value`;

/** One link's breakdowns over whole days in [$2, $3), summed. */
export const LINK_DIMENSION_DAYS = `SELECT dimension, value, sum(count) AS count FROM visit_dimension_days
  WHERE link_id = $1 AND day >= $2 AND day < $3 GROUP BY dimension, value`;

/** A VisitTally's figures summed over the rows of its hour or day. */
const SUMS = `sum(humans) AS humans, sum(bots) AS bots, sum(uniques) AS uniques, sum(undetailed_humans + undetailed_bots) AS undetailed`;

/** Every link's visits per day in [$1, $2). */
export const DAY_TOTALS = `SELECT day AS t, ${SUMS} FROM visit_totals WHERE day >= $1 AND day < $2 GROUP BY day ORDER BY day`;

/** One owner's links' visits per day in [$1, $2). */
export const OWNER_DAY_TOTALS = `SELECT day AS t, humans, bots, uniques, undetailed_humans + undetailed_bots AS undetailed
  FROM visit_totals WHERE day >= $1 AND day < $2 AND owner_id = $3 ORDER BY day`;

/**
 * The $3 links with the most human visits in [$1, $2) ($4 days long), exactly, without grouping every row
 * of the period: the sums of the last day's top links give a bar B, and a link whose sum reaches B has at
 * least B/days on some day, so only links with such a day are summed (primary-key lookups).
 */
/**
 * The $3 links with the most human visits in [$1, $2) ($4 days long), exactly, without grouping every row
 * of the period: the sums of the last day's top links give a bar B, and a link whose sum reaches B has at
 * least B/days on some day, so only links with such a day are summed (primary-key lookups). `rows` narrows
 * the rows of visit_days read (every link's, or one owner's: $5).
 */
const topLinks = (rows: string): string => `WITH RECURSIVE
  days(day) AS (SELECT $1::bigint UNION ALL SELECT day + 86400000 FROM days WHERE day + 86400000 < $2::bigint),
  seed AS (SELECT link_id FROM visit_days WHERE ${rows} day = (SELECT max(day) FROM visit_days WHERE ${rows} day >= $1 AND day < $2)
    ORDER BY humans DESC LIMIT $3),
  seed_sums AS (SELECT sum(humans) AS humans FROM visit_days
    WHERE day IN (SELECT day FROM days) AND link_id IN (SELECT link_id FROM seed) GROUP BY link_id),
  bar AS (SELECT CASE WHEN count(*) < $3 THEN 1 ELSE min(humans) END AS humans FROM seed_sums),
  candidates AS (SELECT DISTINCT link_id FROM visit_days
    WHERE ${rows} day >= $1 AND day < $2 AND humans * $4::bigint >= (SELECT humans FROM bar)),
  top AS (SELECT link_id, sum(humans) AS humans, sum(bots) AS bots, sum(uniques) AS uniques FROM visit_days
    WHERE day IN (SELECT day FROM days) AND link_id IN (SELECT link_id FROM candidates)
    GROUP BY link_id HAVING sum(humans) > 0 ORDER BY humans DESC, link_id LIMIT $3)
  SELECT domain_id AS domain, code, url, title, top.humans, top.bots, top.uniques FROM top JOIN links ON links.id = top.link_id
  ORDER BY top.humans DESC, links.id`;

export const TOP_LINKS = topLinks('');

/** One owner's top links (index visit_days_by_owner): their own rows alone are read. */
export const OWNER_TOP_LINKS = topLinks('owner_id = $5 AND');

/** The instance's visits per hour in [$1, $2), across links (index visit_hours_by_hour). */
export const HOUR_TOTALS = `SELECT hour AS t, ${SUMS} FROM visit_hours WHERE hour >= $1 AND hour < $2 GROUP BY hour ORDER BY hour`;

/** One owner's ($3) links' visits per hour in [$1, $2). */
export const OWNER_HOUR_TOTALS = `SELECT hour AS t, ${SUMS} FROM visit_hours JOIN links ON links.id = visit_hours.link_id
  WHERE hour >= $1 AND hour < $2 AND links.owner_id = $3 GROUP BY hour ORDER BY hour`;

/** The $3 links with the most human visits in [$1, $2), whole hours (a short period: every row is summed); `rows` narrows them to an owner's ($4). */
const hourTopLinks = (rows: string): string => `SELECT domain_id AS domain, code, url, title, top.humans, top.bots, top.uniques FROM
  (SELECT link_id, sum(humans) AS humans, sum(bots) AS bots, sum(uniques) AS uniques FROM visit_hours
    WHERE hour >= $1 AND hour < $2 ${rows} GROUP BY link_id HAVING sum(humans) > 0 ORDER BY humans DESC, link_id LIMIT $3) AS top
  JOIN links ON links.id = top.link_id ORDER BY top.humans DESC, links.id`;

export const HOUR_TOP_LINKS = hourTopLinks('');

export const OWNER_HOUR_TOP_LINKS = hourTopLinks('AND link_id IN (SELECT id FROM links WHERE owner_id = $4)');

/** Links created per hour in [$1, $2) (index links_by_created); an owner's with $3. */
export const LINKS_CREATED_PER_HOUR = `SELECT created_at - created_at % 3600000 AS t, count(*) AS count FROM links
  WHERE created_at >= $1 AND created_at < $2 AND ($3::bigint IS NULL OR owner_id = $3) GROUP BY t ORDER BY t`;

/** DOMAIN_TOTALS over whole hours. */
export const HOUR_DOMAIN_TOTALS = `SELECT domains.id AS domain,
  (SELECT count(*) FROM links WHERE domain_id = domains.id AND deleted_at IS NULL) AS links,
  coalesce((SELECT sum(visit_hours.humans) FROM visit_hours JOIN links ON links.id = visit_hours.link_id
    WHERE links.domain_id = domains.id AND visit_hours.hour >= $1 AND visit_hours.hour < $2), 0) AS humans
  FROM domains WHERE removed_at IS NULL ORDER BY domains.id`;

/** Links created per day in [$1, $2) (index links_by_created). */
export const LINKS_CREATED_PER_DAY = `SELECT created_at - created_at % 86400000 AS t, count(*) AS count FROM links
  WHERE created_at >= $1 AND created_at < $2 GROUP BY t ORDER BY t`;

export const OWNER_LINKS_CREATED_PER_DAY = `SELECT created_at - created_at % 86400000 AS t, count(*) AS count FROM links
  WHERE created_at >= $1 AND created_at < $2 AND owner_id = $3 GROUP BY t ORDER BY t`;

/**
 * All-time figures of the instance: live links, counted (off the event loop, here), and people's visits from
 * visit_totals (one row a day, written with each link's count), as on SQLite.
 */
export const INSTANCE_TOTALS = `SELECT (SELECT count(*) FROM links WHERE deleted_at IS NULL) AS links,
  (SELECT coalesce(sum(humans), 0) FROM visit_totals) AS humans, (SELECT coalesce(sum(bots), 0) FROM visit_totals) AS bots`;

/** One owner's all-time figures (index links_by_owner for the count). */
export const OWNER_TOTALS = `SELECT (SELECT count(*) FROM links WHERE owner_id = $1 AND deleted_at IS NULL) AS links,
  (SELECT coalesce(sum(humans), 0) FROM visit_totals WHERE owner_id = $1) AS humans,
  (SELECT coalesce(sum(bots), 0) FROM visit_totals WHERE owner_id = $1) AS bots`;

/** The raw visits of live links a scope names (ports.ts VisitScope: $1 link, $2 tag, $3 domain, $4 owner, each null for any), in [$5, $6), $7 people's only. */
const SCOPED_VISITS = `visits JOIN links ON links.id = visits.link_id
  WHERE at >= $5 AND at < $6 AND links.deleted_at IS NULL AND (NOT $7::boolean OR bot IS NULL)
    AND ($1::bigint IS NULL OR visits.link_id = $1) AND ($3::bigint IS NULL OR links.domain_id = $3)
    AND ($4::bigint IS NULL OR links.owner_id = $4)
    AND ($2::text IS NULL OR visits.link_id IN (SELECT link_id FROM link_tags WHERE tag = $2))`;

/** A page of them, newest first: $8 at most, after skipping $9. */
export const SCOPED_VISITS_PAGE = `SELECT visits.id, at, code, links.domain_id AS domain, links.url, bot, referrer, browser, os, device,
  country, language FROM ${SCOPED_VISITS} ORDER BY at DESC, visits.id DESC LIMIT $8 OFFSET $9`;

export const SCOPED_VISITS_COUNT = `SELECT count(*)::int AS count FROM ${SCOPED_VISITS}`;

/** Each tag of live links ($1's alone, unless null): its links and their all-time visits, each link's read by its key. */
export const TAG_TOTALS = `SELECT tag, count(*)::int AS links, coalesce(sum(t.humans), 0)::bigint AS humans, coalesce(sum(t.bots), 0)::bigint AS bots
  FROM link_tags JOIN links ON links.id = link_tags.link_id
  LEFT JOIN LATERAL (SELECT sum(humans) AS humans, sum(bots) AS bots FROM visit_hours WHERE link_id = links.id) AS t ON true
  WHERE deleted_at IS NULL AND ($1::bigint IS NULL OR owner_id = $1) GROUP BY tag ORDER BY tag COLLATE "C"`;

/** Each listed link's all-time visits ($1, the ids), from the hourly rollup (its key starts with the link). */
export const LINK_TOTALS = `SELECT link_id AS "linkId", sum(humans)::bigint AS humans, sum(bots)::bigint AS bots FROM visit_hours
  WHERE link_id = ANY($1::bigint[]) GROUP BY link_id`;

/** Raw visits in [$3, $4) after (at $1, id $2), in time order, $5 at a time (index visits_by_at). */
export const VISITS_PAGE = `SELECT visits.id, at, code, bot, referrer, browser, os, device, country, language
  FROM visits JOIN links ON links.id = visits.link_id
  WHERE (at, visits.id) > ($1, $2) AND at >= $3 AND at < $4 ORDER BY at, visits.id LIMIT $5`;

// Domains (migration 4): id 0 is the default domain; a removed one keeps its row, for its deleted links.

const DOMAIN_COLUMNS = `id, host, scheme, not_found_redirect AS "notFoundRedirect", root_redirect AS "rootRedirect", created_at AS "createdAt"`;

/**
 * Who may use a domain (migration 8): null when everyone may, else a JSON array of [id, name] pairs by name
 * (empty: admins only).
 */
const DOMAIN_USERS = `CASE WHEN limited = 1 THEN (SELECT coalesce(json_agg(json_build_array(users.id, users.name) ORDER BY lower(users.name)), '[]')::text
    FROM domain_users JOIN users ON users.id = domain_users.user_id WHERE domain_users.domain_id = domains.id) END AS users`;

/** Every domain not removed, the default first, with its live links (index links_by_domain). */
export const LIST_DOMAINS = `SELECT ${DOMAIN_COLUMNS}, ${DOMAIN_USERS},
  (SELECT count(*) FROM links WHERE domain_id = domains.id AND deleted_at IS NULL) AS links
  FROM domains WHERE removed_at IS NULL ORDER BY id <> 0, host COLLATE "C"`;

export const DOMAIN_BY_ID = `SELECT ${DOMAIN_COLUMNS}, ${DOMAIN_USERS} FROM domains WHERE id = $1 AND removed_at IS NULL`;

/**
 * Inside a link write: whether domain $1 exists and was not removed, holding it (a key-share lock, which edits
 * of the domain do not wait for) so that removing it waits until the link is committed, and then sees it.
 */
export const HOLD_LIVE_DOMAIN = `SELECT 1 AS held FROM domains WHERE id = $1 AND removed_at IS NULL FOR KEY SHARE`;

/** Inside a domain's edit or removal: the domain (without its users), locked until the transaction ends. */
export const DOMAIN_BY_ID_FOR_UPDATE = `SELECT ${DOMAIN_COLUMNS} FROM domains WHERE id = $1 AND removed_at IS NULL FOR UPDATE`;

/** No row comes back when a domain not removed has the host. $6: 1 when it is limited to some users. */
export const INSERT_DOMAIN = `INSERT INTO domains (host, scheme, not_found_redirect, root_redirect, created_at, limited)
  VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (host) WHERE removed_at IS NULL DO NOTHING RETURNING id`;

/** $5 null keeps whether it is limited (its users are not being set). */
export const UPDATE_DOMAIN = `UPDATE domains SET scheme = $2, not_found_redirect = $3, root_redirect = $4, limited = coalesce($5, limited)
  WHERE id = $1 AND removed_at IS NULL`;

/** Before a domain's users are set again (in the transaction that updates its row). */
export const CLEAR_DOMAIN_USERS = `DELETE FROM domain_users WHERE domain_id = $1`;

/** Domain $1's users: the ids in $2. */
export const ADD_DOMAIN_USERS = `INSERT INTO domain_users (domain_id, user_id) SELECT $1, unnest($2::bigint[])`;

export const LIVE_LINKS_ON_DOMAIN = `SELECT count(*) AS count FROM links WHERE domain_id = $1 AND deleted_at IS NULL`;

/** Removes domain $1 at $2; the default domain is never removed. */
export const REMOVE_DOMAIN = `UPDATE domains SET removed_at = $2 WHERE id = $1 AND id <> 0 AND removed_at IS NULL`;

/**
 * Per domain not removed: its live links, and its links' human visits in [$1, $2) (visit_days joined to
 * links). Read only when there is more than one domain.
 */
export const DOMAIN_TOTALS = `SELECT domains.id AS domain,
  (SELECT count(*) FROM links WHERE domain_id = domains.id AND deleted_at IS NULL) AS links,
  coalesce((SELECT sum(visit_days.humans) FROM visit_days JOIN links ON links.id = visit_days.link_id
    WHERE links.domain_id = domains.id AND visit_days.day >= $1 AND visit_days.day < $2), 0) AS humans
  FROM domains WHERE removed_at IS NULL ORDER BY domains.id`;

// Settings.

export const SETTING = `SELECT value FROM settings WHERE key = $1`;

export const INSERT_SETTING_IF_MISSING = `INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`;

export const SET_SETTING = `INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;

// Sessions and API keys: rows are found by the SHA-256 of the secret the client holds.

export const INSERT_SESSION = `INSERT INTO sessions (id_hash, "user", created_at, seen_at, user_id) VALUES ($1, $2, $3, $4, $5)`;

export const SESSION_BY_ID_HASH = `SELECT id_hash AS "idHash", "user", user_id AS "userId", created_at AS "createdAt", seen_at AS "seenAt"
  FROM sessions WHERE id_hash = $1`;

export const DELETE_USER_SESSIONS = `DELETE FROM sessions WHERE user_id = $1`;

export const TOUCH_SESSION = `UPDATE sessions SET seen_at = $2 WHERE id_hash = $1`;

export const DELETE_SESSION = `DELETE FROM sessions WHERE id_hash = $1`;

/** Sessions idle since $1 or begun before $2. */
export const DELETE_EXPIRED_SESSIONS = `DELETE FROM sessions WHERE seen_at < $1 OR created_at < $2`;

export const DELETE_ALL_SESSIONS = `DELETE FROM sessions`;

const KEY_COLUMNS = `id, user_id AS "userId", name, prefix, scopes, created_at AS "createdAt", expires_at AS "expiresAt", last_used_at AS "lastUsedAt",
  last_used_from AS "lastUsedFrom", revoked_at AS "revokedAt"`;

/**
 * No row comes back when a live key has the name (or the hash is known). Checked before the insert too, so
 * that a refused key costs no id (as in SQLite); ON CONFLICT covers two inserts racing.
 */
export const INSERT_KEY = `INSERT INTO api_keys (name, prefix, key_hash, created_at, scopes, expires_at, user_id)
  SELECT $1, $2, $3, $4::bigint, $5, $6::bigint, $7::bigint
  WHERE NOT EXISTS (SELECT 1 FROM api_keys WHERE (name = $1 AND user_id = $7 AND revoked_at IS NULL) OR key_hash = $3)
  ON CONFLICT DO NOTHING RETURNING ${KEY_COLUMNS}`;

export const KEY_BY_HASH = `SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = $1`;

/** One user's keys (or everyone's, for a null $1): live ones first, by name; then revoked ones, newest revocation first. */
export const LIST_KEYS = `SELECT ${KEY_COLUMNS} FROM api_keys WHERE $1::bigint IS NULL OR user_id = $1
  ORDER BY revoked_at IS NOT NULL, revoked_at DESC, name COLLATE "C", user_id`;

export const REVOKE_KEY = `UPDATE api_keys SET revoked_at = $2 WHERE name = $1 AND user_id = $3 AND revoked_at IS NULL`;

// Users, as in SQLite: by id, by name whatever its case (index users_by_name), or by their invitation's hash.

const USER_COLUMNS = `id, name, email, role, state, password_hash AS "passwordHash", invite_expires_at AS "inviteExpiresAt",
  created_at AS "createdAt"`;

export const ENSURE_FIRST_ADMIN = `INSERT INTO users (id, name, role, password_hash, created_at) VALUES (1, $1, 'admin', $2, $3)
  ON CONFLICT DO NOTHING`;

/** One statement, so that a password set by someone in between is never replaced. */
export const SET_PASSWORD_IF_NONE = `UPDATE users SET password_hash = $1 WHERE id = $2 AND password_hash IS NULL`;

export const USER_BY_ID = `SELECT ${USER_COLUMNS} FROM users WHERE id = $1`;

export const USER_BY_NAME = `SELECT ${USER_COLUMNS} FROM users WHERE lower(name) = lower($1)`;

export const USER_BY_INVITE = `SELECT ${USER_COLUMNS} FROM users WHERE invite_hash = $1`;

export const LIST_USERS = `SELECT ${USER_COLUMNS},
  (SELECT count(*)::int FROM links WHERE owner_id = users.id AND deleted_at IS NULL) AS links
  FROM users ORDER BY id <> 1, lower(name) COLLATE "C"`;

/** No row comes back when the name is taken, whatever its case. */
export const INSERT_USER = `INSERT INTO users (name, email, role, invite_hash, invite_expires_at, created_at)
  VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING ${USER_COLUMNS}`;

/** Sets the columns whose flag ($2, $4, …) is 1. */
export const UPDATE_USER = `UPDATE users SET
  email = CASE WHEN $2 = 1 THEN $3 ELSE email END,
  role = CASE WHEN $4 = 1 THEN $5 ELSE role END,
  state = CASE WHEN $6 = 1 THEN $7 ELSE state END,
  password_hash = CASE WHEN $8 = 1 THEN $9 ELSE password_hash END,
  invite_hash = CASE WHEN $10 = 1 THEN $11 ELSE invite_hash END,
  invite_expires_at = CASE WHEN $10 = 1 THEN $12::bigint ELSE invite_expires_at END
  WHERE id = $1 RETURNING ${USER_COLUMNS}`;

export const TOUCH_KEY = `UPDATE api_keys SET last_used_at = $2, last_used_from = $3 WHERE id = $1`;

// kurz migrate: copying a SQLite database's rows into these tables.

/** kurz's tables that hold data, which `importRows` may fill; names from this list alone go into SQL. */
export const DATA_TABLES = [
  'users',
  'domains',
  'domain_users',
  'links',
  'link_tags',
  'link_visits',
  'link_changes',
  'settings',
  'sessions',
  'api_keys',
  'visits',
  'form_answers',
  'webhooks',
  'webhook_deliveries',
  'visit_hours',
  'visit_dimensions',
  'visit_dimension_days',
  'visit_totals',
  'visit_days',
  'visitors',
  'visitor_salts',
  'audit_log',
] as const;

export type DataTable = (typeof DATA_TABLES)[number];

export const TABLE_COLUMNS = `SELECT column_name AS name FROM information_schema.columns
  WHERE table_schema = current_schema() AND table_name = $1`;

/**
 * `rows` rows of `columns` into `table`: both checked by the caller against the schema. The default domain's
 * row, which both backends' migrations make, is replaced by the one copied in.
 */
export const importRows = (table: DataTable, columns: readonly string[], rows: number): string => {
  const values = Array.from({ length: rows }, (_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
  const replace = table === 'domains' ? ` ON CONFLICT (id) DO UPDATE SET ${columns.map((c) => `"${c}" = excluded."${c}"`).join(', ')}` : '';
  return `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${values.join(', ')}${replace}`;
};

export const countRows = (table: DataTable): string => `SELECT count(*) AS count FROM ${table}`;

/** True when no data table holds a row (but the default domain's, which the migration makes). */
export const IS_EMPTY = `SELECT ${DATA_TABLES.map((t) => `NOT EXISTS (SELECT 1 FROM ${t}${t === 'domains' ? ' WHERE id <> 0' : ''})`).join(' AND ')} AS empty`;

/** Moves id reservation and every identity column past the rows imported. */
export const FINISH_IMPORT = `
  UPDATE kurz_ids SET next_id = greatest(next_id, (SELECT coalesce(max(id), 0) + 1 FROM links)) WHERE name = 'links';
  SELECT setval(pg_get_serial_sequence('domains', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM domains), false);
  SELECT setval(pg_get_serial_sequence('visits', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM visits), false);
  SELECT setval(pg_get_serial_sequence('form_answers', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM form_answers), false);
  SELECT setval(pg_get_serial_sequence('api_keys', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM api_keys), false);
  SELECT setval(pg_get_serial_sequence('users', 'id'), (SELECT greatest(coalesce(max(id), 0) + 1, 2) FROM users), false);
  SELECT setval(pg_get_serial_sequence('link_changes', 'seq'), (SELECT coalesce(max(seq), 0) + 1 FROM link_changes), false);
  SELECT setval(pg_get_serial_sequence('audit_log', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM audit_log), false);
  SELECT setval(pg_get_serial_sequence('webhooks', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM webhooks), false);
  SELECT setval(pg_get_serial_sequence('webhook_deliveries', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM webhook_deliveries), false)`;

// The audit trail. A page is put together from the fragments of the filters it uses, ? standing for each
// parameter in order (numbered $1, $2, … by auditPage); newest first, through the index of its filter.

export const INSERT_AUDIT = `INSERT INTO audit_log (at, actor_id, actor_name, via, key_name, client, action, subject_kind, subject_id, subject_label, details)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`;

const AUDIT_COLUMNS = `id, at, actor_id AS "actorId", actor_name AS "actorName", via, key_name AS "keyName", client, action,
  subject_kind AS "subjectKind", subject_id AS "subjectId", subject_label AS "subjectLabel", details`;

export const AUDIT_FRAGMENTS: Record<AuditFilterName, string> = {
  actorId: 'actor_id = ?',
  actorName: 'actor_name = ?',
  action: 'action = ?',
  actionPrefix: 'action >= ? AND action < ?',
  subject: 'subject_kind = ? AND subject_id = ?',
  from: 'at >= ?',
  to: 'at < ?',
  after: '(at, id) < (?, ?)',
};

/** One page of entries with these filters, then LIMIT ?. */
export function auditPage(filters: readonly AuditFilterName[]): string {
  const where = filters.length === 0 ? '' : ` WHERE ${filters.map((f) => AUDIT_FRAGMENTS[f]).join(' AND ')}`;
  return numbered(`SELECT ${AUDIT_COLUMNS} FROM audit_log${where} ORDER BY at DESC, id DESC LIMIT ?`);
}

/** `sql` with each ? numbered in order ($1, $2, …): for the statements both backends share. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export const DELETE_AUDIT_BEFORE = `DELETE FROM audit_log WHERE at < $1`;

export const COUNT_AUDIT_BEFORE = `SELECT count(*)::int AS count FROM audit_log WHERE at < $1`;

// Webhooks: the hooks, the events the triggers record for them (the outbox) and their deliveries.

const WEBHOOK_COLUMNS = `id, user_id AS "userId", url, events, secret, enabled, created_at AS "createdAt"`;

const DELIVERY_COLUMNS = `d.id, d.hook_id AS "hookId", d.event, d.body, d.created_at AS "createdAt", d.attempts, d.next_at AS "nextAt",
  d.last_status AS "lastStatus", d.last_error AS "lastError", d.delivered_at AS "deliveredAt"`;

export const LIST_WEBHOOKS = `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE $1::bigint IS NULL OR user_id = $1 ORDER BY id`;

export const WEBHOOK_BY_ID = `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1`;

export const INSERT_WEBHOOK = `INSERT INTO webhooks (user_id, url, events, secret, enabled, created_at)
  VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${WEBHOOK_COLUMNS}`;

export const DELETE_WEBHOOK = `DELETE FROM webhooks WHERE id = $1 AND user_id = $2`;

export const SET_WEBHOOK_ENABLED = `UPDATE webhooks SET enabled = $1 WHERE id = $2 AND user_id = $3`;

/** The oldest events first, each click with its visit (gone if pruned in the meantime). */
export const PENDING_WEBHOOK_EVENTS = `SELECT e.id, e.event, e.link_id AS "linkId", e.owner_id AS "ownerId", e.at, v.id AS "visitId",
    v.bot, v.referrer, v.browser, v.os, v.device, v.country, v.language
  FROM webhook_events AS e LEFT JOIN visits AS v ON v.id = e.visit_id ORDER BY e.id LIMIT $1`;

export const DELETE_WEBHOOK_EVENTS = `DELETE FROM webhook_events WHERE id = ANY($1::bigint[])`;

export const INSERT_DELIVERIES = `INSERT INTO webhook_deliveries (hook_id, event, body, created_at, next_at)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])`;

export const DUE_DELIVERIES = `SELECT ${DELIVERY_COLUMNS}, w.url, w.secret
  FROM webhook_deliveries AS d JOIN webhooks AS w ON w.id = d.hook_id
  WHERE d.next_at <= $1 AND w.enabled = 1 ORDER BY d.next_at, d.id LIMIT $2`;

export const CLAIM_DELIVERY = `UPDATE webhook_deliveries SET next_at = $3 WHERE id = $1 AND next_at = $2`;

/** An attempt's outcome; a delivered one's body is of no more use, and a busy hook's clicks make it large. */
export const RECORD_ATTEMPT = `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = $2, last_error = $3,
  delivered_at = CASE WHEN $4::boolean THEN $5::bigint ELSE delivered_at END, body = CASE WHEN $4::boolean THEN '' ELSE body END,
  next_at = $6 WHERE id = $1`;

export const DELIVERIES_OF = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries AS d WHERE d.hook_id = $1 ORDER BY d.id DESC LIMIT $2`;

export const PRUNE_DELIVERIES = `DELETE FROM webhook_deliveries WHERE created_at < $1 AND next_at IS NULL`;
