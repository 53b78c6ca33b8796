import type { RedirectStatus } from '../config.ts';
import type { Gate, Refusal } from './link.ts';

/** Why a live link with this gate does not redirect at `at` (before any password or visit limit), or undefined. */
export function refusalOf(gate: Gate, at: number): Refusal | undefined {
  if (!gate.enabled) return 'disabled';
  if (gate.expiresAt !== null && at >= gate.expiresAt) return 'expired';
  return undefined;
}

/** The instance's defaults for what a link leaves unset. */
export interface RedirectDefaults {
  redirectStatus: RedirectStatus;
  forwardQuery: boolean;
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
