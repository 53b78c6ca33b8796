import { linkJson } from '../links/link-json.ts';
import { EXIT, JSON_FLAG, UsageError, table, type Command } from './command.ts';
import { withServices } from './wiring.ts';

const MAX_LIMIT = 100_000;

export const list: Command = {
  summary: 'List links, newest first.',
  usage: 'list [--search TEXT] [--limit N] [--deleted] [--json]',
  flags: {
    search: { type: 'string', placeholder: 'TEXT', doc: 'only links whose code or URL contains TEXT' },
    limit: { type: 'string', placeholder: 'N', doc: `at most N links (default 50, up to ${MAX_LIMIT})` },
    deleted: { type: 'boolean', doc: 'include deleted links' },
    json: JSON_FLAG,
  },
  positionals: [0, 0],
  run({ values, config, out }) {
    const limit = values['limit'] === undefined ? 50 : Number(values['limit']);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got "${values['limit']}"`);
    }
    return withServices(
      config,
      async (services) => {
        const links = await services.links.listLinks({
          search: values['search'] as string | undefined,
          limit,
          includeDeleted: values['deleted'] === true,
        });
        if (values['json']) {
          out(JSON.stringify(links.map((l) => linkJson(l, services.shortUrl(l.code)))) + '\n');
        } else {
          const rows = links.map((l) => [
            l.code,
            String(l.visitCount),
            l.createdAt.toISOString().slice(0, 10),
            l.deletedAt === null ? l.url : `(deleted) ${l.url}`,
          ]);
          out(table(['CODE', 'VISITS', 'CREATED', 'URL'], rows));
        }
        return EXIT.ok;
      },
      { existing: true },
    );
  },
};
