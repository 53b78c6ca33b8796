import { presentLink } from '../links/present.ts';
import { EXIT, JSON_FLAG, withCore, type Command } from './command.ts';

export const stats: Command = {
  summary: "Show one link's visit count and last visit.",
  usage: 'stats CODE [--json]',
  flags: { json: JSON_FLAG },
  positionals: [1, 1],
  run: ({ values, positionals, config, out }) =>
    withCore(config, ({ services }) => {
      const code = positionals[0] ?? '';
      const link = services.links.existingLink(code);
      const shown = presentLink(link, services.links.shortUrl(link.code));
      if (values['json']) {
        out(JSON.stringify(shown) + '\n');
      } else {
        const rows: Array<[string, string]> = [
          ['Short URL', shown.shortUrl],
          ['Target', shown.url],
          ['Created', shown.createdAt ?? ''],
          ['Visits', String(shown.visitCount)],
          ['Last visit', shown.lastVisitAt ?? 'never'],
        ];
        if (shown.deletedAt) rows.push(['Deleted', shown.deletedAt]);
        out(rows.map(([k, v]) => `${k.padEnd(11)} ${v}`).join('\n') + '\n');
      }
      return EXIT.ok;
    }),
};
