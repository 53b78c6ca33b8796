/**
 * kurz's tables in the order a copy inserts them, with the columns it copies: every table but the change
 * log, whose entries only matter to the processes of the database they were written in.
 */
export const COPIED_TABLES: ReadonlyArray<{ name: string; columns: readonly string[] }> = [
  {
    name: 'users',
    columns: ['id', 'name', 'email', 'role', 'state', 'password_hash', 'invite_hash', 'invite_expires_at', 'created_at'],
  },
  { name: 'domains', columns: ['id', 'host', 'scheme', 'not_found_redirect', 'root_redirect', 'created_at', 'removed_at', 'limited'] },
  { name: 'domain_users', columns: ['domain_id', 'user_id'] },
  {
    name: 'links',
    columns: [
      'id',
      'domain_id',
      'code',
      'url',
      'url_hash',
      'created_at',
      'updated_at',
      'deleted_at',
      'is_alias',
      'title',
      'note',
      'expires_at',
      'max_visits',
      'claimed_visits',
      'password_hash',
      'redirect_status',
      'forward_query',
      'enabled',
      'blocked_rule',
      'blocked_list',
      'blocked_at',
      'owner_id',
      'review',
      'creator_id',
      'created_via',
      'created_key',
      'created_client',
      'created_url',
      'rules',
      'split',
      'preview',
      'pages',
      'starts_at',
      'crawlable',
    ],
  },
  { name: 'link_tags', columns: ['link_id', 'tag'] },
  { name: 'link_visits', columns: ['link_id', 'count', 'last_at'] },
  { name: 'settings', columns: ['key', 'value'] },
  { name: 'sessions', columns: ['id_hash', 'user', 'user_id', 'created_at', 'seen_at'] },
  {
    name: 'api_keys',
    columns: [
      'id',
      'name',
      'prefix',
      'key_hash',
      'created_at',
      'last_used_at',
      'revoked_at',
      'scopes',
      'expires_at',
      'last_used_from',
      'user_id',
    ],
  },
  { name: 'visits', columns: ['id', 'link_id', 'at', 'bot', 'referrer', 'browser', 'os', 'device', 'country', 'language'] },
  { name: 'form_answers', columns: ['id', 'link_id', 'at', 'answers'] },
  { name: 'visit_hours', columns: ['link_id', 'hour', 'humans', 'bots', 'uniques', 'undetailed_humans', 'undetailed_bots'] },
  { name: 'visit_dimensions', columns: ['link_id', 'hour', 'dimension', 'value', 'count'] },
  { name: 'visit_dimension_days', columns: ['link_id', 'day', 'dimension', 'value', 'count'] },
  { name: 'visit_totals', columns: ['day', 'owner_id', 'humans', 'bots', 'uniques', 'undetailed_humans', 'undetailed_bots'] },
  { name: 'visit_days', columns: ['day', 'link_id', 'owner_id', 'humans', 'bots', 'uniques', 'undetailed_humans', 'undetailed_bots'] },
  { name: 'visitors', columns: ['day', 'link_id', 'hash'] },
  { name: 'visitor_salts', columns: ['day', 'salt'] },
  {
    name: 'audit_log',
    columns: [
      'id',
      'at',
      'actor_id',
      'actor_name',
      'via',
      'key_name',
      'client',
      'action',
      'subject_kind',
      'subject_id',
      'subject_label',
      'details',
    ],
  }, // Last: a hook copied before the links or the visits would have their copies recorded as new events.
  { name: 'webhooks', columns: ['id', 'user_id', 'url', 'events', 'secret', 'enabled', 'created_at'] },
  {
    name: 'webhook_deliveries',
    columns: ['id', 'hook_id', 'event', 'body', 'created_at', 'attempts', 'next_at', 'last_status', 'last_error', 'delivered_at'],
  },
];

/** A database a copy reads: each table's rows, in chunks, with the columns in the order asked for. */
export interface CopySource {
  chunksOf(table: string, columns: readonly string[], size: number): Iterable<unknown[][]>;
  countRows(table: string): Promise<number>;
}

/** An empty database a copy writes (PostgresStorage has these). */
export interface CopyTarget {
  isEmpty(): Promise<boolean>;
  importRows(table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void>;
  finishImport(): Promise<void>;
  countRows(table: string): Promise<number>;
}

export interface TableCount {
  table: string;
  source: number;
  copied: number;
}

/** Rows sent to the target per statement. */
const CHUNK = 1000;

/**
 * Copies every table of `source` into the empty `target` as it is (ids, codes, the code key: codes keep
 * working), then counts both sides. Throws if the target already holds data; `progress` hears each table.
 */
export async function copyDatabase(source: CopySource, target: CopyTarget, progress: (table: string) => void): Promise<TableCount[]> {
  if (!(await target.isEmpty())) throw new Error('the target database already holds kurz data; migrate copies into an empty one');
  for (const { name, columns } of COPIED_TABLES) {
    progress(name);
    for (const rows of source.chunksOf(name, columns, CHUNK)) await target.importRows(name, columns, rows);
  }
  await target.finishImport();
  const counts: TableCount[] = [];
  for (const { name } of COPIED_TABLES)
    counts.push({ table: name, source: await source.countRows(name), copied: await target.countRows(name) });
  return counts;
}
