import { linkJson } from '../links/link-json.ts';
import { EXIT, JSON_FLAG, type Command } from './command.ts';
import { withServices } from './wiring.ts';

export const stats: Command = {
  summary: "Show one link's visit count and last visit.",
  usage: 'stats CODE [--json]',
  flags: { json: JSON_FLAG },
  positionals: [1, 1],
  run: ({ values, positionals, config, out }) =>
    withServices(
      config,
      async (services) => {
        const code = positionals[0] ?? '';
        const link = await services.links.existingLink(code);
        const shown = linkJson(link, services);
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
      },
      { existing: true },
    ),
};
