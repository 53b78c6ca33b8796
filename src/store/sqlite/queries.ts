import type { AuditFilterName } from '../audit-rows.ts';

/** Every SQL statement kurz runs, by name. Stores prepare them once, at construction. */

/** A link with its visit counts and tags (a JSON array, sorted): select from LINKS. */
const LINK_COLUMNS = `id, domain_id AS domain, owner_id AS ownerId, code, url, is_alias AS isAlias, created_at AS createdAt, updated_at AS updatedAt,
  coalesce(v.count, 0) AS visitCount, v.last_at AS lastVisitAt, deleted_at AS deletedAt, title, note,
  (SELECT json_group_array(tag) FROM (SELECT tag FROM link_tags WHERE link_id = links.id ORDER BY tag)) AS tags,
  expires_at AS expiresAt, max_visits AS maxVisits, claimed_visits AS claimedVisits, password_hash AS passwordHash,
  redirect_status AS redirectStatus, forward_query AS forwardQuery, enabled, blocked_rule AS blockedRule,
  blocked_list AS blockedList, blocked_at AS blockedAt, review, split, rules IS NOT NULL AS hasRules, preview, pages, starts_at AS startsAt, crawlable`;

const LINKS = `links LEFT JOIN link_visits AS v ON v.link_id = links.id`;

/** Parameters (code, domain): the order of the index links_by_address. */
export const LINK_BY_ADDRESS = `SELECT ${LINK_COLUMNS} FROM ${LINKS} WHERE code = ? AND domain_id = ?`;

/** The redirect's lookup: the target and what the redirect cache holds of the link's options. Parameters (code, domain). */
export const TARGET_BY_ADDRESS = `SELECT id, url, deleted_at IS NOT NULL AS deleted, blocked_rule IS NOT NULL AS blocked, enabled,
  expires_at AS expiresAt, max_visits AS maxVisits, password_hash IS NOT NULL AS locked, review, redirect_status AS redirectStatus,
  forward_query AS forwardQuery, rules, split, preview, pages, starts_at AS startsAt
  FROM links WHERE code = ? AND domain_id = ?`;

export const LINK_BY_ID = `SELECT ${LINK_COLUMNS} FROM ${LINKS} WHERE id = ?`;

/** The live crawlable links of a domain, for its robots.txt (index links_crawlable). */
export const CRAWLABLE_LINKS = `SELECT code, starts_at AS startsAt, expires_at AS expiresAt FROM links
  WHERE domain_id = ? AND crawlable = 1 AND deleted_at IS NULL AND enabled = 1 AND blocked_rule IS NULL AND review IS NULL`;

/**
 * The dedupe probe: ids of the live deduplicable links with this URL hash created at or after the cut-off.
 * Bare (no join, no ORDER BY), because nearly every probe finds nothing; the link is read only on a hit.
 * `+owner_id` keeps SQLite on links_by_url_hash: links_by_owner would scan every link of the owner. A link in
 * review is found only for a creator whose links wait too (the last parameter, 1).
 */
export const LINK_IDS_BY_URL_HASH = `SELECT id FROM links
  WHERE url_hash = ? AND created_at >= ? AND deleted_at IS NULL AND domain_id = ? AND +owner_id = ? AND (review IS NULL OR ?)`;

/**
 * The list's filter: `search` is a LIKE pattern matched against code, URL, title and note; `tags` a JSON list
 * of which a link needs `tagsNeeded` (1: any; all of them: every one), `excludeTags` one of which `excludeNeeded` leave it
 * out; `state` as LIST_STATES names it, at `now`.
 */
const LIST_FILTER = `(@search IS NULL OR code LIKE @search ESCAPE '\\' OR url LIKE @search ESCAPE '\\'
      OR title LIKE @search ESCAPE '\\' OR note LIKE @search ESCAPE '\\')
    AND (@tags IS NULL OR links.id IN (SELECT link_id FROM link_tags WHERE tag IN (SELECT value FROM json_each(@tags))
      GROUP BY link_id HAVING count(*) >= @tagsNeeded))
    AND (@excludeTags IS NULL OR links.id NOT IN (SELECT link_id FROM link_tags
      WHERE tag IN (SELECT value FROM json_each(@excludeTags)) GROUP BY link_id HAVING count(*) >= @excludeNeeded))
    AND (@includeDeleted OR deleted_at IS NULL)
    AND (@blocked = 0 OR blocked_rule IS NOT NULL)
    AND (@review IS NULL OR review = @review)
    AND (@domain IS NULL OR domain_id = @domain)
    AND (@owner IS NULL OR owner_id = @owner)
    AND (@createdFrom IS NULL OR created_at >= @createdFrom)
    AND (@createdBefore IS NULL OR created_at < @createdBefore)
    AND (@state IS NULL
      OR (@state = 'deleted' AND deleted_at IS NOT NULL)
      OR (deleted_at IS NULL AND (
        (@state = 'active' AND enabled = 1 AND blocked_rule IS NULL AND review IS NULL
          AND (expires_at IS NULL OR expires_at > @now) AND (max_visits IS NULL OR claimed_visits < max_visits)
          AND (starts_at IS NULL OR starts_at <= @now))
        OR (@state = 'scheduled' AND starts_at > @now)
        OR (@state = 'disabled' AND enabled = 0)
        OR (@state = 'expired' AND expires_at <= @now)
        OR (@state = 'used-up' AND max_visits IS NOT NULL AND claimed_visits >= max_visits)
        OR (@state = 'blocked' AND blocked_rule IS NOT NULL)
        OR (@state = 'in-review' AND review = 'pending'))))`;

