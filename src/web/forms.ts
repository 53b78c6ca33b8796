import { AppError, asSentence } from '../core/errors.ts';
import type { Link } from '../links/link.ts';
import { OPTION_FIELDS } from '../links/link-options.ts';
import { UTM_FIELDS, withUtm } from '../links/utm.ts';

// What link and key forms share: field values as text, errors beside their fields, a link's form fields.

/** An error as a form shows it: beside `field` when the form has that field, else above the form. */
export interface FormError {
  field: string | undefined;
  message: string;
}

/** The form's label of each field, which its error messages speak of. */
const LABELS: Record<string, string> = {
  url: 'Long URL',
  alias: 'Custom alias',
  domain: 'Domain',
  host: 'Host',
  scheme: 'Scheme',
  notFoundRedirect: 'Not-found redirect',
  rootRedirect: 'Root redirect',
  access: 'Who may create links',
  users: 'Users',
  title: 'Title',
  note: 'Note',
  tags: 'Tags',
  startsAt: 'Starts (UTC)',
  expiresAt: 'Expires (UTC)',
  maxVisits: 'Max visits',
  password: 'Password',
  redirectStatus: 'Redirect status',
  forwardQuery: 'Forward query string',
  enabled: 'Enabled',
  crawlable: 'Crawlable',
  urls: 'URLs',
  source: 'From',
  file: 'File',
  map: 'Bitly columns',
  name: 'Name',
  email: 'E-mail',
  role: 'Role',
  owner: 'Owner',
  previewTitle: 'Preview title',
  previewDescription: 'Preview description',
  previewImage: 'Preview image URL',
  utm_source: 'Source (utm_source)',
  utm_medium: 'Medium (utm_medium)',
  utm_campaign: 'Campaign (utm_campaign)',
  utm_term: 'Term (utm_term)',
  utm_content: 'Content (utm_content)',
  expires: 'Expires',
};

/** The form field of each part of the social preview, by the API's field that an error names (links/preview.ts). */
const PREVIEW_FORM_FIELDS = {
  'preview.title': 'previewTitle',
  'preview.description': 'previewDescription',
  'preview.image': 'previewImage',
} as const;

/**
 * The fields of the form that creates a link (and, but for `alias`, edits one); `removePassword` only edits.
 * The UTM fields are added to `url` (formUrl). `domain` (a host) is the domain to create the link on, or to
 * move it to; empty: the default domain, or stay.
 */
export const LINK_FIELDS = [
  'url',
  ...UTM_FIELDS,
  'alias',
  'domain',
  ...OPTION_FIELDS.filter((field) => field !== 'preview'),
  ...Object.values(PREVIEW_FORM_FIELDS),
  'removePassword',
] as const;

/** Whether a link form's UTM part shows open: a value in it, or an error about one. */
export function utmOpen(values: FormValues, error: FormError | null): boolean {
  return UTM_FIELDS.some((field) => (values[field] ?? '').trim() !== '' || error?.field === field);
}

/**
 * The target a link form submits: its `url` with the UTM fields' values added (links/utm.ts).
 * Throws AppError('invalid', …, field) for a UTM value that cannot be used.
 */
export function formUrl(values: FormValues): string {
  return withUtm(values['url'] ?? '', Object.fromEntries(UTM_FIELDS.map((field) => [field, values[field] ?? ''])));
}

/**
 * The fields of a link form that the page shows: the domain select only where there is more than one
 * domain (an error about a domain sent all the same is then shown above the form).
 */
export function shownFields(web: { registry: { several(): boolean } }, fields: readonly string[]): readonly string[] {
  return web.registry.several() ? fields : fields.filter((f) => f !== 'domain');
}

/** What was typed into a form, field by field, as text (a ticked checkbox is 'true'). */
export type FormValues = Record<string, string>;

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
 * The error a form is shown again with, beside what was typed: invalid input, a taken name, a rate limit,
 * a field's value the actor may not use.
 * Anything else (a deleted link, a failure of ours) is thrown on to the error page.
 */
export function formFailure(err: unknown): AppError {
  if (err instanceof AppError && (err.code === 'invalid' || err.code === 'conflict' || err.code === 'rate_limited')) return err;
  // A field the actor may not set so (a domain not open to them) is theirs to change.
  if (err instanceof AppError && err.code === 'forbidden' && err.field !== undefined) return err;
  throw err;
}

