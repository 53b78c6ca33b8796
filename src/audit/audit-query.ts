import * as z from 'zod';
import { AppError } from '../core/errors.ts';
import type { QuerySchema } from '../core/request-schema.ts';
import { DOMAIN_PARAM, single } from '../links/list-query.ts';
import { parseTime } from '../visits/stats-query.ts';
import { DEFAULT_AUDIT_LIMIT, MAX_AUDIT_LIMIT, type AuditFilter } from './audit.ts';
import { AUDIT_ACTIONS, SUBJECT_KINDS } from './entry.ts';

/** GET /api/v1/audit's query as read: the filter, but for the link, which the caller finds by code and domain. */
export interface AuditParams extends Omit<AuditFilter, 'subject' | 'user'> {
  /** A user's name, or id (digits). */
  user?: string | undefined;
  /** A link's code (on `domain`, the default domain when absent). */
  link?: string | undefined;
  domain?: string | undefined;
}

/** The query of GET /api/v1/audit (and, without user, action and link, of a link's audit). Throws AppError('invalid') naming the parameter. */
export function parseAuditQuery(params: Record<string, unknown>): AuditParams {
  const limitText = single(params, 'limit');
  if (limitText !== undefined && !/^\d{1,4}$/.test(limitText))
    throw new AppError('invalid', `limit must be a whole number from 1 to ${MAX_AUDIT_LIMIT}`, 'limit');
  const from = single(params, 'from');
  const to = single(params, 'to');
  return {
    user: single(params, 'user'),
    action: single(params, 'action'),
    link: single(params, 'link'),
    domain: single(params, 'domain'),
    from: from === undefined ? undefined : parseTime(from, 'from'),
    to: to === undefined ? undefined : parseTime(to, 'to'),
    limit: limitText === undefined ? undefined : Number(limitText),
    cursor: single(params, 'cursor'),
  };
}

const PAGE_PARAMS = {
  from: z.string().describe('Entries at or after this time (ISO 8601: a date, or a date and time)').optional(),
  to: z.string().describe('Entries before this time (ISO 8601)').optional(),
  limit: z.int().min(1).max(MAX_AUDIT_LIMIT).default(DEFAULT_AUDIT_LIMIT).describe('Entries per page'),
  cursor: z.string().describe("The previous page's nextCursor").optional(),
};

export const AUDIT_QUERY: QuerySchema<AuditParams> = {
  params: z.object({
    user: z.string().describe("The user who acted: a user's name, or their id").optional(),
    action: z
      .string()
      .describe(`One action (${AUDIT_ACTIONS.join(', ')}) or a kind of actions (${SUBJECT_KINDS.join(', ')})`)
      .optional(),
    link: z.string().describe("A link's code: that link's entries (on `domain`)").optional(),
    domain: DOMAIN_PARAM,
    ...PAGE_PARAMS,
  }),
  parse: parseAuditQuery,
};

/** GET /api/v1/links/CODE/audit's query: a time range and a page (the domain is withDomain's). */
export const LINK_AUDIT_QUERY: QuerySchema<AuditParams> = {
  params: z.object(PAGE_PARAMS),
  parse: parseAuditQuery,
};
