import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { sendPage, type View } from '../../http/respond.ts';
import { linkRefusal } from '../../links/gate.ts';
import type { Link } from '../../links/link.ts';
import { OPTION_FIELDS } from '../../links/link-options.ts';
import { csrfToken, sessionOf } from '../session.ts';

// What every HTML page shares: the nav and CSRF token, form values and errors, and links as pages show them.

/** Where a page sits in the nav. */
export type Section = 'home' | 'links' | 'import' | 'keys' | 'settings';

/** An error as a form shows it: beside `field` when the form has that field, else above the form. */
export interface FormError {
  field: string | undefined;
  message: string;
}

/** The form's label of each field, which its error messages speak of. */
const LABELS: Record<string, string> = {
  url: 'Long URL',
  alias: 'Custom alias',
  title: 'Title',
  note: 'Note',
  tags: 'Tags',
  expiresAt: 'Expires (UTC)',
  maxVisits: 'Max visits',
  password: 'Password',
  redirectStatus: 'Redirect status',
  forwardQuery: 'Forward query string',
  enabled: 'Enabled',
  urls: 'URLs',
  name: 'Name',
};

/** The fields of the form that creates a link (and, but for `alias`, edits one); `removePassword` only edits. */
export const LINK_FIELDS = ['url', 'alias', ...OPTION_FIELDS, 'removePassword'] as const;

/** What was typed into a form, field by field, as text (a ticked checkbox is 'true'). */
export type FormValues = Record<string, string>;

/**
 * Sends `view` with `data`, the CSRF token of its forms (`csrf`) and, for a logged-in session, the nav
 * with `section` marked as the current page.
 */
export function showPage(
  ctx: Context,
  web: WebServices,
  status: number,
  view: View,
  data: { title: string; section?: Section; [key: string]: unknown },
): void {
  const nav = sessionOf(ctx) ? { current: data.section ?? null } : null;
  sendPage(ctx.res, status, web.render(view, { ...data, csrf: csrfToken(ctx, web), nav }));
}

/** A form's field as text: '' when absent or not a single value. */
export function textOf(form: Record<string, unknown>, name: string): string {
  const value = form[name];
  return typeof value === 'string' ? value : '';
}

/** The values of `names` in a submitted form, as text. */
export function formValues(form: Record<string, unknown>, names: readonly string[]): FormValues {
  return Object.fromEntries(names.map((name) => [name, textOf(form, name)]));
}

/**
 * The error a form is shown again with, beside what was typed: invalid input, a taken name, a rate limit.
 * Anything else (a deleted link, a failure of ours) is thrown on to the error page.
 */
export function formFailure(err: unknown): AppError {
  if (err instanceof AppError && (err.code === 'invalid' || err.code === 'conflict' || err.code === 'rate_limited')) return err;
  throw err;
}

/** "url is required" becomes "Long URL is required": the message names the field as the form labels it. */
export function formError(error: AppError, fields: readonly string[]): FormError {
  const name = error.field;
  const label = name ? LABELS[name] : undefined;
  const message = name && label && error.message.startsWith(`${name} `) ? label + error.message.slice(name.length) : error.message;
  return { field: name && fields.includes(name) ? name : undefined, message };
}

const DATETIME_LOCAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?$/;

/**
 * The API's fields (links/link-options.ts) of a submitted link form. Creating, an empty field is left out
 * (the link gets the default); editing, it clears the option. An empty password leaves it as it is unless
 * "remove password" is ticked. The expiry is a datetime-local value, read as UTC.
 * Throws AppError('invalid') for an expiry that is no date and time.
 */
export function linkInput(values: FormValues, editing: boolean): Record<string, unknown> & { url: string } {
  const get = (name: string): string => values[name] ?? '';
  const empty = editing ? null : undefined;
  const orEmpty = (name: string): string | null | undefined => (get(name).trim() === '' ? empty : get(name));
  const expires = get('expiresAt').trim();
  if (expires !== '' && !DATETIME_LOCAL.test(expires))
    throw new AppError('invalid', 'expiresAt must be a date and time like 2026-12-31T23:59', 'expiresAt');
  const visits = get('maxVisits').trim();
  const forward: Record<string, boolean | null | undefined> = { '': empty, yes: true, no: false };
  const password = get('password');
  return {
    url: get('url'),
    ...(editing ? {} : { alias: get('alias').trim() === '' ? undefined : get('alias').trim() }),
    title: orEmpty('title'),
    note: orEmpty('note'),
    tags: orEmpty('tags'),
    expiresAt: expires === '' ? empty : `${expires}Z`,
    maxVisits: visits === '' ? empty : /^\d{1,16}$/.test(visits) ? Number(visits) : visits,
    password: password !== '' ? password : editing && get('removePassword') !== '' ? null : undefined,
    redirectStatus: get('redirectStatus') === '' ? empty : Number(get('redirectStatus')),
    forwardQuery: get('forwardQuery') in forward ? forward[get('forwardQuery')] : get('forwardQuery'),
    enabled: get('enabled') !== '',
  };
}