/** "url is required" becomes "Long URL is required": the message names the field as the form labels it. */
export function formError(error: AppError, fields: readonly string[]): FormError {
  const given = error.field;
  const name = given !== undefined && given in PREVIEW_FORM_FIELDS ? PREVIEW_FORM_FIELDS[given as keyof typeof PREVIEW_FORM_FIELDS] : given;
  if (name !== given && given !== undefined && error.message.startsWith(`${given} `))
    return { field: fields.includes(name!) ? name : undefined, message: LABELS[name!] + error.message.slice(given.length) };
  const label = name ? LABELS[name] : undefined;
  const named = name && label && (error.message.startsWith(`${name} `) || error.message.startsWith(`${name}'s `));
  const message = named ? label + error.message.slice(name.length) : error.message;
  return { field: name && fields.includes(name) ? name : undefined, message: asSentence(message) };
}

/** The fields a bulk submission gives every one of its links. */
export const BATCH_FIELDS = ['tags', 'domain', 'expiresAt'] as const;

/** The options of a bulk submission for each of its lines (tags, domain, expiry), read as the single form reads them. */
export function batchInput(values: FormValues): Record<string, unknown> {
  const { tags, domain, expiresAt } = linkInput({ ...values, url: '' }, false);
  return { tags, domain, expiresAt };
}

const DATETIME_LOCAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?$/;

/**
 * The API's fields (links/link-options.ts) of a submitted link form. Creating, an empty field is left out
 * (the link gets the default); editing, it clears the option. An empty password leaves it as it is unless
 * "remove password" is ticked. The start and the expiry are datetime-local values, read as UTC. The UTM fields go
 * into `url`. Throws AppError('invalid') for a start or expiry that is no date and time, or a UTM value that cannot be used.
 */
export function linkInput(values: FormValues, editing: boolean): Record<string, unknown> & { url: string } {
  const get = (name: string): string => values[name] ?? '';
  const empty = editing ? null : undefined;
  const orEmpty = (name: string): string | null | undefined => (get(name).trim() === '' ? empty : get(name));
  const time = (name: 'startsAt' | 'expiresAt'): string | null | undefined => {
    const value = get(name).trim();
    if (value === '') return empty;
    if (!DATETIME_LOCAL.test(value)) throw new AppError('invalid', `${name} must be a date and time like 2026-12-31T23:59`, name);
    return `${value}Z`;
  };
  const [startsAt, expiresAt] = [time('startsAt'), time('expiresAt')];
  const visits = get('maxVisits').trim();
  const forward: Record<string, boolean | null | undefined> = { '': empty, yes: true, no: false };
  const password = get('password');
  return {
    url: formUrl(values),
    ...(editing ? {} : { alias: get('alias').trim() === '' ? undefined : get('alias').trim() }),
    domain: get('domain').trim() === '' ? undefined : get('domain').trim(),
    title: orEmpty('title'),
    note: orEmpty('note'),
    tags: orEmpty('tags'),
    startsAt,
    expiresAt,
    maxVisits: visits === '' ? empty : /^\d{1,16}$/.test(visits) ? Number(visits) : visits,
    password: password !== '' ? password : editing && get('removePassword') !== '' ? null : undefined,
    redirectStatus: get('redirectStatus') === '' ? empty : Number(get('redirectStatus')),
    forwardQuery: get('forwardQuery') in forward ? forward[get('forwardQuery')] : get('forwardQuery'),
    enabled: get('enabled') !== '',
    crawlable: get('crawlable') !== '',
    preview: previewInput(values, editing),
  };
}

/** The social preview a link form gives: its three fields; all empty is none (left out when creating, cleared when editing). */
function previewInput(values: FormValues, editing: boolean): Record<string, string> | null | undefined {
  const parts = {
    title: values['previewTitle'] ?? '',
    description: values['previewDescription'] ?? '',
    image: values['previewImage'] ?? '',
  };
  if (Object.values(parts).every((part) => part.trim() === '')) return editing ? null : undefined;
  return parts;
}

/** A link's settings as its edit form shows them; `host` is its domain's. */
export function linkValues(link: Link, host: string): FormValues {
  return {
    url: link.url,
    domain: host,
    title: link.title ?? '',
    note: link.note ?? '',
    tags: link.tags.join(', '),
    startsAt: link.startsAt ? link.startsAt.toISOString().slice(0, 16) : '',
    expiresAt: link.expiresAt ? link.expiresAt.toISOString().slice(0, 16) : '',
    maxVisits: link.maxVisits === null ? '' : String(link.maxVisits),
    password: '',
    removePassword: '',
    redirectStatus: link.redirectStatus === null ? '' : String(link.redirectStatus),
    forwardQuery: link.forwardQuery === null ? '' : link.forwardQuery ? 'yes' : 'no',
    enabled: link.enabled ? 'true' : '',
    crawlable: link.crawlable ? 'true' : '',
    previewTitle: link.preview?.title ?? '',
    previewDescription: link.preview?.description ?? '',
    previewImage: link.preview?.image ?? '',
  };
}
