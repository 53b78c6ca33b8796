import { EXIT, JSON_FLAG, UsageError, parseAge, table, type Command } from './command.ts';
import { withServices } from './wiring.ts';

export const prune: Command = {
  summary: 'Delete links nobody visited for a while (counting from creation if never visited). Try --dry-run first.',
  usage: 'prune --unvisited-for AGE [--dry-run] [--json]',
  flags: {
    'unvisited-for': { type: 'string', placeholder: 'AGE', doc: 'e.g. 180d, 12h, 30m or 10s' },
    'dry-run': { type: 'boolean', doc: 'only list what would be deleted' },
    json: JSON_FLAG,
  },
  positionals: [0, 0],
  run({ values, config, out }) {
    const raw = values['unvisited-for'];
    if (typeof raw !== 'string') throw new UsageError('prune needs --unvisited-for AGE, e.g. --unvisited-for 180d');
    const age = parseAge('unvisited-for', raw);
    const dryRun = values['dry-run'] === true;
    return withServices(
      config,
      async (services) => {
        const stale = await services.links.prune(age, dryRun);
        if (values['json']) {
          out(JSON.stringify({ dryRun, links: stale.map((l) => ({ code: l.code, url: l.url })) }) + '\n');
          return EXIT.ok;
        }
        const lastSeen = (at: Date | null) => (at === null ? 'never' : at.toISOString().slice(0, 10));
        if (stale.length > 0)
          out(
            table(
              ['CODE', 'LAST VISIT', 'URL'],
              stale.map((l) => [l.code, lastSeen(l.lastVisitAt), l.url]),
            ),
          );
        out(`${dryRun ? 'would delete' : 'deleted'} ${stale.length} links not visited for ${raw}\n`);
        return EXIT.ok;
      },
      { existing: true },
    );
  },
};
