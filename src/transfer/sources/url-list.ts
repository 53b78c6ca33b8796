import { csvRecords, peerLink, peerText, refuseLine, type PeerFile } from './peer-link.ts';

/**
 * A plain list of links: a CSV whose header has a `url` column (and optionally `code`, `title`, `tags`, with
 * tags split at ";" or "|"), or else a text file of URLs, one a line. A link without a code gets a generated one.
 */
export function readUrlList(text: string): PeerFile {
  const firstLine = (
    text
      .replace(/^\ufeff/, '')
      .split(/\r?\n/)
      .find((l) => l.trim() !== '') ?? ''
  ).toLowerCase();
  if (!/(^|,)\s*"?url"?\s*(,|$)/.test(firstLine)) {
    const links = text
      .split('\n')
      .map((raw, i) => ({ line: i + 1, url: raw.replace(/^\ufeff/, '').trim() }))
      .filter(({ url }) => url !== '')
      .map(({ line, url }) => peerLink(line, null, url));
    return { links, skips: [], notes: [] };
  }
  const { columns, rows } = csvRecords(text, (name) => name.trim().toLowerCase());
  const unknown = columns.filter((c) => !['url', 'code', 'title', 'tags'].includes(c));
  if (unknown.length > 0) refuseLine(1, `unknown column ${unknown.join(', ')}: a list has url, code, title and tags`);
  const links = rows.map(({ line, row }) => {
    const link = peerLink(line, peerText(row['code']), peerText(row['url']) ?? refuseLine(line, 'url is empty'));
    link.title = peerText(row['title']);
    link.tags = (row['tags'] ?? '').split(/[;|]/).flatMap((t) => peerText(t) ?? []);
    return link;
  });
  return { links, skips: [], notes: [] };
}
