import type { User, UserUse } from './user.ts';

/** A user as the API and `kurz users --json` show them: never a password or invitation hash. */
export function userJson(user: User | UserUse) {
  return {
    name: user.name,
    email: user.email,
    role: user.role,
    state: user.state,
    createdAt: user.createdAt.toISOString(),
    hasPassword: user.hasPassword,
    inviteExpiresAt: user.inviteExpiresAt?.toISOString() ?? null,
    ...('links' in user ? { links: user.links } : {}),
  };
}
