import test from 'ava';
import { identityOf, type SsoClaimSettings } from '../../src/auth/sso-claims.ts';

const SETTINGS: SsoClaimSettings = { oidcUserClaim: 'preferred_username', oidcAdminClaim: 'groups', oidcAdminValue: 'kurz-admins' };
const NO_ADMIN_CLAIM: SsoClaimSettings = { ...SETTINGS, oidcAdminClaim: '', oidcAdminValue: '' };

const CASES: Array<[string, Record<string, unknown>, SsoClaimSettings, ReturnType<typeof identityOf>]> = [
  [
    'a member of the admin group is an admin',
    { preferred_username: 'alice', email: 'alice@example.com', groups: ['staff', 'kurz-admins'] },
    SETTINGS,
    { identity: { name: 'alice', email: 'alice@example.com', admin: true } },
  ],
  [
    'a string claim equal to the value makes an admin',
    { preferred_username: 'alice', groups: 'kurz-admins' },
    SETTINGS,
    { identity: { name: 'alice', email: null, admin: true } },
  ],
  [
    'another group is no admin',
    { preferred_username: 'bob', groups: ['staff'] },
    SETTINGS,
    { identity: { name: 'bob', email: null, admin: false } },
  ],
  [
    'a string that only contains the value is no admin',
    { preferred_username: 'bob', groups: 'kurz-admins-old' },
    SETTINGS,
    { identity: { name: 'bob', email: null, admin: false } },
  ],
  ['no groups claim is no admin', { preferred_username: 'bob' }, SETTINGS, { identity: { name: 'bob', email: null, admin: false } }],
  [
    'without an admin claim set, nobody is made admin',
    { preferred_username: 'alice', groups: ['kurz-admins'] },
    NO_ADMIN_CLAIM,
    { identity: { name: 'alice', email: null, admin: false } },
  ],
  ['the name is trimmed', { preferred_username: ' alice ' }, SETTINGS, { identity: { name: 'alice', email: null, admin: false } }],
  [
    'another user claim',
    { email: 'alice@example.com' },
    { ...SETTINGS, oidcUserClaim: 'email' },
    { identity: { name: 'alice@example.com', email: 'alice@example.com', admin: false } },
  ],
  [
    'an empty email is none',
    { preferred_username: 'alice', email: '' },
    SETTINGS,
    { identity: { name: 'alice', email: null, admin: false } },
  ],
  [
    'a missing user claim is refused, naming it',
    { sub: '123' },
    SETTINGS,
    { refused: 'the provider sent no "preferred_username" claim to name the user (oidcUserClaim); ask for the scope that carries it' },
  ],
  [
    'an empty user claim is refused like a missing one',
    { preferred_username: '' },
    SETTINGS,
    { refused: 'the provider sent no "preferred_username" claim to name the user (oidcUserClaim); ask for the scope that carries it' },
  ],
  [
    'a user claim that is no string is refused',
    { preferred_username: ['alice'] },
    SETTINGS,
    { refused: 'the "preferred_username" claim is not a string, so it cannot be a user name' },
  ],
  [
    'a name kurz cannot take is refused',
    { preferred_username: 'carol smith' },
    SETTINGS,
    { refused: 'the user name "carol smith" is not one kurz accepts: it must be 1-64 letters, digits, ".", "_", "@" or "-"' },
  ],
  [
    'a name longer than 64 is refused',
    { preferred_username: 'a'.repeat(65) },
    SETTINGS,
    { refused: `the user name "${'a'.repeat(65)}" is not one kurz accepts: it must be 1-64 letters, digits, ".", "_", "@" or "-"` },
  ],
];

for (const [title, claims, settings, expected] of CASES) {
  test(`identityOf: ${title}`, (t) => {
    t.deepEqual(identityOf(claims, settings), expected);
  });
}
