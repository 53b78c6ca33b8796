/** A live crawlable link as robots.txt needs it: its code and the times it starts and stops answering. */
export interface CrawlableLink {
  code: string;
  /** Milliseconds since the epoch, or null. */
  startsAt: number | null;
  expiresAt: number | null;
}

/** A robots.txt and the time it stops being right (a listed link expires, or one waiting starts); null: until a link changes. */
export interface Robots {
  text: string;
  until: number | null;
}

/**
 * The robots.txt of a domain at `at`: `Allow: /CODE` for each of its crawlable links that redirects then, before
 * the `Disallow: /` that keeps crawlers off everything else (short links are for people, and the pages are not
 * content), as Shlink writes its own. A link that has not started is left out, so the file never tells of it early.
 */
export function robotsOf(links: readonly CrawlableLink[], at: number): Robots {
  let until: number | null = null;
  const soonest = (time: number) => {
    until = until === null ? time : Math.min(until, time);
  };
  const allowed: string[] = [];
  for (const link of links) {
    if (link.startsAt !== null && at < link.startsAt) soonest(link.startsAt);
    else if (link.expiresAt === null || at < link.expiresAt) {
      allowed.push(`Allow: /${link.code}\n`);
      if (link.expiresAt !== null) soonest(link.expiresAt);
    }
  }
  return { text: `User-agent: *\n${allowed.sort().join('')}Disallow: /\n`, until };
}
