import { AppError } from '../../core/errors.ts';
import { csvRecords, peerCount, peerLink, peerText, peerTime, refuseLine, shortUrlParts, type PeerFile } from './peer-link.ts';

/** What a Bitly column can be read as. */
export const BITLY_FIELDS = ['code', 'url', 'title', 'tags', 'createdAt', 'visits'] as const;
export type BitlyField = (typeof BITLY_FIELDS)[number];

/** Which column holds each field: a column name as the file's header writes it. */
export type ColumnMap = Partial<Record<BitlyField, string>>;

// Bitly does not document its export's columns; these are the header names its exports have used.
const USUAL: Record<BitlyField, readonly string[]> = {
  code: ['bitlink', 'link', 'short link', 'short url', 'short_url', 'custom bitlink', 'custom back-half', 'back-half'],
  url: ['long url', 'long_url', 'destination url', 'destination', 'original url', 'long link'],
  title: ['title'],
  tags: ['tags'],
  createdAt: ['created', 'created at', 'created_at', 'date created', 'creation date', 'created (utc)'],
  visits: ['clicks', 'total clicks', 'click count', 'engagements', 'total engagements'],
};

// Bitly's own hosts: a bitlink on one of them moves to kurz's default domain; a custom domain keeps its host.
const BITLY_HOSTS = new Set(['bit.ly', 'j.mp', 'bitly.is', 'bitly.com']);

/**
 * Reads a `--map` value: `field=Column,field=Column` (e.g. `code=Bitlink,url=Long URL`). Throws
 * AppError('invalid') for an unknown field or one named twice.
 */
export function parseColumnMap(text: string): ColumnMap {
  const map: ColumnMap = {};
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    const field = pair.slice(0, at).trim() as BitlyField;
    if (at === -1 || !BITLY_FIELDS.includes(field))
      throw new AppError('invalid', `map: "${pair.trim()}" is not FIELD=COLUMN with FIELD one of ${BITLY_FIELDS.join(', ')}`, 'map');
    if (map[field] !== undefined) throw new AppError('invalid', `map: ${field} is named twice`, 'map');
    map[field] = pair.slice(at + 1).trim();
  }
  return map;
}

/**
 * The links of a Bitly CSV export, each column read as `map` says or else recognised by its usual header name
 * (without case). The code is a bitlink's path ("bit.ly/3xYz" or a whole URL) or a bare back-half; a bitlink on
 * a custom domain keeps its host. Columns left unread are named in the notes.
 */
export function readBitly(text: string, map: ColumnMap): PeerFile {
  const { columns, rows } = csvRecords(text, (name) => name.trim());
  const lower = columns.map((c) => c.toLowerCase());
  const chosen = {} as Record<BitlyField, string | undefined>;
  for (const field of BITLY_FIELDS) {
    const given = map[field];
    if (given !== undefined && !columns.includes(given))
      throw new AppError('invalid', `map: ${field}=${given}, but the file has no such column (it has: ${columns.join(', ')})`, 'map');
    chosen[field] = given ?? columns[lower.findIndex((name) => USUAL[field].includes(name))];
  }
  for (const field of ['code', 'url'] as const) {
    if (chosen[field] === undefined)
      throw new AppError(
        'invalid',
        `no column is the ${field}: name it with --map ${field}=COLUMN (the file has: ${columns.join(', ')})`,
        'map',
      );
  }
  const cell = (row: Record<string, string>, field: BitlyField) => {
    const column = chosen[field];
    return column === undefined ? undefined : row[column];
  };
  const links = rows.map(({ line, row }) => {
    const url = peerText(cell(row, 'url')) ?? refuseLine(line, `${chosen.url} is empty`);
    const short = peerText(cell(row, 'code')) ?? refuseLine(line, `${chosen.code} is empty`);
    const parts = short.includes('/') ? shortUrlParts(short) : { host: '', code: short };
    if (parts === undefined) refuseLine(line, `${chosen.code} is not a bitlink: ${JSON.stringify(short.slice(0, 80))}`);
    const link = peerLink(line, parts.code, url);
    link.domain = parts.host === '' || BITLY_HOSTS.has(parts.host.toLowerCase()) ? null : parts.host;
    link.title = peerText(cell(row, 'title'));
    const tags = peerText(cell(row, 'tags')) ?? '';
    link.tags = tags.split(tags.includes('|') ? '|' : ',').flatMap((t) => peerText(t) ?? []);
    link.createdAt = peerTime(cell(row, 'createdAt'), line, chosen.createdAt ?? 'createdAt');
    link.visitCount = peerCount(cell(row, 'visits'), line, chosen.visits ?? 'visits');
    return link;
  });
  const used = new Set(Object.values(chosen));
  const unread = columns.filter((c) => c !== '' && !used.has(c));
  const mapped = BITLY_FIELDS.filter((f) => chosen[f] !== undefined).map((f) => `${f}=${chosen[f]}`);
  return {
    links,
    skips: [],
    notes: [`columns read: ${mapped.join(', ')}`, ...(unread.length > 0 ? [`columns not imported: ${unread.join(', ')}`] : [])],
  };
}
