import { DEFAULT_DOMAIN, type DomainUse } from '../domains/domain.ts';
import { domainJson } from '../domains/domain-json.ts';
import { usersText, type DomainInput } from '../domains/manage.ts';
import { EXIT, JSON_FLAG, UsageError, subcommandOf, table, type Command, type CommandInput } from './command.ts';
import { actorFor } from './link-flags.ts';
import { withServices } from './wiring.ts';

/** The flags that set a domain's fields, and the field each sets; an empty value clears it. */
const FIELD_FLAGS = [
  ['scheme', 'scheme'],
  ['not-found-redirect', 'notFoundRedirect'],
  ['root-redirect', 'rootRedirect'],
] as const;

export const domains: Command = {
  summary: 'Add, list, edit and remove short domains: other hosts whose paths are codes, each with a code space of its own.',
  usage:
    'domains add HOST [--scheme http|https] [--not-found-redirect URL] [--root-redirect URL] [--users NAME,… | --all-users] | list | edit HOST [same flags] | remove HOST [--json]',
  subcommands: {
    add: {
      usage: 'domains add HOST [--scheme http|https] [--not-found-redirect URL] [--root-redirect URL] [--users NAME,…] [--json]',
      summary:
        'serve HOST too (point its DNS and proxy at kurz); its short URLs are HOST/CODE; every user may create links on it unless --users names some',
    },
    list: {
      usage: 'domains list [--json]',
      summary: "every domain, the default (the publicUrl's host) first, with its live links and who may create links on it",
    },
    edit: {
      usage:
        'domains edit HOST [--scheme http|https] [--not-found-redirect URL] [--root-redirect URL] [--users NAME,… | --all-users] [--json]',
      summary: 'change what is given; an empty value clears it (e.g. --root-redirect "")',
    },
    remove: { usage: 'domains remove HOST', summary: 'stop serving HOST; refused while live links are on it' },
  },
  examples: ['kurz domains add go.example.com --scheme https', 'kurz domains list'],
  flags: {
    scheme: { type: 'string', placeholder: 'http|https', doc: "domains add/edit: its short URLs' scheme (default: the publicUrl's)" },
    'not-found-redirect': {
      type: 'string',
      placeholder: 'URL',
      doc: 'domains add/edit: send an unknown code on this domain here instead of the 404 page',
    },
    'root-redirect': { type: 'string', placeholder: 'URL', doc: "domains add/edit: send a visitor's / on this domain here" },
    users: {
      type: 'string',
      placeholder: 'NAME,…',
      doc: 'domains add/edit: only these users (and the admins) may create links on it; "" leaves it to the admins. Those taken off keep their links there',
    },
    'all-users': { type: 'boolean', doc: 'domains add/edit: every user may create links on it (the default of a new domain)' },
    json: JSON_FLAG,
  },
  positionals: [1, 2],
  run(input) {
    const sub = subcommandOf('domains', domains, input.positionals);
    const usage = domains.subcommands?.[sub]?.usage ?? '';
    const host = input.positionals[1];
    if (sub === 'list' && host !== undefined)
      throw new UsageError(`domains list: unexpected argument ${JSON.stringify(host)}; usage: kurz ${usage}`);
    if (sub !== 'list' && host === undefined) throw new UsageError(`domains ${sub} needs the domain's host; usage: kurz ${usage}`);
    const fields = fieldsOf(input);
    if ((sub === 'list' || sub === 'remove') && Object.keys(fields).length > 0)
      throw new UsageError(
        `--${FIELD_FLAGS.find(([, field]) => field in fields)?.[0] ?? (input.values['all-users'] ? 'all-users' : 'users')} is for "domains add" and "domains edit"; usage: kurz ${usage}`,
      );
    if (sub === 'edit' && Object.keys(fields).length === 0)
      throw new UsageError(`domains edit: give at least one change; usage: kurz ${usage}`);
    const { values, config, out } = input;
    return withServices(
      config,
      async (services) => {
        if (sub === 'list') {
          const all = await services.domains.listDomains();
          if (values['json']) out(JSON.stringify(all.map((d) => domainJson(d))) + '\n');
          else out(table(['HOST', 'LINKS', 'SCHEME', 'NOT FOUND', 'ROOT', 'OPEN TO'], all.map(domainRow)));
          return EXIT.ok;
        }
        // The first admin acts (the audit trail names them).
        const actor = await actorFor(services, undefined);
        if (sub === 'remove') {
          const removed = await services.domains.removeDomain(actor, host);
          out(values['json'] ? JSON.stringify({ host: removed.host, removed: true }) + '\n' : `removed the domain ${removed.host}\n`);
          return EXIT.ok;
        }
        const changed =
          sub === 'add' ? await services.domains.addDomain(actor, host, fields) : await services.domains.editDomain(actor, host, fields);
        const listed = (await services.domains.listDomains()).find((d) => d.id === changed.id) ?? { ...changed, links: 0 };
        out(
          values['json'] ? JSON.stringify(domainJson(listed)) + '\n' : `${sub === 'add' ? 'added' : 'changed'} the domain ${listed.host}\n`,
        );
        return EXIT.ok;
      },
      { existing: sub !== 'add' },
    );
  },
};

/** The field flags given, as the use case takes them ('' clears; --users "" leaves the domain to the admins). */
function fieldsOf({ values }: CommandInput): DomainInput {
  const fields: Record<string, unknown> = {};
  for (const [flag, field] of FIELD_FLAGS) if (values[flag] !== undefined) fields[field] = values[flag];
  const users = values['users'];
  if (users !== undefined && values['all-users']) throw new UsageError('give --users NAME,… or --all-users, not both');
  if (typeof users === 'string')
    fields['users'] = users
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
  if (values['all-users']) fields['users'] = null;
  return fields as DomainInput;
}

function domainRow(domain: DomainUse): string[] {
  return [
    domain.id === DEFAULT_DOMAIN ? `${domain.host} (default)` : domain.host,
    String(domain.links),
    domain.scheme ?? '-',
    domain.notFoundRedirect ?? '-',
    domain.rootRedirect ?? '-',
    usersText(domain.users),
  ];
}
