import { auditJson, userFilter } from '../audit/audit-json.ts';
import { MAX_AUDIT_LIMIT, type AuditEntry } from '../audit/audit.ts';
import { AUDIT_ACTIONS, SUBJECT_KINDS, isAuditAction } from '../audit/entry.ts';
import { AppError } from '../core/errors.ts';
import { parseTime } from '../visits/stats-query.ts';
import { EXIT, JSON_FLAG, UsageError, parseAge, table, type Command } from './command.ts';
import { actorFor } from './link-flags.ts';
import { withServices } from './wiring.ts';

/** A detail longer than this is cut in the table (--json has it as stored). */
const DETAILS_WIDTH = 60;

export const audit: Command = {
  summary: 'Show the audit trail: who created, edited, moved or deleted which link, key, user or domain, newest first.',
  usage: 'audit [--user NAME] [--action A] [--link CODE] [--domain HOST] [--since DURATION|DATE] [--limit N] [--json]',
  examples: ['kurz audit --user alice --since 7d'],
  flags: {
    user: { type: 'string', placeholder: 'NAME', doc: "only what this user did (a name, or a user's id)" },
    action: {
      type: 'string',
      placeholder: 'A',
      doc: `one action (${AUDIT_ACTIONS.join(', ')}) or a kind (${SUBJECT_KINDS.join(', ')})`,
    },
    link: { type: 'string', placeholder: 'CODE', doc: "only this link's entries (on --domain)" },
    domain: { type: 'string', placeholder: 'HOST', doc: "the link's domain (default: the default domain)" },
    since: { type: 'string', placeholder: 'DURATION|DATE', doc: 'only entries since then: 7d, 12h, or 2026-11-01 (UTC)' },
    limit: { type: 'string', placeholder: 'N', doc: `at most N entries (default 50, up to ${MAX_AUDIT_LIMIT})` },
    json: JSON_FLAG,
  },
  positionals: [0, 0],
  run({ values, config, out }) {
    const text = (name: string) => values[name] as string | undefined;
    const limitText = text('limit');
    const limit = limitText === undefined ? 50 : Number(limitText);
    if (!/^\d+$/.test(limitText ?? '50') || limit < 1 || limit > MAX_AUDIT_LIMIT)
      throw new UsageError(`--limit must be a whole number from 1 to ${MAX_AUDIT_LIMIT}, got ${JSON.stringify(limitText)}`);
    const action = text('action');
    if (action !== undefined && !isAuditAction(action) && !(SUBJECT_KINDS as readonly string[]).includes(action.replace(/\.$/, '')))
      throw new UsageError(
        `--action must be an action (${AUDIT_ACTIONS.join(', ')}) or a kind (${SUBJECT_KINDS.join(', ')}), got ${JSON.stringify(action)}`,
      );
    if (text('domain') !== undefined && text('link') === undefined)
      throw new UsageError('--domain names the domain of --link; give --link too');
    const since = text('since');
    const from = since === undefined ? undefined : sinceOf(since);
    return withServices(
      config,
      async (services) => {
        const code = text('link');
        const subject =
          code === undefined
            ? undefined
            : {
                kind: 'link' as const,
                id: (await services.links.existingLink(await actorFor(services, undefined), code, services.registry.idOf(text('domain'))))
                  .id,
              };
        const { entries } = await services.audit.list({
          user: userFilter(text('user')),
          action,
          subject,
          from: from === undefined ? undefined : new Date(from(services.now())),
          limit,
        });
        if (values['json']) out(entries.map((e) => JSON.stringify(auditJson(e)) + '\n').join(''));
        else out(table(['AT', 'USER', 'VIA', 'ACTION', 'SUBJECT', 'DETAILS'], entries.map(row)));
        return EXIT.ok;
      },
      { existing: true },
    );
  },
};

/** --since: a date (or date and time) as is, or a duration back from now. Throws UsageError. */
function sinceOf(since: string): (now: number) => number {
  if (/^\d{4}-/.test(since)) {
    try {
      const at = parseTime(since, 'since').getTime();
      return () => at;
    } catch (err) {
      if (err instanceof AppError) throw new UsageError(`--${err.message}`);
      throw err;
    }
  }
  const age = parseAge('since', since);
  return (now) => now - age;
}

function row(entry: AuditEntry): string[] {
  const details = Object.entries(entry.details)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(' ');
  return [
    entry.at.toISOString().slice(0, 16).replace('T', ' '),
    entry.actorName,
    entry.via === 'key' ? `key ${entry.keyName ?? ''}` : entry.via,
    entry.action,
    `${entry.subject.kind} ${entry.subject.label}`,
    details.length > DETAILS_WIDTH ? `${details.slice(0, DETAILS_WIDTH - 1)}…` : details,
  ];
}
