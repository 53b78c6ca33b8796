import { isAdmin, type Actor } from '../auth/actor.ts';
import type { ReviewNewLinks } from '../config.ts';

/**
 * Whether a new link of the actor waits for review under `reviewNewLinks`: `anonymous` holds the links
 * shortened on / without an account, `members` every link but an admin's. An admin's never waits.
 */
export function reviewOf(actor: Actor, setting: ReviewNewLinks): 'pending' | null {
  if (setting === 'off' || isAdmin(actor)) return null;
  return setting === 'members' || actor.via.kind === 'anonymous' ? 'pending' : null;
}
