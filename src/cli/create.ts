import { linkJson } from '../links/link-json.ts';
import { EXIT, JSON_FLAG, type Command } from './command.ts';
import { withServices } from './wiring.ts';

export const create: Command = {
  summary: 'Shorten URL and print the short link. The same URL again prints the existing link (dedupe).',
  usage: 'create URL [--alias ALIAS] [--json]',
  flags: { alias: { type: 'string', placeholder: 'ALIAS', doc: 'use this code instead of a generated one' }, json: JSON_FLAG },
  positionals: [1, 1],
  run: ({ values, positionals, config, out }) =>
    withServices(config, async (services) => {
      const { link, created } = await services.creation.createLink({ url: positionals[0], alias: values['alias'] });
      const shortUrl = services.shortUrl(link.code);
      out(values['json'] ? JSON.stringify({ ...linkJson(link, shortUrl), created }) + '\n' : `${shortUrl}\n`);
      return EXIT.ok;
    }),
};