/** What each order sorts by, of the row `links` (or of `c`, the cursor's link: a text order reads its key by id). */
const ORDER_KEYS = {
  created: (t: string) => `${t}.id`,
  visits: () => 'coalesce(v.count, 0)',
  code: (t: string) => `${t}.code`,
  url: (t: string) => `${t}.url`,
  title: (t: string) => `coalesce(${t}.title, '')`,
} as const;

/**
 * The list in one order, a page after the cursor's link (`@before`: its id; `@visits`: its visit count) when
 * `paged`, `@limit` at a time after skipping `@offset`: the key, then the id, both ascending or both descending.
 */
export function listLinks(sort: keyof typeof ORDER_KEYS, order: 'asc' | 'desc', paged: boolean): string {
  const key = ORDER_KEYS[sort]('links');
  const [beyond, direction] = order === 'desc' ? ['<', 'DESC'] : ['>', 'ASC'];
  const cursorKey = sort === 'visits' ? '@visits' : `(SELECT ${ORDER_KEYS[sort]('c')} FROM links AS c WHERE c.id = @before)`;
  const after = !paged
    ? ''
    : sort === 'created'
      ? `links.id ${beyond} @before AND`
      : `(${key} ${beyond} ${cursorKey} OR (${key} = ${cursorKey} AND links.id ${beyond} @before)) AND`;
  const orderBy = `ORDER BY ${sort === 'created' ? '' : `${key} ${direction}, `}links.id ${direction}`;
  return `SELECT ${LINK_COLUMNS} FROM ${LINKS}
  WHERE ${after} ${LIST_FILTER}
  ${orderBy} LIMIT @limit OFFSET @offset`;
}

/** How many links the list's filter takes (numbered pages' total). */
export const COUNT_LINKS = `SELECT count(*) FROM links WHERE ${LIST_FILTER}`;

/** Tags of live links, most used first. */
export const TAG_COUNTS = `SELECT tag, count(*) AS count FROM link_tags JOIN links ON links.id = link_tags.link_id
  WHERE deleted_at IS NULL AND (@owner IS NULL OR owner_id = @owner) GROUP BY tag ORDER BY count DESC, tag`;

export const DELETE_TAGS = `DELETE FROM link_tags WHERE link_id = ?`;

export const INSERT_TAG = `INSERT INTO link_tags (link_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING`;

/**
 * Sets every editable column; the caller merges the edit into the stored link first. A new target clears the
 * link's block: it passed the blocklist on its way in.
 */
export const UPDATE_LINK = `UPDATE links SET url = @url, url_hash = @urlHash, title = @title, note = @note, expires_at = @expiresAt,
  starts_at = @startsAt, crawlable = @crawlable, max_visits = @maxVisits, password_hash = @passwordHash, redirect_status = @redirectStatus, forward_query = @forwardQuery,
  enabled = @enabled, domain_id = @domain, owner_id = @ownerId, updated_at = @updatedAt, blocked_rule = CASE WHEN url = @url THEN blocked_rule END,
  blocked_list = CASE WHEN url = @url THEN blocked_list END, blocked_at = CASE WHEN url = @url THEN blocked_at END
  WHERE id = @id AND deleted_at IS NULL`;

/** Takes one of a limited link's visits; no row changes once they are used up. */
export const CLAIM_VISIT = `UPDATE links SET claimed_visits = claimed_visits + 1
  WHERE id = ? AND deleted_at IS NULL AND max_visits IS NOT NULL AND claimed_visits < max_visits`;

export const HAS_VISITS_LEFT = `SELECT claimed_visits < max_visits FROM links WHERE id = ? AND deleted_at IS NULL AND max_visits IS NOT NULL`;

/** One page of every link, oldest first, after the id `after`. */
export const ALL_LINKS_PAGE = `SELECT ${LINK_COLUMNS} FROM ${LINKS} WHERE id > ? ORDER BY id LIMIT ?`;

/** Live links whose last visit (or creation, if never visited) is before the cut-off. */
export const UNVISITED_LINKS = `SELECT ${LINK_COLUMNS} FROM ${LINKS}
  WHERE deleted_at IS NULL AND coalesce(v.last_at, created_at) < ? ORDER BY id`;

/** Every link of one owner to another (index links_by_owner); the triggers move their figures. */
export const HAND_OVER_LINKS = `UPDATE links SET owner_id = @to WHERE owner_id = @from`;

/** A tag renamed: first given to the links with the old one (a link with both keeps one), then the old one taken off (DELETE_TAG). */
export const ADD_RENAMED_TAG = `INSERT INTO link_tags (link_id, tag) SELECT link_id, @to FROM link_tags JOIN links ON links.id = link_tags.link_id
  WHERE tag = @from AND (@owner IS NULL OR owner_id = @owner) ON CONFLICT DO NOTHING`;

export const DELETE_TAG = `DELETE FROM link_tags WHERE tag = @tag AND link_id IN (SELECT id FROM links WHERE @owner IS NULL OR owner_id = @owner)`;

export const DELETE_LINK = `UPDATE links SET deleted_at = @now, updated_at = @now WHERE id = @id AND deleted_at IS NULL`;

// The blocklist (links/screening.ts): a scan reads live links' targets in pages and sets or clears their block.

/** One page of live links' targets, after the id `after`. */
export const LIVE_LINK_URLS_PAGE = `SELECT id, domain_id AS domain, code, url, rules, split, blocked_rule AS blockedRule, blocked_list AS blockedList FROM links
  WHERE id > ? AND deleted_at IS NULL ORDER BY id LIMIT ?`;

/** Sets (or, with nulls, clears) a live link's block, unless its target changed since it was read. */
export const SET_BLOCK = `UPDATE links SET blocked_rule = @rule, blocked_list = @list, blocked_at = @at
  WHERE id = @id AND url = @url AND deleted_at IS NULL`;

