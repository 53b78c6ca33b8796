import type { Link } from './link.ts';

/** The link as the API and the CLI's --json show it. */
export function linkJson(link: Link, shortUrl: string) {
  return {
    code: link.code,
    shortUrl,
    url: link.url,
    createdAt: link.createdAt.toISOString(),
    updatedAt: link.updatedAt.toISOString(),
    visitCount: link.visitCount,
    lastVisitAt: link.lastVisitAt?.toISOString() ?? null,
    deletedAt: link.deletedAt?.toISOString() ?? null,
  };
}
