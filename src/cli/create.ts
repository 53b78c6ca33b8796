import { linkJson } from '../links/link-json.ts';
import { EXIT, JSON_FLAG, type Command } from './command.ts';
import { actorFor, AS_FLAG, DOMAIN_FLAG, OPTION_FLAGS, optionFields } from './link-flags.ts';
import { withServices } from './wiring.ts';

export const create: Command = {
  summary: 'Shorten URL and print the short link. The same bare URL again prints the existing link (dedupe).',
  usage:
    'create URL [--domain HOST] [--alias ALIAS] [--title T] [--tags A,B] [--expires TIME] [--password-stdin] [other options below] [--json] [--as USER]',
  examples: ['kurz create https://example.com/a/long/path --alias docs --tags team,wiki'],
  flags: {
    as: AS_FLAG,
    alias: { type: 'string', placeholder: 'ALIAS', doc: 'use this code instead of a generated one' },
    domain: DOMAIN_FLAG,
    ...OPTION_FLAGS,
    disabled: { type: 'boolean', doc: 'create it disabled: it answers 410 until enabled with "kurz edit CODE --enable"' },
    json: JSON_FLAG,
  },
  positionals: [1, 1],
  async run({ values, positionals, config, out }) {
    const fields = await optionFields(values);
    if (values['disabled']) fields['enabled'] = false;
    return withServices(config, async (services) => {
      const { link, created } = await services.creation.createLink(await actorFor(services, values['as']), {
        ...fields,
        url: positionals[0],
        alias: values['alias'],
        domain: values['domain'],
      });
      out(values['json'] ? JSON.stringify({ ...linkJson(link, services), created }) + '\n' : `${services.shortUrl(link)}\n`);
      return EXIT.ok;
    });
  },
};
