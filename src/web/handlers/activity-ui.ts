import type { Context } from 'koa';
import { userFilter } from '../../audit/audit-json.ts';
import { parseAuditQuery } from '../../audit/audit-query.ts';
import type { AuditEntry, AuditPage } from '../../audit/audit.ts';
import { AUDIT_ACTIONS, SUBJECT_KINDS } from '../../audit/entry.ts';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import type { DomainRegistry } from '../../domains/registry.ts';
import { domainQuery } from '../domain-param.ts';
import { formatTime } from '../presenters.ts';
import { showPage } from './pages.ts';

/** Entries on one page of /activity; a link page's History shows this many of its newest. */
const PAGE_SIZE = 50;
export const HISTORY_SIZE = 10;

/** The filter form's choices: every kind, then every action. */
const ACTION_OPTIONS = [
  { value: '', label: 'All actions' },
  ...SUBJECT_KINDS.map((kind) => ({ value: kind, label: `Any ${kind} action` })),
  ...AUDIT_ACTIONS.map((action) => ({ value: action, label: action })),
];

/** An entry as the pages show it; a link subject links to its link page while its label names a known domain. */
export function activityRow(entry: AuditEntry, registry: DomainRegistry) {
  return {
    at: formatTime(entry.at),
    iso: entry.at.toISOString(),
    actor: entry.actorName,
    via:
      entry.via === 'key'
        ? `API key ${entry.keyName ?? ''}`
        : entry.via === 'cli'
          ? 'CLI'
          : entry.via === 'password'
            ? 'password'
            : 'session',
    client: entry.client,
    action: entry.action,
    kind: entry.subject.kind,
    label: entry.subject.label,
    href: entry.subject.kind === 'link' ? linkHref(entry.subject.label, registry) : null,
    details: Object.entries(entry.details).map(([key, value]) => `${key}: ${String(value)}`),
  };
}

/** The link page of a link subject labelled `host/code` (its short URL without the scheme); null when the host is gone. */
function linkHref(label: string, registry: DomainRegistry): string | null {
  const slash = label.indexOf('/');
  if (slash < 1) return null;
  const domain = registry.idOfHost(label.slice(0, slash));
  if (domain === undefined) return null;
  const query = domainQuery(domain, registry);
  return `/links/${encodeURIComponent(label.slice(slash + 1))}${query ? `?${query}` : ''}`;
}

/** /activity: the audit trail for admins, filtered by a GET form, in pages. */
export function activityUiHandlers(web: WebServices) {
  return {
    async showActivity(ctx: Context): Promise<void> {
      const raw = (name: string) => (typeof ctx.query[name] === 'string' ? (ctx.query[name] as string) : '');
      const filters = { user: raw('user'), action: raw('action'), from: raw('from'), to: raw('to') };
      let page: AuditPage = { entries: [], next: null };
      let error: { field: string | undefined; message: string } | null = null;
      try {
        const { user, link: _link, domain: _domain, ...rest } = parseAuditQuery({ ...ctx.query, limit: undefined, link: undefined });
        page = await web.audit.list({ ...rest, user: userFilter(user), limit: PAGE_SIZE });
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'invalid') throw err;
        error = { field: err.field, message: err.message };
      }
      const query = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== ''));
      const href = (cursor: string | null) => {
        const q = new URLSearchParams(query);
        if (cursor) q.set('cursor', cursor);
        return `/activity${q.size > 0 ? `?${q.toString()}` : ''}`;
      };
      showPage(ctx, web, error ? 400 : 200, 'activity', {
        title: 'Activity',
        section: 'activity',
        filters,
        actions: ACTION_OPTIONS,
        entries: page.entries.map((e) => activityRow(e, web.registry)),
        nextHref: page.next ? href(page.next) : null,
        firstHref: raw('cursor') ? href(null) : null,
        error,
      });
    },
  };
}
