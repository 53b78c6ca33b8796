import type { Link } from '../store/link-store.ts';

/** The link as the API and the CLI's --json show it. */
export function presentLink(link: Link, shortUrl: string) {
  return {
    code: link.code,
    shortUrl,
    url: link.url,
    createdAt: isoOrNull(link.createdAt),
    updatedAt: isoOrNull(link.updatedAt),
    visitCount: link.visitCount,
    lastVisitAt: isoOrNull(link.lastVisitAt),
    deletedAt: isoOrNull(link.deletedAt),
  };
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
