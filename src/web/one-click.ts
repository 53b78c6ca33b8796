import type { WebServices } from '../context.ts';

// Shortening from anywhere, as the API keys page hands it out: the bookmarklet, a ShareX custom uploader
// and a curl line. Each is text built from the public URL; the key goes in only where it is shown once.

/** What the share token signs for a user: kurz's CSRF token of this value (web/handlers/share.ts checks it). */
export const SHARE_PURPOSE = (userId: number): string => `share:${userId}`;

/** The ShareX version whose custom uploader format (13 and later: `{input}`, `{response}`) the file is written in. */
const SHAREX_VERSION = '17.0.0';

/** What the ShareX file and the curl line put where no key can be shown (kurz keeps only a key's hash). */
export const KEY_PLACEHOLDER = 'YOUR-API-KEY';

/**
 * The bookmarklet: it opens /share with the page's address and title and the user's share token, which
 * another site cannot know, so that one click shortens and no other page can make a logged-in browser do so.
 * Percent signs are written as %25 because a browser decodes a `javascript:` URL once before it runs it.
 */
export function bookmarklet(web: WebServices, userId: number): string {
  const share = `${web.config.publicUrl}/share?t=${web.access.csrfToken(SHARE_PURPOSE(userId))}`;
  const script = `location.href=${JSON.stringify(share)}+'&url='+encodeURIComponent(location.href)+'&title='+encodeURIComponent(document.title)`;
  return `javascript:${script.replaceAll('%', '%25')}`;
}

/**
 * A ShareX custom uploader (.sxcu) that shortens through YOURLS' API with `key` as the signature: ShareX sends
 * the URL as `{input}` in a multipart form and takes the bare short URL (`format=simple`) as `{response}`.
 */
export function sharexUploader(web: WebServices, key: string): string {
  const host = new URL(web.config.publicUrl).host;
  const uploader = {
    Version: SHAREX_VERSION,
    Name: `kurz (${host})`,
    DestinationType: 'URLShortener',
    RequestMethod: 'POST',
    RequestURL: `${web.config.publicUrl}/yourls-api.php`,
    Body: 'MultipartFormData',
    Arguments: { signature: key, action: 'shorturl', url: '{input}', format: 'simple' },
    URL: '{response}',
    ErrorMessage: '{response}',
  };
  return `${JSON.stringify(uploader, null, 2)}\n`;
}

/** The file's name: the host, as ShareX names an uploader it exports. */
export function sharexFileName(web: WebServices): string {
  return `kurz-${new URL(web.config.publicUrl).hostname}.sxcu`;
}

/** A shell line that shortens a URL with `key` through YOURLS' API and prints the short URL alone. */
export function curlLine(web: WebServices, key: string): string {
  return `curl -sS -d signature=${key} -d action=shorturl -d format=simple --data-urlencode url=https://example.com/ ${web.config.publicUrl}/yourls-api.php`;
}
