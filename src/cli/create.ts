import { presentLink } from '../links/present.ts';
import { EXIT, JSON_FLAG, withCore, type Command } from './command.ts';

export const create: Command = {
  summary: 'Shorten URL and print the short link. The same URL again prints the existing link (dedupe).',
  usage: 'create URL [--alias ALIAS] [--json]',
  flags: { alias: { type: 'string', placeholder: 'ALIAS', doc: 'use this code instead of a generated one' }, json: JSON_FLAG },
  positionals: [1, 1],
  run: ({ values, positionals, config, out }) =>
    withCore(config, ({ services }) => {
      const { link, created } = services.links.createLink({ url: positionals[0], alias: values['alias'] });
      const shortUrl = services.links.shortUrl(link.code);
      out(values['json'] ? JSON.stringify({ ...presentLink(link, shortUrl), created }) + '\n' : `${shortUrl}\n`);
      return EXIT.ok;
    }),
};