/** Live links the blocklist disabled (index links_blocked). */
export const BLOCKED_COUNT = `SELECT count(*) FROM links WHERE blocked_rule IS NOT NULL AND deleted_at IS NULL`;

// A link's redirect rules (src/rules/): their JSON, NULL for none.

/** A link's rules, by its id. */
export const LINK_RULES = `SELECT rules FROM links WHERE id = ?`;

/** Sets a live link's rules (NULL clears them); it is no longer a dedupe target, as after an edit. */
export const SET_RULES = `UPDATE links SET rules = @rules, updated_at = @at, url_hash = NULL WHERE id = @id AND deleted_at IS NULL`;

// A link's own A/B split (rules/stored.ts): its variants' JSON, NULL for none.

/** Sets a live link's split (NULL removes it); it is no longer a dedupe target, as after an edit. */
export const SET_SPLIT = `UPDATE links SET split = @split, updated_at = @at, url_hash = NULL WHERE id = @id AND deleted_at IS NULL`;

// The visitor hash's daily salt (visits/visitor-salts.ts).

/** The salt of a day (its start, ms). */
export const VISITOR_SALT = `SELECT salt FROM visitor_salts WHERE day = ?`;

/** Stores a day's salt unless the day has one: two processes racing end with the first one's. */
export const ADD_VISITOR_SALT = `INSERT INTO visitor_salts (day, salt) VALUES (?, ?) ON CONFLICT DO NOTHING`;

/** Deletes the salts of days before a day, with their visitor hashes: the hashes can no longer be made again. */
export const DELETE_VISITOR_SALTS_BEFORE = `DELETE FROM visitor_salts WHERE day < ?`;

// A link's social preview (links/preview.ts): its JSON, NULL for none.

/** Sets a link's preview, in the transaction that inserts, imports or edits it. */
export const SET_PREVIEW = `UPDATE links SET preview = @preview WHERE id = @id`;
// A link's pages before the redirect (src/rules/page-settings.ts): their JSON, NULL for the defaults; and its form answers.

/** A link's page settings, by its id. */
export const LINK_PAGES = `SELECT pages FROM links WHERE id = ?`;

/** Sets a live link's page settings (NULL: the defaults). */
export const SET_PAGES = `UPDATE links SET pages = @pages, updated_at = @at WHERE id = @id AND deleted_at IS NULL`;

/** Stores a visitor's answers to a link's form. */
export const ADD_FORM_ANSWER = `INSERT INTO form_answers (link_id, at, answers) VALUES (@linkId, @at, @answers)`;

/** A page of a link's form answers, newest first, below the id `before` (index form_answers_by_link). Parameters (link, before, limit). */
export const FORM_ANSWERS_PAGE = `SELECT id, at, answers FROM form_answers WHERE link_id = ? AND id < ? ORDER BY id DESC LIMIT ?`;

/** How many answers a link's form has. */
export const FORM_ANSWER_COUNT = `SELECT count(*) FROM form_answers WHERE link_id = ?`;

/** Deletes every answer to a link's form. */
export const DELETE_FORM_ANSWERS = `DELETE FROM form_answers WHERE link_id = ?`;

// The review queue (links/review.ts).

/** Moves a live link from one state of review to another (null: approved); no row changes when it is not in `from`. */
export const SET_REVIEW = `UPDATE links SET review = @to, updated_at = @at, url_hash = CASE WHEN @to IS NULL THEN url_hash END
  WHERE id = @id AND deleted_at IS NULL AND review IS @from`;

/** Live links waiting for review (index links_in_review). */
export const PENDING_COUNT = `SELECT count(*) FROM links WHERE review = 'pending' AND deleted_at IS NULL`;

/** The columns every insert sets, as named parameters. */
const NEW_LINK = {
  columns: `domain_id, owner_id, code, url, url_hash, is_alias, created_at, title, note, expires_at, max_visits, password_hash, redirect_status,
    forward_query, enabled, review, starts_at, crawlable`,
  values: `@domain, @ownerId, @code, @url, @urlHash, @isAlias, @createdAt, @title, @note, @expiresAt, @maxVisits, @passwordHash, @redirectStatus,
    @forwardQuery, @enabled, @review, @startsAt, @crawlable`,
};

export const IMPORT_LINK = `INSERT INTO links (${NEW_LINK.columns}, updated_at, deleted_at, claimed_visits)
  VALUES (${NEW_LINK.values}, @updatedAt, @deletedAt, @claimedVisits)`;

export const LAST_CHANGE = `SELECT coalesce(max(seq), 0) AS seq FROM link_changes`;

export const CHANGES_AFTER = `SELECT seq, link_id AS linkId, domain_id AS domain, code FROM link_changes WHERE seq > ? ORDER BY seq`;

export const FORGET_CHANGES_BEFORE = `DELETE FROM link_changes WHERE seq <= ?`;

export const LAST_LINK_ID = `SELECT seq FROM sqlite_sequence WHERE name = 'links'`;

/** A link created through kurz: its row records who created it (audit-rows.ts reads that as the audit trail's entry). */
export const INSERT_LINK = `INSERT INTO links (id, ${NEW_LINK.columns}, updated_at, creator_id, created_via, created_key, created_client)
  VALUES (@id, ${NEW_LINK.values}, @createdAt, @creatorId, @createdVia, @createdKey, @createdClient)`;

/**
 * INSERT_LINK for a generated code, which must be unique across all domains (an alias only within its own):
 * no row when any domain has the code, found in the same statement.
 */
export const INSERT_GENERATED_LINK = `INSERT INTO links (id, ${NEW_LINK.columns}, updated_at, creator_id, created_via, created_key, created_client)
  SELECT @id, ${NEW_LINK.values}, @createdAt, @creatorId, @createdVia, @createdKey, @createdClient
  WHERE NOT EXISTS (SELECT 1 FROM links WHERE code = @code)`;

