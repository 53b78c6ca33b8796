import test from 'ava';
import type { Actor, Via } from '../../src/auth/actor.ts';
import type { ReviewNewLinks } from '../../src/config.ts';
import { reviewOf } from '../../src/links/review-rules.ts';

const actor = (role: Actor['role'], via: Via): Actor => ({ userId: 2, name: 'someone', role, via });
const ADMIN = actor('admin', { kind: 'session' });
const ADMIN_KEY = actor('admin', { kind: 'key', key: 'deploy' });
const MEMBER = actor('member', { kind: 'session' });
const MEMBER_CLI = actor('member', { kind: 'cli' });
const ANONYMOUS = actor('member', { kind: 'anonymous' });

const CASES: Array<[ReviewNewLinks, Actor, 'pending' | null]> = [
  ['off', ANONYMOUS, null],
  ['off', MEMBER, null],
  ['anonymous', ANONYMOUS, 'pending'],
  ['anonymous', MEMBER, null],
  ['anonymous', MEMBER_CLI, null],
  ['anonymous', ADMIN, null],
  ['members', ANONYMOUS, 'pending'],
  ['members', MEMBER, 'pending'],
  ['members', MEMBER_CLI, 'pending'],
  ['members', ADMIN, null],
  ['members', ADMIN_KEY, null],
];

for (const [setting, who, expected] of CASES)
  test(`reviewNewLinks ${setting}: a new link of ${who.role} by ${who.via.kind} ${expected ? 'waits' : 'does not wait'}`, (t) => {
    t.is(reviewOf(who, setting), expected);
  });
