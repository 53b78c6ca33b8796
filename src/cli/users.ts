import { ROLES } from '../auth/actor.ts';
import { userJson } from '../auth/user-json.ts';
import type { UserUse } from '../auth/user.ts';
import type { Invitation } from '../auth/users.ts';
import { EXIT, JSON_FLAG, UsageError, subcommandOf, table, type Command } from './command.ts';
import { actorFor } from './link-flags.ts';
import { withServices } from './wiring.ts';

export const users: Command = {
  summary:
    "Add people, list them, change their role, disable or enable them, give them a link to set a password, and hand one's links to another.",
  usage: `users add NAME [--role ${ROLES.join('|')}] [--email ADDRESS] | list | role NAME ${ROLES.join('|')} | disable NAME | enable NAME | reset NAME | handover NAME --to OTHER [--json]`,
  subcommands: {
    add: {
      usage: `users add NAME [--role ${ROLES.join('|')}] [--email ADDRESS] [--json]`,
      summary: 'add a user (a member unless --role admin) and print the one-time link, valid 24 h, with which they set a password',
    },
    list: { usage: 'users list [--json]', summary: 'every user: role, state, live links, whether a password is set or a link is open' },
    role: { usage: `users role NAME ${ROLES.join('|')}`, summary: 'make a user an admin or a member' },
    disable: {
      usage: 'users disable NAME',
      summary: 'the user can no longer log in or use their keys; their sessions end; their links stay',
    },
    enable: { usage: 'users enable NAME', summary: 'let a disabled user in again' },
    reset: {
      usage: 'users reset NAME [--json]',
      summary: 'print a new one-time link (24 h) to set a new password; the old one works until then',
    },
    handover: {
      usage: 'users handover NAME --to OTHER [--json]',
      summary: "give every link of NAME's to OTHER, deleted ones too (their figures go along)",
    },
  },
  examples: ['kurz users add alice --role member', 'kurz users handover alice --to bob'],
  flags: {
    role: { type: 'string', placeholder: ROLES.join('|'), doc: 'users add: admin (everything) or member (their own links; the default)' },
    email: { type: 'string', placeholder: 'ADDRESS', doc: 'users add: their e-mail address (optional; kurz sends no mail)' },
    to: { type: 'string', placeholder: 'OTHER', doc: 'users handover: the user who gets the links' },
    json: JSON_FLAG,
  },
  positionals: [1, 3],
  run(input) {
    const sub = subcommandOf('users', users, input.positionals);
    const usage = users.subcommands?.[sub]?.usage ?? '';
    const [, name, role] = input.positionals;
    const { values, config, out } = input;
    if (sub === 'list' && name !== undefined)
      throw new UsageError(`users list: unexpected argument ${JSON.stringify(name)}; usage: kurz ${usage}`);
    if (sub !== 'list' && name === undefined) throw new UsageError(`users ${sub} needs the user's name; usage: kurz ${usage}`);
    if (sub === 'role' && role === undefined)
      throw new UsageError(`users role needs the new role (${ROLES.join(' or ')}); usage: kurz ${usage}`);
    if (sub !== 'role' && role !== undefined)
      throw new UsageError(`users ${sub}: unexpected argument ${JSON.stringify(role)}; usage: kurz ${usage}`);
    for (const flag of ['role', 'email'])
      if (sub !== 'add' && values[flag] !== undefined) throw new UsageError(`--${flag} is for "users add"; usage: kurz ${usage}`);
    if (sub !== 'handover' && values['to'] !== undefined) throw new UsageError(`--to is for "users handover"; usage: kurz ${usage}`);
    if (sub === 'handover' && values['to'] === undefined)
      throw new UsageError(`users handover needs --to, the user who gets the links; usage: kurz ${usage}`);
    return withServices(
      config,
      async (services) => {
        const admin = await actorFor(services, undefined);
        const { users: people } = services;
        const invited = (invitation: Invitation, what: string): void =>
          out(
            values['json']
              ? JSON.stringify({ ...userJson(invitation.user), link: invitation.link }) + '\n'
              : `${what} ${invitation.user.name}; they set their password at (valid until ${invitation.expiresAt.toISOString()}, once):\n${invitation.link}\n`,
          );
        if (sub === 'list') {
          const all = await people.listUsers(admin);
          if (values['json']) out(JSON.stringify(all.map(userJson)) + '\n');
          else out(table(['NAME', 'ROLE', 'STATE', 'LINKS', 'EMAIL', 'PASSWORD'], all.map(userRow)));
        } else if (sub === 'add') {
          invited(await people.addUser(admin, { name, role: values['role'], email: values['email'] }), 'added');
        } else if (sub === 'reset') {
          invited(await people.resetPassword(admin, name!), 'a new link for');
        } else if (sub === 'handover') {
          const handed = await services.links.handOverAll(admin, (await people.user(admin, name!)).id, values['to']);
          out(values['json'] ? JSON.stringify(handed) + '\n' : `${handed.links} links of ${handed.from} are now ${handed.to}'s\n`);
        } else {
          const changed =
            sub === 'role'
              ? await people.setRole(admin, name!, role)
              : await people.setState(admin, name!, sub === 'disable' ? 'disabled' : 'active');
          out(
            values['json']
              ? JSON.stringify(userJson(changed)) + '\n'
              : `${changed.name} is now ${sub === 'role' ? `a${changed.role === 'admin' ? 'n' : ''} ${changed.role}` : changed.state}\n`,
          );
        }
        return EXIT.ok;
      },
      { existing: sub !== 'add' },
    );
  },
};

function userRow(user: UserUse): string[] {
  const password = user.hasPassword
    ? 'set'
    : user.inviteExpiresAt
      ? `link until ${user.inviteExpiresAt.toISOString().slice(0, 16).replace('T', ' ')}`
      : 'none';
  return [user.name, user.role, user.state, String(user.links), user.email ?? '-', password];
}