/** Visits added to links' all-time counts, `rows` links at a time: (id, count, last visit). */
export const addVisits = (rows: number): string => `INSERT INTO link_visits (link_id, count, last_at) VALUES ${values(rows, 3)}
  ON CONFLICT (link_id) DO UPDATE SET count = count + excluded.count, last_at = max(last_at, excluded.last_at)`;

// Visits: raw rows and the rollups the flush maintains (migration 5).

/** Raw visits `rows` at a time: one statement for many rows costs less per row than one per row. */
export const insertVisits = (rows: number): string =>
  `INSERT INTO visits (link_id, at, bot, referrer, browser, os, device, country, language) VALUES ${values(rows, 9)}`;

/** `rows` groups of `columns` placeholders, for a statement that inserts many rows. */
function values(rows: number, columns: number): string {
  return Array(rows)
    .fill(`(${Array(columns).fill('?').join(', ')})`)
    .join(', ');
}

/** A visitor hash for a link and day; no row changes when it was seen before (then it is not unique). */
export const INSERT_VISITOR = `INSERT INTO visitors (day, link_id, hash) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`;

/** What an hour's, a day's or an owner's day's row adds on conflict: each count to its own. */
const ADD_COUNTS = `humans = humans + excluded.humans, bots = bots + excluded.bots, uniques = uniques + excluded.uniques,
  undetailed_humans = undetailed_humans + excluded.undetailed_humans, undetailed_bots = undetailed_bots + excluded.undetailed_bots`;

/**
 * The rollups' additions, `rows` at a time (one statement for many rows costs less per row than one per row).
 * An hour: (link, hour, humans, bots, uniques, undetailed humans, undetailed bots).
 */
export const addVisitHours = (rows: number): string => `INSERT INTO visit_hours
  (link_id, hour, humans, bots, uniques, undetailed_humans, undetailed_bots) VALUES ${values(rows, 7)}
  ON CONFLICT (link_id, hour) DO UPDATE SET ${ADD_COUNTS}`;

/** A day: (day, link, owner, humans, bots, uniques, undetailed humans, undetailed bots). */
export const addVisitDays = (rows: number): string => `INSERT INTO visit_days
  (day, link_id, owner_id, humans, bots, uniques, undetailed_humans, undetailed_bots) VALUES ${values(rows, 8)}
  ON CONFLICT (day, link_id) DO UPDATE SET ${ADD_COUNTS}`;

/** A breakdown's hour: (link, hour, dimension, value, count). */
export const addVisitDimensions = (rows: number): string => `INSERT INTO visit_dimensions (link_id, hour, dimension, value, count)
  VALUES ${values(rows, 5)}
  ON CONFLICT (link_id, hour, dimension, value) DO UPDATE SET count = count + excluded.count`;

/** A breakdown's day: (link, day, dimension, value, count). */
export const addVisitDimensionDays = (rows: number): string => `INSERT INTO visit_dimension_days (link_id, day, dimension, value, count)
  VALUES ${values(rows, 5)}
  ON CONFLICT (link_id, day, dimension, value) DO UPDATE SET count = count + excluded.count`;

/** An owner's day: (day, owner, humans, bots, uniques, undetailed humans, undetailed bots). */
export const addVisitTotals = (rows: number): string => `INSERT INTO visit_totals
  (day, owner_id, humans, bots, uniques, undetailed_humans, undetailed_bots) VALUES ${values(rows, 7)}
  ON CONFLICT (day, owner_id) DO UPDATE SET ${ADD_COUNTS}`;

/**
 * The lowest and the highest owner of any link, each one step down index links_by_owner: when both are the
 * first admin, so is every link's owner, and a flush need not look its links up.
 */
export const OWNER_RANGE = `SELECT (SELECT min(owner_id) FROM links) AS least, (SELECT max(owner_id) FROM links) AS most`;

/** Who owns each of `rows` visited links: their visits count in their figures. */
export const ownersOfLinks = (rows: number): string =>
  `SELECT id, owner_id AS ownerId FROM links WHERE id IN (${Array(rows).fill('?').join(', ')})`;

/** A background writer's receipt, replaced with each chunk it writes (migration 6). */
export const SET_HANDOVER = `INSERT INTO visit_handovers (writer, pass_from, pass_to, written) VALUES (@writer, @from, @to, @written)
  ON CONFLICT (writer) DO UPDATE SET pass_from = excluded.pass_from, pass_to = excluded.pass_to, written = excluded.written`;

export const HANDOVER = `SELECT pass_from AS "from", pass_to AS "to", written FROM visit_handovers WHERE writer = ?`;

export const DELETE_HANDOVER = `DELETE FROM visit_handovers WHERE writer = ?`;

/** The oldest raw visits before the cut-off, a batch at a time (index visits_by_at). */
export const DELETE_VISITS_BEFORE = `DELETE FROM visits WHERE id IN (SELECT id FROM visits WHERE at < ? ORDER BY at LIMIT ?)`;

export const COUNT_VISITS_BEFORE = `SELECT count(*) FROM visits WHERE at < ?`;

export const DELETE_VISITORS_BEFORE = `DELETE FROM visitors WHERE day < ?`;

/** One link's hours in [from, to). */
export const LINK_HOURS = `SELECT hour AS t, humans, bots, uniques, undetailed_humans + undetailed_bots AS undetailed FROM visit_hours
  WHERE link_id = ? AND hour >= ? AND hour < ? ORDER BY hour`;

