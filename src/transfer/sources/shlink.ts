import { csvRecords, peerCount, peerLink, peerText, peerTime, refuseLine, shortUrlParts, type PeerFile } from './peer-link.ts';

/**
 * The links of a Shlink CSV: the web client's export (createdAt, domain, shortCode, shortUrl, longUrl, title,
 * tags, visits) or the file Shlink's own importer reads (longUrl, and optionally shortCode, domain, title,
 * tags; `,` or `;` between cells). As that importer does, column names are read without case or spaces, a
 * missing shortCode or domain is taken from shortUrl, and tags are split at "," when a cell has one, else at "|".
 */
export function readShlink(text: string): PeerFile {
  const firstLine = text.slice(0, text.indexOf('\n') === -1 ? undefined : text.indexOf('\n'));
  const delimiter = !firstLine.includes(',') && firstLine.includes(';') ? ';' : ',';
  const { columns, rows } = csvRecords(text, (name) => name.replaceAll(' ', '').toLowerCase(), { delimiter: [delimiter] });
  if (!columns.includes('longurl')) refuseLine(1, 'a Shlink CSV needs a longUrl column');
  const links = rows.map(({ line, row }) => {
    const url = peerText(row['longurl']) ?? refuseLine(line, 'longUrl is empty');
    const short = peerText(row['shorturl']);
    const parts = short === null ? undefined : shortUrlParts(short);
    if (short !== null && parts === undefined) refuseLine(line, `shortUrl is not a URL: ${JSON.stringify(short.slice(0, 80))}`);
    const link = peerLink(line, peerText(row['shortcode']) ?? peerText(parts?.code) ?? null, url);
    link.domain = columns.includes('domain') ? peerText(row['domain']) : (parts?.host ?? null);
    link.title = peerText(row['title']);
    const tags = peerText(row['tags']) ?? '';
    link.tags = tags.split(tags.includes(',') ? ',' : '|').flatMap((t) => peerText(t) ?? []);
    link.createdAt = peerTime(row['createdat'], line, 'createdAt');
    link.visitCount = peerCount(row['visits'], line, 'visits');
    return link;
  });
  return { links, skips: [], notes: [] };
}
