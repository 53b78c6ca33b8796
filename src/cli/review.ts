import { linkJson } from '../links/link-json.ts';
import type { WaitingLink } from '../links/review.ts';
import { EXIT, JSON_FLAG, UsageError, subcommandOf, table, type Command } from './command.ts';
import { actorFor, AS_FLAG, DOMAIN_FLAG } from './link-flags.ts';
import { withServices } from './wiring.ts';

export const review: Command = {
  summary: 'The review queue (reviewNewLinks): list the links waiting for an admin, approve or reject one.',
  usage: 'review [list] [--json] | approve CODE [--domain HOST] | reject CODE [--domain HOST] [--as USER]',
  subcommands: {
    list: { usage: 'review [list] [--json]', summary: 'the links waiting for review, newest first (the newest 100)' },
    approve: { usage: 'review approve CODE [--domain HOST] [--json]', summary: 'let a waiting link redirect' },
    reject: {
      usage: 'review reject CODE [--domain HOST] [--json]',
      summary: 'refuse a waiting link for good: it answers 410 and its code is retired',
    },
  },
  examples: ['kurz review', 'kurz review approve docs'],
  flags: {
    as: AS_FLAG,
    domain: DOMAIN_FLAG,
    json: JSON_FLAG,
  },
  positionals: [0, 2],
  run(input) {
    const { values, positionals, config, out } = input;
    const sub = positionals.length === 0 ? 'list' : subcommandOf('review', review, positionals);
    const usage = review.subcommands?.[sub]?.usage ?? '';
    const code = positionals[1];
    if (sub === 'list' && code !== undefined)
      throw new UsageError(`review list: unexpected argument ${JSON.stringify(code)}; usage: kurz ${usage}`);
    if (sub === 'list' && values['domain'] !== undefined) throw new UsageError(`--domain is for "review approve" and "review reject"`);
    if (sub !== 'list' && code === undefined) throw new UsageError(`review ${sub} needs the link's code; usage: kurz ${usage}`);
    return withServices(
      config,
      async (services) => {
        const actor = await actorFor(services, values['as']);
        if (sub === 'list') {
          const waiting = await services.review.waiting(actor);
          if (values['json']) out(JSON.stringify(waiting.map((w) => ({ ...linkJson(w.link, services), listed: w.listed ?? null }))) + '\n');
          else
            out(
              table(
                ['CODE', 'CREATED', 'CREATOR', 'BLOCKLIST', 'URL'],
                waiting.map((w) => row(w, services.ownerName(w.link.ownerId))),
              ),
            );
          return EXIT.ok;
        }
        const link = await services.review.decide(
          actor,
          code ?? '',
          sub === 'approve' ? 'approve' : 'reject',
          services.registry.idOf(values['domain']),
        );
        if (values['json']) out(JSON.stringify(linkJson(link, services)) + '\n');
        else
          out(
            sub === 'approve'
              ? `approved ${link.code}: it redirects now\n`
              : `rejected ${link.code}: it answers 410 and its code is retired\n`,
          );
        return EXIT.ok;
      },
      { existing: true },
    );
  },
};

function row({ link, listed }: WaitingLink, creator: string | null): string[] {
  const blocklist = listed ? `${listed.rule} (${listed.list})` : link.blocked ? `${link.blocked.rule} (${link.blocked.list})` : '-';
  return [link.code, link.createdAt.toISOString().slice(0, 16).replace('T', ' '), creator ?? '-', blocklist, link.url];
}