/** One link's breakdowns in [from, to), summed. */
export const LINK_DIMENSIONS = `SELECT dimension, value, sum(count) AS count FROM visit_dimensions
  WHERE link_id = ? AND hour >= ? AND hour < ? GROUP BY dimension, value`;

/** One link's breakdowns over whole days in [from, to), summed. */
export const LINK_DIMENSION_DAYS = `SELECT dimension, value, sum(count) AS count FROM visit_dimension_days
  WHERE link_id = ? AND day >= ? AND day < ? GROUP BY dimension, value`;

/** A VisitTally's figures summed over the rows of its hour or day. */
const SUMS = `sum(humans) AS humans, sum(bots) AS bots, sum(uniques) AS uniques,
  sum(undetailed_humans + undetailed_bots) AS undetailed`;

/** Every link's visits per day in [from, to). */
export const DAY_TOTALS = `SELECT day AS t, ${SUMS} FROM visit_totals WHERE day >= ? AND day < ? GROUP BY day ORDER BY day`;

/** One owner's links' visits per day in [from, to). */
export const OWNER_DAY_TOTALS = `SELECT day AS t, humans, bots, uniques, undetailed_humans + undetailed_bots AS undetailed
  FROM visit_totals WHERE day >= ? AND day < ? AND owner_id = ? ORDER BY day`;

/**
 * The `limit` links with the most human visits in [from, to) (`days` long), exactly, without grouping every
 * row of the period: the sums of the last day's top links give a bar B, and a link whose sum reaches B
 * has at least B/days on some day, so only links with such a day are summed (primary-key lookups). `rows`
 * narrows the rows of visit_days read (every link's, or one owner's).
 */
const topLinks = (rows: string): string => `WITH RECURSIVE
  days(day) AS (SELECT @from UNION ALL SELECT day + 86400000 FROM days WHERE day + 86400000 < @to),
  seed AS (SELECT link_id FROM visit_days WHERE ${rows} day = (SELECT max(day) FROM visit_days WHERE ${rows} day >= @from AND day < @to)
    ORDER BY humans DESC LIMIT @limit),
  seed_sums AS (SELECT sum(humans) AS humans FROM visit_days WHERE day IN days AND link_id IN seed GROUP BY link_id),
  bar AS (SELECT CASE WHEN count(*) < @limit THEN 1 ELSE min(humans) END AS humans FROM seed_sums),
  candidates AS (SELECT DISTINCT link_id FROM visit_days
    WHERE ${rows} day >= @from AND day < @to AND humans * @days >= (SELECT humans FROM bar)),
  top AS (SELECT link_id, sum(humans) AS humans, sum(bots) AS bots, sum(uniques) AS uniques FROM visit_days
    WHERE day IN days AND link_id IN candidates GROUP BY link_id HAVING sum(humans) > 0 ORDER BY humans DESC, link_id LIMIT @limit)
  SELECT domain_id AS domain, code, url, title, top.humans, top.bots, top.uniques FROM top JOIN links ON links.id = top.link_id
  ORDER BY top.humans DESC, links.id`;

export const TOP_LINKS = topLinks('');

/** One owner's top links (index visit_days_by_owner): their own rows alone are read. */
export const OWNER_TOP_LINKS = topLinks('owner_id = @owner AND');

/** The instance's visits per hour in [from, to), across links (index visit_hours_by_hour). */
export const HOUR_TOTALS = `SELECT hour AS t, ${SUMS} FROM visit_hours WHERE hour >= @from AND hour < @to GROUP BY hour ORDER BY hour`;

/** One owner's links' visits per hour in [from, to). */
export const OWNER_HOUR_TOTALS = `SELECT hour AS t, ${SUMS} FROM visit_hours JOIN links ON links.id = visit_hours.link_id
  WHERE hour >= @from AND hour < @to AND links.owner_id = @owner GROUP BY hour ORDER BY hour`;

/** The `limit` links with the most human visits in [from, to), whole hours (a short period: every row is summed); `rows` narrows them to an owner's. */
const hourTopLinks = (rows: string): string => `SELECT domain_id AS domain, code, url, title, top.humans, top.bots, top.uniques FROM
  (SELECT link_id, sum(humans) AS humans, sum(bots) AS bots, sum(uniques) AS uniques FROM visit_hours
    WHERE hour >= @from AND hour < @to ${rows} GROUP BY link_id HAVING sum(humans) > 0 ORDER BY humans DESC, link_id LIMIT @limit) AS top
  JOIN links ON links.id = top.link_id ORDER BY top.humans DESC, links.id`;

export const HOUR_TOP_LINKS = hourTopLinks('');

export const OWNER_HOUR_TOP_LINKS = hourTopLinks('AND link_id IN (SELECT id FROM links WHERE owner_id = @owner)');

/** Links created per hour in [from, to) (index links_by_created), deleted ones too, as link_days counts them. */
export const LINKS_CREATED_PER_HOUR = `SELECT created_at - created_at % 3600000 AS t, count(*) AS count FROM links
  WHERE created_at >= @from AND created_at < @to AND (@owner IS NULL OR owner_id = @owner) GROUP BY t ORDER BY t`;

/** DOMAIN_TOTALS over whole hours. */
export const HOUR_DOMAIN_TOTALS = `SELECT domains.id AS domain,
  (SELECT count(*) FROM links WHERE domain_id = domains.id AND deleted_at IS NULL) AS links,
  coalesce((SELECT sum(visit_hours.humans) FROM visit_hours JOIN links ON links.id = visit_hours.link_id
    WHERE links.domain_id = domains.id AND visit_hours.hour >= @from AND visit_hours.hour < @to), 0) AS humans
  FROM domains WHERE removed_at IS NULL ORDER BY domains.id`;

