import type { Gate, Link, Refusal } from './link.ts';

/**
 * True while a link with this start time has not started at `at`: it answers as a code no link has (404), as
 * Shlink does for a short URL before its validSince, so that nothing tells a stranger it exists yet.
 */
export function notStarted(startsAt: number | null, at: number): boolean {
  return startsAt !== null && at < startsAt;
}

/** Why a live link with this gate does not redirect at `at` (before any password or visit limit), or undefined. */
export function refusalOf(gate: Pick<Gate, 'blocked' | 'review' | 'enabled' | 'expiresAt'>, at: number): Refusal | undefined {
  if (gate.blocked) return 'blocked';
  if (gate.review !== null) return gate.review === 'pending' ? 'in_review' : 'rejected';
  if (!gate.enabled) return 'disabled';
  if (gate.expiresAt !== null && at >= gate.expiresAt) return 'expired';
  return undefined;
}

/**
 * True when the gate guards the target (a visit limit, an expiry, a password): then only an answer that
 * counts (a person's GET) may hand it out, and never one a cache could hand out again. A gate of redirect
 * options alone guards nothing.
 */
export function guards(gate: Pick<Gate, 'maxVisits' | 'expiresAt' | 'locked'>): boolean {
  return gate.maxVisits !== null || gate.expiresAt !== null || gate.locked;
}

/** Why a stored live link does not redirect at `at`, its visit limit included (its page, its password form). */
export function linkRefusal(
  link: Pick<Link, 'blocked' | 'review' | 'enabled' | 'expiresAt' | 'maxVisits' | 'claimedVisits'>,
  at: number,
): Refusal | undefined {
  const refusal = refusalOf(
    { blocked: link.blocked !== null, review: link.review, enabled: link.enabled, expiresAt: link.expiresAt?.getTime() ?? null },
    at,
  );
  if (refusal) return refusal;
  return link.maxVisits !== null && link.claimedVisits >= link.maxVisits ? 'used_up' : undefined;
}

/**
 * The Location of a redirect to `url`, with the visitor's query string (the part of the request target
 * after `?`, or '') appended when the link forwards it: before the fragment, after any query of its own.
 */
export function locationOf(url: string, query: string, forward: boolean): string {
  if (!forward || query === '') return url;
  const hash = url.indexOf('#');
  const base = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 ? '' : url.slice(hash);
  const joiner = base.includes('?') ? (base.endsWith('?') || base.endsWith('&') ? '' : '&') : '?';
  return base + joiner + query + fragment;
}

/** The query string of a request target (`/abc?x=1` → `x=1`). */
export function queryOf(requestTarget: string): string {
  const at = requestTarget.indexOf('?');
  return at === -1 ? '' : requestTarget.slice(at + 1);
}
