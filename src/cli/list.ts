import type { Link } from '../links/link.ts';
import { linkJson } from '../links/link-json.ts';
import { EXIT, JSON_FLAG, UsageError, table, type Command } from './command.ts';
import { AS_FLAG, actorFor } from './link-flags.ts';
import { withServices } from './wiring.ts';

const MAX_LIMIT = 100_000;
const SORTS = ['created', 'visits'] as const;
const REVIEWS = ['pending', 'rejected'] as const;
/** A title longer than this is cut in the table (--json has it whole). */
const TITLE_WIDTH = 30;

export const list: Command = {
  summary: 'List links, newest (or most visited) first.',
  usage:
    'list [--domain HOST] [--search TEXT] [--tag TAG] [--blocked] [--review pending|rejected] [--sort created|visits] [--limit N] [--deleted] [--json] [--as USER]',
  examples: ['kurz list --search example.com --limit 20'],
  flags: {
    as: AS_FLAG,
    search: { type: 'string', placeholder: 'TEXT', doc: 'only links whose code or URL contains TEXT' },
    tag: { type: 'string', placeholder: 'TAG', doc: 'only links tagged TAG' },
    sort: { type: 'string', placeholder: 'created|visits', doc: 'newest first (default), or most visited first' },
    limit: { type: 'string', placeholder: 'N', doc: `at most N links (default 50, up to ${MAX_LIMIT})` },
    deleted: { type: 'boolean', doc: 'include deleted links' },
    blocked: { type: 'boolean', doc: 'only the links the blocklist disabled' },
    review: { type: 'string', placeholder: 'pending|rejected', doc: "only the links waiting for an admin's review, or those rejected" },
    domain: { type: 'string', placeholder: 'HOST', doc: 'only links on this domain (see kurz domains list)' },
    json: JSON_FLAG,
  },
  positionals: [0, 0],
  run({ values, config, out }) {
    const limit = values['limit'] === undefined ? 50 : Number(values['limit']);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(values['limit'])}`);
    }
    const review = REVIEWS.find((r) => r === values['review']);
    if (values['review'] !== undefined && !review)
      throw new UsageError(`--review must be one of ${REVIEWS.join(', ')}, got ${JSON.stringify(values['review'])}`);
    const sort = SORTS.find((s) => s === (values['sort'] ?? 'created'));
    if (!sort) throw new UsageError(`--sort must be one of ${SORTS.join(', ')}, got ${JSON.stringify(values['sort'])}`);
    return withServices(
      config,
      async (services) => {
        const links = await services.links.listLinks(await actorFor(services, values['as']), {
          search: values['search'] as string | undefined,
          tags: (values['tag'] as string | undefined)?.trim() ? [(values['tag'] as string).trim()] : undefined,
          sort,
          limit,
          includeDeleted: values['deleted'] === true,
          blocked: values['blocked'] === true,
          review,
          domain: values['domain'] === undefined ? undefined : services.registry.idOf(values['domain']),
        });
        if (values['json']) out(JSON.stringify(links.map((l) => linkJson(l, services))) + '\n');
        else out(table(['CODE', 'VISITS', 'CREATED', 'TITLE', 'TAGS', 'URL'], links.map(row)));
        return EXIT.ok;
      },
      { existing: true },
    );
  },
};

function row(link: Link): string[] {
  const title = link.title ?? '';
  return [
    link.code,
    String(link.visitCount),
    link.createdAt.toISOString().slice(0, 10),
    title.length > TITLE_WIDTH ? `${title.slice(0, TITLE_WIDTH - 1)}…` : title,
    link.tags.join(','),
    `${state(link)}${link.url}`,
  ];
}

/** What keeps a link from redirecting, as the URL column's prefix. */
function state(link: Link): string {
  if (link.deletedAt !== null) return '(deleted) ';
  if (link.blocked) return '(blocked) ';
  if (link.review === 'pending') return '(in review) ';
  if (link.review === 'rejected') return '(rejected) ';
  return link.enabled ? '' : '(disabled) ';
}