/** Links created per day in [from, to), whole UTC days (link_days, kept by triggers on links). */
export const LINKS_CREATED_PER_DAY = `SELECT day AS t, sum(created) AS count FROM link_days
  WHERE day >= ? AND day < ? GROUP BY day HAVING sum(created) > 0 ORDER BY day`;

export const OWNER_LINKS_CREATED_PER_DAY = `SELECT day AS t, created AS count FROM link_days
  WHERE day >= ? AND day < ? AND owner_id = ? AND created > 0 ORDER BY day`;

/**
 * All-time figures of the instance, from tables of one row a day: live links (link_days) and people's
 * visits (visit_totals, written with each link's count), so the dashboard's cost does not grow with the links.
 */
export const INSTANCE_TOTALS = `SELECT (SELECT coalesce(sum(live), 0) FROM link_days) AS links,
  (SELECT coalesce(sum(humans), 0) FROM visit_totals) AS humans, (SELECT coalesce(sum(bots), 0) FROM visit_totals) AS bots`;

/** One owner's all-time figures, from the same tables. */
export const OWNER_TOTALS = `SELECT (SELECT coalesce(sum(live), 0) FROM link_days WHERE owner_id = @owner) AS links,
  (SELECT coalesce(sum(humans), 0) FROM visit_totals WHERE owner_id = @owner) AS humans,
  (SELECT coalesce(sum(bots), 0) FROM visit_totals WHERE owner_id = @owner) AS bots`;

/** The raw visits of live links a scope names (ports.ts VisitScope; each @field null for any), in [@from, @to). */
const SCOPED_VISITS = `visits JOIN links ON links.id = visits.link_id
  WHERE at >= @from AND at < @to AND links.deleted_at IS NULL AND (@humansOnly = 0 OR bot IS NULL)
    AND (@linkId IS NULL OR visits.link_id = @linkId) AND (@domain IS NULL OR links.domain_id = @domain)
    AND (@owner IS NULL OR links.owner_id = @owner)
    AND (@tag IS NULL OR visits.link_id IN (SELECT link_id FROM link_tags WHERE tag = @tag))`;

/** A page of them, newest first. */
export const SCOPED_VISITS_PAGE = `SELECT visits.id, at, code, links.domain_id AS domain, links.url, bot, referrer, browser, os, device,
  country, language FROM ${SCOPED_VISITS} ORDER BY at DESC, visits.id DESC LIMIT @limit OFFSET @offset`;

export const SCOPED_VISITS_COUNT = `SELECT count(*) FROM ${SCOPED_VISITS}`;

/** Each tag of live links (@owner's alone, unless null): its links and their all-time visits, each link's read by its key. */
export const TAG_TOTALS = `SELECT tag, count(*) AS links,
  coalesce(sum((SELECT sum(humans) FROM visit_hours WHERE link_id = links.id)), 0) AS humans,
  coalesce(sum((SELECT sum(bots) FROM visit_hours WHERE link_id = links.id)), 0) AS bots
  FROM link_tags JOIN links ON links.id = link_tags.link_id
  WHERE deleted_at IS NULL AND (@owner IS NULL OR owner_id = @owner) GROUP BY tag ORDER BY tag`;

/** Each listed link's all-time visits (a JSON list of ids), from the hourly rollup (its key starts with the link). */
export const LINK_TOTALS = `SELECT link_id AS linkId, sum(humans) AS humans, sum(bots) AS bots FROM visit_hours
  WHERE link_id IN (SELECT value FROM json_each(?)) GROUP BY link_id`;

/** One page of raw visits with their link's code, oldest first, after the id `after`, in [from, to). */
/** Raw visits in [from, to) after (at, id), in time order (index visits_by_at, which holds the id). */
export const VISITS_PAGE = `SELECT visits.id, at, code, bot, referrer, browser, os, device, country, language
  FROM visits JOIN links ON links.id = visits.link_id
  WHERE (at, visits.id) > (@at, @id) AND at >= @from AND at < @to ORDER BY at, visits.id LIMIT @limit`;

// Domains (migration 10): id 0 is the default domain; a removed one keeps its row, for its deleted links.

/**
 * A domain's columns and who may use it (migration 14): null when everyone may, else a JSON array of
 * [id, name] pairs by name (empty: admins only).
 */
const DOMAIN_COLUMNS = `id, host, scheme, not_found_redirect AS notFoundRedirect, root_redirect AS rootRedirect, created_at AS createdAt,
  CASE WHEN limited THEN (SELECT json_group_array(json_array(id, name)) FROM (SELECT users.id, users.name FROM domain_users
    JOIN users ON users.id = domain_users.user_id WHERE domain_users.domain_id = domains.id ORDER BY lower(users.name))) END AS users`;

/** Every domain not removed, the default first, with its live links (index links_by_domain). */
export const LIST_DOMAINS = `SELECT ${DOMAIN_COLUMNS},
  (SELECT count(*) FROM links WHERE domain_id = domains.id AND deleted_at IS NULL) AS links
  FROM domains WHERE removed_at IS NULL ORDER BY id <> 0, host`;

export const DOMAIN_BY_ID = `SELECT ${DOMAIN_COLUMNS} FROM domains WHERE id = ? AND removed_at IS NULL`;

export const INSERT_DOMAIN = `INSERT INTO domains (host, scheme, not_found_redirect, root_redirect, created_at, limited)
  VALUES (@host, @scheme, @notFoundRedirect, @rootRedirect, @createdAt, @limited)`;

/** @limited null keeps whether it is limited (its users are not being set). */
export const UPDATE_DOMAIN = `UPDATE domains SET scheme = @scheme, not_found_redirect = @notFoundRedirect, root_redirect = @rootRedirect,
  limited = coalesce(@limited, limited) WHERE id = @id AND removed_at IS NULL`;

