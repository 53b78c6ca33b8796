import { DEFAULT_DOMAIN, type DomainUse } from '../domains/domain.ts';
import { domainJson } from '../domains/domain-json.ts';
import type { DomainInput } from '../domains/manage.ts';
import { EXIT, JSON_FLAG, UsageError, subcommandOf, table, type Command, type CommandInput } from './command.ts';
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
    'domains add HOST [--scheme http|https] [--not-found-redirect URL] [--root-redirect URL] | list | edit HOST [same flags] | remove HOST [--json]',
  subcommands: {
    add: {
      usage: 'domains add HOST [--scheme http|https] [--not-found-redirect URL] [--root-redirect URL] [--json]',
      summary: 'serve HOST too (point its DNS and proxy at kurz); its short URLs are HOST/CODE',
    },
    list: { usage: 'domains list [--json]', summary: "every domain, the default (the publicUrl's host) first, with its live links" },
    edit: {
      usage: 'domains edit HOST [--scheme http|https] [--not-found-redirect URL] [--root-redirect URL] [--json]',
      summary: 'change what is given; an empty value clears it (e.g. --root-redirect "")',
    },
    remove: { usage: 'domains remove HOST', summary: 'stop serving HOST; refused while live links are on it' },
  },
  flags: {
    scheme: { type: 'string', placeholder: 'http|https', doc: "domains add/edit: its short URLs' scheme (default: the publicUrl's)" },
    'not-found-redirect': {
      type: 'string',
      placeholder: 'URL',
      doc: 'domains add/edit: send an unknown code on this domain here instead of the 404 page',
    },
    'root-redirect': { type: 'string', placeholder: 'URL', doc: "domains add/edit: send a visitor's / on this domain here" },
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
        `--${FIELD_FLAGS.find(([, field]) => field in fields)?.[0]} is for "domains add" and "domains edit"; usage: kurz ${usage}`,
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
          else out(table(['HOST', 'LINKS', 'SCHEME', 'NOT FOUND', 'ROOT'], all.map(domainRow)));
          return EXIT.ok;
        }
        if (sub === 'remove') {
          const removed = await services.domains.removeDomain(host);
          out(values['json'] ? JSON.stringify({ host: removed.host, removed: true }) + '\n' : `removed the domain ${removed.host}\n`);
          return EXIT.ok;
        }
        const changed = sub === 'add' ? await services.domains.addDomain(host, fields) : await services.domains.editDomain(host, fields);
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

/** The field flags given, as the use case takes them ('' clears). */
function fieldsOf({ values }: CommandInput): DomainInput {
  const fields: Record<string, unknown> = {};
  for (const [flag, field] of FIELD_FLAGS) if (values[flag] !== undefined) fields[field] = values[flag];
  return fields as DomainInput;
}

function domainRow(domain: DomainUse): string[] {
  return [
    domain.id === DEFAULT_DOMAIN ? `${domain.host} (default)` : domain.host,
    String(domain.links),
    domain.scheme ?? '-',
    domain.notFoundRedirect ?? '-',
    domain.rootRedirect ?? '-',
  ];
}