/** A link's settings as its edit form shows them. */
export function linkValues(link: Link): FormValues {
  return {
    url: link.url,
    title: link.title ?? '',
    note: link.note ?? '',
    tags: link.tags.join(', '),
    expiresAt: link.expiresAt ? link.expiresAt.toISOString().slice(0, 16) : '',
    maxVisits: link.maxVisits === null ? '' : String(link.maxVisits),
    password: '',
    removePassword: '',
    redirectStatus: link.redirectStatus === null ? '' : String(link.redirectStatus),
    forwardQuery: link.forwardQuery === null ? '' : link.forwardQuery ? 'yes' : 'no',
    enabled: link.enabled ? 'true' : '',
  };
}

/** A time as the pages show it: `2026-01-15 12:00 UTC`. */
export function formatTime(date: Date): string {
  return `${date.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
}

/** What a link does now, in a word, and the badge's classes: redirecting, off, or off by the blocklist. */
export function linkState(link: Link, at: number): { label: string; classes: string } {
  if (link.deletedAt) return { label: 'deleted', classes: 'state-off' };
  const refusal = linkRefusal(link, at);
  if (refusal) return { label: refusal.replace('_', ' '), classes: refusal === 'blocked' ? 'state-off state-blocked' : 'state-off' };
  return { label: link.passwordHash ? 'password' : 'active', classes: 'state-active' };
}

/** A link as a row of a list. */
export function linkRow(link: Link, web: WebServices) {
  return {
    code: link.code,
    href: `/links/${encodeURIComponent(link.code)}`,
    shortUrl: web.shortUrl(link.code),
    url: link.url,
    title: link.title,
    tags: link.tags,
    visitCount: link.visitCount,
    created: formatTime(link.createdAt),
    createdIso: link.createdAt.toISOString(),
    state: linkState(link, web.now()),
  };
}

/** A link with everything its page shows. */
export function linkDetails(link: Link, web: WebServices) {
  const { redirectStatus, forwardQuery } = web.config;
  return {
    ...linkRow(link, web),
    note: link.note,
    expires: link.expiresAt ? formatTime(link.expiresAt) : 'never',
    visitsUsed: link.maxVisits === null ? `${link.claimedVisits} (no limit)` : `${link.claimedVisits} of ${link.maxVisits}`,
    password: link.passwordHash !== null,
    redirectStatus: link.redirectStatus === null ? `${redirectStatus} (instance default)` : String(link.redirectStatus),
    forwardQuery: link.forwardQuery === null ? `${forwardQuery ? 'yes' : 'no'} (instance default)` : link.forwardQuery ? 'yes' : 'no',
    enabled: link.enabled,
    blocked: link.blocked && {
      rule: link.blocked.rule,
      list: link.blocked.list,
      since: formatTime(link.blocked.at),
      sinceIso: link.blocked.at.toISOString(),
    },
    updated: formatTime(link.updatedAt),
    lastVisit: link.lastVisitAt ? formatTime(link.lastVisitAt) : null,
    lastVisitIso: link.lastVisitAt?.toISOString() ?? null,
    deleted: link.deletedAt ? formatTime(link.deletedAt) : null,
    qrSvg: `/api/v1/links/${encodeURIComponent(link.code)}/qr?format=svg`,
    qrPng: `/api/v1/links/${encodeURIComponent(link.code)}/qr?format=png&size=512`,
  };
}

/** The instance's redirect settings, which link forms offer as "instance default". */
export function redirectDefaults(web: WebServices) {
  return { redirectStatus: web.config.redirectStatus, forwardQuery: web.config.forwardQuery };
}