/** Before a domain's users are set again (in the transaction that updates its row). */
export const CLEAR_DOMAIN_USERS = `DELETE FROM domain_users WHERE domain_id = ?`;

/** Parameters (domain, user). */
export const ADD_DOMAIN_USER = `INSERT INTO domain_users (domain_id, user_id) VALUES (?, ?)`;

export const LIVE_LINKS_ON_DOMAIN = `SELECT count(*) FROM links WHERE domain_id = ? AND deleted_at IS NULL`;

/** The default domain is never removed. */
export const REMOVE_DOMAIN = `UPDATE domains SET removed_at = ? WHERE id = ? AND id <> 0 AND removed_at IS NULL`;

/**
 * Per domain not removed: its live links, and its links' human visits in [from, to) (visit_days joined to
 * links). Read only when there is more than one domain.
 */
export const DOMAIN_TOTALS = `SELECT domains.id AS domain,
  (SELECT count(*) FROM links WHERE domain_id = domains.id AND deleted_at IS NULL) AS links,
  coalesce((SELECT sum(visit_days.humans) FROM visit_days JOIN links ON links.id = visit_days.link_id
    WHERE links.domain_id = domains.id AND visit_days.day >= @from AND visit_days.day < @to), 0) AS humans
  FROM domains WHERE removed_at IS NULL ORDER BY domains.id`;

export const SETTING = `SELECT value FROM settings WHERE key = ?`;

export const INSERT_SETTING_IF_MISSING = `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`;

