import { isAdmin } from '../auth/actor.ts';
import { EXIT, JSON_FLAG, parseAge, table, UsageError, type Command } from './command.ts';
import { AS_FLAG, actorFor } from './link-flags.ts';
import { withServices } from './wiring.ts';

export const prune: Command = {
  summary:
    'Delete raw visits older than visitRetentionDays (the stats keep their rollups), audit entries older than auditRetentionDays and, with --unvisited-for, links nobody visited for a while (counting from creation if never visited). Try --dry-run first.',
  usage: 'prune [--unvisited-for AGE] [--dry-run] [--json] [--as USER]',
  examples: ['kurz prune --unvisited-for 180d --dry-run'],
  flags: {
    as: AS_FLAG,
    'unvisited-for': { type: 'string', placeholder: 'AGE', doc: 'also delete links not visited for this long, e.g. 180d, 12h, 30m or 10s' },
    'dry-run': { type: 'boolean', doc: 'only say what would be deleted' },
    json: JSON_FLAG,
  },
  positionals: [0, 0],
  run({ values, config, out }) {
    const raw = values['unvisited-for'];
    const age = typeof raw === 'string' ? parseAge('unvisited-for', raw) : undefined;
    const dryRun = values['dry-run'] === true;
    return withServices(
      config,
      async (services) => {
        // Pruning deletes every user's links and visits: an admin's to do.
        const actor = await actorFor(services, values['as']);
        if (!isAdmin(actor)) throw new UsageError(`prune is an admin's: it deletes every user's visits (${actor.name} is a member)`);
        const stale = age === undefined ? [] : await services.links.prune(actor, age, dryRun);
        const visits = dryRun ? await services.recorder.expired() : await services.recorder.prune();
        const audit = dryRun ? await services.audit.expired() : await services.audit.prune();
        if (values['json']) {
          out(JSON.stringify({ dryRun, visits, audit, links: stale.map((l) => ({ code: l.code, url: l.url })) }) + '\n');
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
        const verb = dryRun ? 'would delete' : 'deleted';
        if (age !== undefined) out(`${verb} ${stale.length} links not visited for ${String(raw)}\n`);
        out(`${verb} ${visits} raw visits older than ${config.visitRetentionDays} days\n`);
        if (audit > 0) out(`${verb} ${audit} audit entries older than ${config.auditRetentionDays} days\n`);
        return EXIT.ok;
      },
      { existing: true },
    );
  },
};
