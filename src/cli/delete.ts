import { actorFor, AS_FLAG, DOMAIN_FLAG } from './link-flags.ts';
import { EXIT, JSON_FLAG, type Command } from './command.ts';
import { withServices } from './wiring.ts';

export const remove: Command = {
  summary: 'Delete a link. Its code is never reused: it answers 410 Gone from then on.',
  usage: 'delete CODE [--domain HOST] [--json] [--as USER]',
  examples: ['kurz delete docs'],
  flags: {
    as: AS_FLAG,
    domain: DOMAIN_FLAG,
    json: JSON_FLAG,
  },
  positionals: [1, 1],
  run: ({ values, positionals, config, out }) =>
    withServices(
      config,
      async (services) => {
        const { link, deleted } = await services.links.deleteLink(
          await actorFor(services, values['as']),
          positionals[0] ?? '',
          services.registry.idOf(values['domain']),
        );
        if (values['json']) out(JSON.stringify({ code: link.code, deleted, alreadyDeleted: !deleted }) + '\n');
        else out(deleted ? `deleted ${link.code}\n` : `${link.code} was already deleted\n`);
        return EXIT.ok;
      },
      { existing: true },
    ),
};