export const SET_SETTING = `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;

// Sessions and API keys: rows are found by the SHA-256 of the secret the client holds.

export const INSERT_SESSION = `INSERT INTO sessions (id_hash, user, user_id, created_at, seen_at)
  VALUES (@idHash, @user, @userId, @createdAt, @seenAt)`;

export const SESSION_BY_ID_HASH = `SELECT id_hash AS idHash, user, user_id AS userId, created_at AS createdAt, seen_at AS seenAt
  FROM sessions WHERE id_hash = ?`;

export const DELETE_USER_SESSIONS = `DELETE FROM sessions WHERE user_id = ?`;

export const TOUCH_SESSION = `UPDATE sessions SET seen_at = ? WHERE id_hash = ?`;

export const DELETE_SESSION = `DELETE FROM sessions WHERE id_hash = ?`;

/** Sessions idle since `idleBefore` or begun before `createdBefore`. */
export const DELETE_EXPIRED_SESSIONS = `DELETE FROM sessions WHERE seen_at < ? OR created_at < ?`;

export const DELETE_ALL_SESSIONS = `DELETE FROM sessions`;

const KEY_COLUMNS = `id, user_id AS userId, name, prefix, scopes, created_at AS createdAt, expires_at AS expiresAt, last_used_at AS lastUsedAt,
  last_used_from AS lastUsedFrom, revoked_at AS revokedAt`;

export const INSERT_KEY = `INSERT INTO api_keys (user_id, name, prefix, key_hash, scopes, created_at, expires_at)
  VALUES (@userId, @name, @prefix, @keyHash, @scopes, @createdAt, @expiresAt)`;

export const KEY_BY_HASH = `SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = ?`;

export const KEY_BY_ID = `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`;

/** One user's keys (or everyone's, for a null user): live ones first, by name; then revoked ones, newest revocation first. */
export const LIST_KEYS = `SELECT ${KEY_COLUMNS} FROM api_keys WHERE @userId IS NULL OR user_id = @userId
  ORDER BY revoked_at IS NOT NULL, revoked_at DESC, name, user_id`;

export const REVOKE_KEY = `UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND name = ? AND revoked_at IS NULL`;

// Users: found by id, by name whatever its case (index users_by_name), or by their invitation's hash.

const USER_COLUMNS = `id, name, email, role, state, password_hash AS passwordHash, invite_expires_at AS inviteExpiresAt,
  created_at AS createdAt`;

export const ENSURE_FIRST_ADMIN = `INSERT INTO users (id, name, role, password_hash, created_at) VALUES (1, ?, 'admin', ?, ?)
  ON CONFLICT DO NOTHING`;

/** One statement, so that a password set by someone in between is never replaced. */
export const SET_PASSWORD_IF_NONE = `UPDATE users SET password_hash = ? WHERE id = ? AND password_hash IS NULL`;

export const USER_BY_ID = `SELECT ${USER_COLUMNS} FROM users WHERE id = ?`;

export const USER_BY_NAME = `SELECT ${USER_COLUMNS} FROM users WHERE lower(name) = lower(?)`;

export const USER_BY_INVITE = `SELECT ${USER_COLUMNS} FROM users WHERE invite_hash = ?`;

/** Every user with their live links (link_days: a row a day and owner, not a read of their links), the first admin first. */
export const LIST_USERS = `SELECT ${USER_COLUMNS},
  (SELECT coalesce(sum(live), 0) FROM link_days WHERE owner_id = users.id) AS links
  FROM users ORDER BY id <> 1, lower(name)`;

export const INSERT_USER = `INSERT INTO users (name, email, role, invite_hash, invite_expires_at, created_at)
  VALUES (@name, @email, @role, @inviteHash, @inviteExpiresAt, @createdAt)`;

/** Sets the columns whose flag is 1 (better-sqlite3 binds no undefined). */
export const UPDATE_USER = `UPDATE users SET
  email = CASE WHEN @setEmail THEN @email ELSE email END,
  role = CASE WHEN @setRole THEN @role ELSE role END,
  state = CASE WHEN @setState THEN @state ELSE state END,
  password_hash = CASE WHEN @setPassword THEN @passwordHash ELSE password_hash END,
  invite_hash = CASE WHEN @setInvite THEN @inviteHash ELSE invite_hash END,
  invite_expires_at = CASE WHEN @setInvite THEN @inviteExpiresAt ELSE invite_expires_at END
  WHERE id = @id`;

export const TOUCH_KEY = `UPDATE api_keys SET last_used_at = ?, last_used_from = ? WHERE id = ?`;

export const PING = `SELECT 1 AS ok`;

/** FULL: a link that was answered 201 survives a power cut, not only a crash. The connection's default (durability full). */
export const SYNC_DURABLE = `PRAGMA synchronous = FULL`;

/**
 * WAL commits without waiting for the disk: visit counts, group commits whose sync runs after (syncWal), and
 * every write with durability process.
 */
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

// Copying a whole database (kurz migrate): the table and column names come from COPIED_TABLES, never from input.

/** Every row of `table`, in rowid (or primary key) order. */
export const allRows = (table: string, columns: readonly string[]): string =>
  `SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM ${table}`;

export const countRows = (table: string): string => `SELECT count(*) FROM ${table}`;

// The audit trail. A page is put together from the fragments of the filters it uses, ? standing for each
// parameter in order; newest first, through the index of its filter.

export const INSERT_AUDIT = `INSERT INTO audit_log (at, actor_id, actor_name, via, key_name, client, action, subject_kind, subject_id, subject_label, details)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`;

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
  const sql = `SELECT ${AUDIT_COLUMNS} FROM audit_log${where} ORDER BY at DESC, id DESC LIMIT ?`;
  return sql;
}

export const DELETE_AUDIT_BEFORE = `DELETE FROM audit_log WHERE at < ?`;

export const COUNT_AUDIT_BEFORE = `SELECT count(*) FROM audit_log WHERE at < ?`;

// Webhooks: the hooks, the events the triggers record for them (the outbox) and their deliveries.

const WEBHOOK_COLUMNS = `id, user_id AS userId, url, events, secret, enabled, created_at AS createdAt`;

const DELIVERY_COLUMNS = `d.id, d.hook_id AS hookId, d.event, d.body, d.created_at AS createdAt, d.attempts, d.next_at AS nextAt,
  d.last_status AS lastStatus, d.last_error AS lastError, d.delivered_at AS deliveredAt`;

export const LIST_WEBHOOKS = `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE @userId IS NULL OR user_id = @userId ORDER BY id`;

export const WEBHOOK_BY_ID = `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`;

export const INSERT_WEBHOOK = `INSERT INTO webhooks (user_id, url, events, secret, enabled, created_at)
  VALUES (@userId, @url, @events, @secret, @enabled, @createdAt)`;

export const DELETE_WEBHOOK = `DELETE FROM webhooks WHERE id = ? AND user_id = ?`;

export const SET_WEBHOOK_ENABLED = `UPDATE webhooks SET enabled = ? WHERE id = ? AND user_id = ?`;

/** The oldest events first, each click with its visit (gone if pruned in the meantime). */
export const PENDING_WEBHOOK_EVENTS = `SELECT e.id, e.event, e.link_id AS linkId, e.owner_id AS ownerId, e.at, v.id AS visitId,
    v.bot, v.referrer, v.browser, v.os, v.device, v.country, v.language
  FROM webhook_events AS e LEFT JOIN visits AS v ON v.id = e.visit_id ORDER BY e.id LIMIT ?`;

export const DELETE_WEBHOOK_EVENT = `DELETE FROM webhook_events WHERE id = ?`;

export const INSERT_DELIVERY = `INSERT INTO webhook_deliveries (hook_id, event, body, created_at, next_at)
  VALUES (@hookId, @event, @body, @createdAt, @nextAt)`;

export const DUE_DELIVERIES = `SELECT ${DELIVERY_COLUMNS}, w.url, w.secret
  FROM webhook_deliveries AS d JOIN webhooks AS w ON w.id = d.hook_id
  WHERE d.next_at <= ? AND w.enabled = 1 ORDER BY d.next_at, d.id LIMIT ?`;

export const CLAIM_DELIVERY = `UPDATE webhook_deliveries SET next_at = @until WHERE id = @id AND next_at = @due`;

/** An attempt's outcome; a delivered one's body is of no more use, and a busy hook's clicks make it large. */
export const RECORD_ATTEMPT = `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = @status, last_error = @error,
  delivered_at = CASE WHEN @delivered THEN @at ELSE delivered_at END, body = CASE WHEN @delivered THEN '' ELSE body END,
  next_at = @nextAt WHERE id = @id`;

export const DELIVERIES_OF = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries AS d WHERE d.hook_id = ? ORDER BY d.id DESC LIMIT ?`;

export const PRUNE_DELIVERIES = `DELETE FROM webhook_deliveries WHERE created_at < ? AND next_at IS NULL`;

/** Whether any enabled hook asks for clicks: a flush of visits records them only then. */
export const WANTS_CLICKS = `SELECT EXISTS (SELECT 1 FROM webhooks WHERE enabled = 1 AND instr(' ' || events || ' ', ' link.clicked ') > 0)`;

export const LAST_VISIT_ID = `SELECT coalesce(max(id), 0) FROM visits`;

/** A link.clicked for each raw visit after the id ?, of an owner with an enabled hook asking for clicks. */
export const RECORD_CLICKS = `INSERT INTO webhook_events (event, link_id, owner_id, visit_id, at)
  SELECT 'link.clicked', v.link_id, l.owner_id, v.id, v.at FROM visits AS v JOIN links AS l ON l.id = v.link_id
  WHERE v.id > ? AND EXISTS (SELECT 1 FROM webhooks AS w
    WHERE w.user_id = l.owner_id AND w.enabled = 1 AND instr(' ' || w.events || ' ', ' link.clicked ') > 0)
  ORDER BY v.id`;
