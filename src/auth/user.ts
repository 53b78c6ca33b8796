/** The people who use kurz: each owns links and keys; an admin sees and manages everything. */

import type { Role } from './actor.ts';

export const USER_STATES = ['active', 'disabled'] as const;
export type UserState = (typeof USER_STATES)[number];

export interface User {
  id: number;
  name: string;
  email: string | null;
  role: Role;
  state: UserState;
  createdAt: Date;
  /** True once the user has a password (an invited user has none until they set it). */
  hasPassword: boolean;
  /** When the open invitation (or reset) link stops working; null when none is open. */
  inviteExpiresAt: Date | null;
}

/** A user as the store keeps them: the secrets only as hashes. */
export interface StoredUser extends User {
  passwordHash: string | null;
}

/** A user with their live links, as the users page lists them. */
export interface UserUse extends User {
  links: number;
}

export interface NewUser {
  name: string;
  email: string | null;
  role: Role;
  createdAt: Date;
  inviteHash: string | null;
  inviteExpiresAt: Date | null;
}

/** The fields an update sets; absent ones stay. An invitation hash of null closes the invitation. */
export interface UserEdit {
  email?: string | null;
  role?: Role;
  state?: UserState;
  passwordHash?: string | null;
  inviteHash?: string | null;
  inviteExpiresAt?: Date | null;
}
