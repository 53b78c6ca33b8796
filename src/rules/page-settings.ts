import * as z from 'zod';
import { AppError } from '../core/errors.ts';
import { textProblem } from '../links/text-rules.ts';
import type { PageKind, Rule } from './rule.ts';

// A link's pages before the redirect (issue 26): what its notice says, what its form asks, and whether an
// in-app browser is first shown how to open the link in a real browser. A rule's `page` action shows one;
// `openInBrowser` shows that one without a rule. Plain text everywhere: the views escape it.

export const PAGE_LIMITS = { title: 100, message: 2000, button: 40, consent: 500, label: 60 } as const;
/** The most an answer to each field may hold, in characters; a longer one is refused (400). */
export const ANSWER_LIMITS = { name: 200, email: 254, phone: 40, text: 2000 } as const;

export const FORM_FIELDS = ['name', 'email', 'phone', 'text'] as const;
export type FormFieldType = (typeof FORM_FIELDS)[number];
export const OPEN_IN_BROWSER = ['auto', 'on', 'off'] as const;
export type OpenInBrowser = (typeof OPEN_IN_BROWSER)[number];

export interface FormField {
  readonly type: FormFieldType;
  readonly required: boolean;
  /** The label shown; null for the type's own (Name, E-mail, Phone, Message). */
  readonly label: string | null;
}

export interface PageSettings {
  readonly notice: { readonly title: string | null; readonly message: string; readonly button: string } | null;
  readonly form: { readonly fields: readonly FormField[]; readonly consent: string | null } | null;
  /** `auto`: on for in-app browsers when the link's target is a download or an app store (`looksLikeDownload`). */
  readonly openInBrowser: OpenInBrowser;
}

export const NO_PAGES: PageSettings = Object.freeze({ notice: null, form: null, openInBrowser: 'auto' });

/** The field labels a form shows when it names none. */
export const FIELD_LABELS: Readonly<Record<FormFieldType, string>> = { name: 'Name', email: 'E-mail', phone: 'Phone', text: 'Message' };

const text = (max: number) => z.string({ error: 'must be a string' }).max(max, { error: `must be at most ${max} characters` });

const NOTICE = z.strictObject(
  {
    title: text(PAGE_LIMITS.title).nullable().optional(),
    message: text(PAGE_LIMITS.message).min(1, { error: 'must not be empty' }),
    button: text(PAGE_LIMITS.button).min(1, { error: 'must not be empty' }),
  },
  { error: 'must be an object {title?, message, button} or null' },
);

const FIELD = z.strictObject(
  {
    type: z.enum(FORM_FIELDS, { error: `must be one of ${FORM_FIELDS.join(', ')}` }),
    required: z.boolean({ error: 'must be true or false' }).optional(),
    label: text(PAGE_LIMITS.label).nullable().optional(),
  },
  { error: 'must be an object {type, required?, label?}' },
);

const FORM = z.strictObject(
  {
    fields: z
      .array(FIELD, { error: 'must be a list of fields' })
      .min(1, { error: 'must have at least one field' })
      .max(FORM_FIELDS.length, { error: `must have at most ${FORM_FIELDS.length} fields` }),
    consent: text(PAGE_LIMITS.consent).nullable().optional(),
  },
  { error: 'must be an object {fields, consent?} or null' },
);

export const PAGES_SCHEMA = z.strictObject(
  {
    notice: NOTICE.nullable().optional(),
    form: FORM.nullable().optional(),
    openInBrowser: z.enum(OPEN_IN_BROWSER, { error: `must be one of ${OPEN_IN_BROWSER.join(', ')}` }).optional(),
  },
  { error: 'must be an object {notice, form, openInBrowser} or null' },
);

/** The JSON schema of `pages` for the OpenAPI document. */
export const PAGES_JSON_SCHEMA = PAGES_SCHEMA.nullable().describe(
  "The pages before the redirect: a notice ({title?, message, button}), a form ({fields: [{type: name|email|phone|text, required?, label?}], consent?}) shown by a rule's page action, and openInBrowser (auto: on for in-app browsers when the target is a download or an app store); null clears them",
);

/**
 * A link's page settings from the API's `pages` (unknown input; null clears them). Throws AppError('invalid')
 * naming the field at fault, e.g. `pages.form.fields[1].type`.
 */
export function parsePages(input: unknown): PageSettings {
  if (input === null) return NO_PAGES;
  const result = PAGES_SCHEMA.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    let field = 'pages' + (issue?.path ?? []).map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
    let message = issue?.message ?? 'is invalid';
    if (issue?.code === 'unrecognized_keys') {
      field += `.${issue.keys[0] ?? ''}`;
      message = 'is not a known field';
    }
    throw new AppError('invalid', `${field} ${message}`, field);
  }
  const { notice, form, openInBrowser } = result.data;
  const checked = (value: string | null | undefined, field: string, lines: boolean): string | null => {
    if (value === undefined || value === null || value.trim() === '') return null;
    const problem = textProblem(value, lines);
    if (problem !== undefined) throw new AppError('invalid', `pages.${field} ${problem}`, `pages.${field}`);
    return value.trim();
  };
  const types = new Set<string>();
  const fields = (form?.fields ?? []).map((f, i): FormField => {
    if (types.has(f.type))
      throw new AppError('invalid', `pages.form.fields[${i}].type ${f.type} is asked twice`, `pages.form.fields[${i}].type`);
    types.add(f.type);
    return { type: f.type, required: f.required ?? false, label: checked(f.label, `form.fields[${i}].label`, false) };
  });
  return {
    notice: notice
      ? {
          title: checked(notice.title, 'notice.title', false),
          message: checked(notice.message, 'notice.message', true) ?? mustNotBeBlank('notice.message'),
          button: checked(notice.button, 'notice.button', false) ?? mustNotBeBlank('notice.button'),
        }
      : null,
    form: form ? { fields, consent: checked(form.consent, 'form.consent', true) } : null,
    openInBrowser: openInBrowser ?? 'auto',
  };
}

function mustNotBeBlank(field: string): never {
  throw new AppError('invalid', `pages.${field} must not be blank`, `pages.${field}`);
}

/** The stored text of a link's page settings; null when they are the defaults (no notice, no form, auto). */
export function storedPages(pages: PageSettings): string | null {
  return pages.notice === null && pages.form === null && pages.openInBrowser === 'auto' ? null : JSON.stringify(pages);
}

/** A link's page settings from their stored text (validated when set); text that cannot be read is the defaults, and `onUnreadable` is told. */
export function pagesFromStored(text: string | null, onUnreadable: (problem: string) => void): PageSettings {
  if (text === null) return NO_PAGES;
  try {
    return parsePages(JSON.parse(text));
  } catch (err) {
    onUnreadable(err instanceof Error ? err.message : String(err));
    return NO_PAGES;
  }
}

/**
 * The first page action of `rules` whose page these settings lack (a notice or form rule without its text),
 * as the field to name: `rules[i].page`; undefined when every page rule has what it shows.
 */
export function missingPage(rules: readonly Rule[], pages: PageSettings): { field: string; page: PageKind } | undefined {
  for (const [i, rule] of rules.entries()) {
    const action = rule.action;
    if (action.kind !== 'page') continue;
    if ((action.page === 'notice' && pages.notice === null) || (action.page === 'form' && pages.form === null))
      return { field: `rules[${i}].page`, page: action.page };
  }
  return undefined;
}

/** File extensions that make a target a download (an app package, an installer, an archive, a document). */
const DOWNLOAD_EXTENSIONS =
  /\.(?:apk|aab|xapk|ipa|dmg|pkg|exe|msi|msix|appx|deb|rpm|appimage|zip|rar|7z|tar|gz|tgz|bz2|xz|pdf|epub|mobi)$/i;
/** App stores' hosts (and their subdomains). */
const APP_STORES = [
  'apps.apple.com',
  'itunes.apple.com',
  'testflight.apple.com',
  'play.google.com',
  'appgallery.huawei.com',
  'galaxystore.samsung.com',
  'apps.samsung.com',
  'www.amazon.com/gp/mas',
  'f-droid.org',
  'apps.microsoft.com',
  'microsoft.com/store',
];

/** What every download or app store target holds somewhere (a superset of the checks below). */
const MAYBE_DOWNLOAD =
  /^(?:itms-apps|market):|\.(?:apk|aab|xapk|ipa|dmg|pkg|exe|msi|msix|appx|deb|rpm|appimage|zip|rar|7z|tar|gz|tgz|bz2|xz|pdf|epub|mobi)\b|apple\.com|play\.google\.com|huawei\.com|samsung\.com|amazon\.com|f-droid\.org|microsoft\.com/i;

/**
 * Whether a target is a download or an app store, where an in-app browser most often fails: its path ends in
 * a download's extension (DOWNLOAD_EXTENSIONS), its scheme is an app store's (`itms-apps:`, `market:`), or its
 * host and path start as an app store's (APP_STORES). The `auto` of openInBrowser.
 */
export function looksLikeDownload(url: string): boolean {
  // Most targets are neither: refused without parsing, as every link's target load asks (rows.ts toTarget).
  if (!MAYBE_DOWNLOAD.test(url)) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'itms-apps:' || parsed.protocol === 'market:') return true;
  if (DOWNLOAD_EXTENSIONS.test(parsed.pathname)) return true;
  const place = (parsed.hostname + parsed.pathname).toLowerCase();
  return APP_STORES.some((store) => place === store || place.startsWith(store + '/') || place.endsWith('.' + store.split('/')[0]!));
}

/** Whether visitors in in-app browsers get the open-in-browser page without a rule saying so. */
export function opensInBrowser(pages: PageSettings, url: string): boolean {
  return pages.openInBrowser === 'on' || (pages.openInBrowser === 'auto' && looksLikeDownload(url));
}

/** A visitor's answers: each field's text ('' for none) and whether they gave their consent. */
export interface FormAnswers {
  readonly values: Readonly<Partial<Record<FormFieldType, string>>>;
  readonly consent: boolean;
}

/** Per field (`name`, `email`, `phone`, `text`, `consent`), what is wrong with an answer. */
export type AnswerProblems = Partial<Record<FormFieldType | 'consent', string>>;

const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;
const PHONE = /^\+?[0-9 ()./-]{4,}$/;

/**
 * Checks a form's answers (the posted fields, unknown values) against the link's form: required ones given,
 * each within its limit, an e-mail address and a phone number that look like one, the consent box ticked
 * when the form has one. Answers over their limit are an AppError('invalid') (a 400: hostile input);
 * the rest come back as problems to show on the form, or the answers to store.
 */
export function checkAnswers(
  form: NonNullable<PageSettings['form']>,
  posted: Readonly<Record<string, unknown>>,
): { answers: FormAnswers; problems: AnswerProblems } {
  const values: Partial<Record<FormFieldType, string>> = {};
  const problems: AnswerProblems = {};
  for (const field of form.fields) {
    const raw = posted[field.type];
    if (raw !== undefined && typeof raw !== 'string') throw new AppError('invalid', `${field.type} must be text`, field.type);
    const value = (raw ?? '').trim();
    if (value.length > ANSWER_LIMITS[field.type])
      throw new AppError('invalid', `${field.type} is longer than ${ANSWER_LIMITS[field.type]} characters`, field.type);
    const problem = textProblem(value, field.type === 'text');
    if (problem !== undefined) throw new AppError('invalid', `${field.type} ${problem}`, field.type);
    values[field.type] = value;
    const label = field.label ?? FIELD_LABELS[field.type];
    if (value === '') {
      if (field.required) problems[field.type] = `${label} is required`;
    } else if (field.type === 'email' && !EMAIL.test(value)) problems.email = `${label} must be an e-mail address such as ana@example.org`;
    else if (field.type === 'phone' && !PHONE.test(value)) problems.phone = `${label} must be a phone number such as +49 30 1234567`;
  }
  const consent = posted['consent'] === 'yes' || posted['consent'] === 'on' || posted['consent'] === true;
  if (form.consent !== null && !consent) problems.consent = 'Tick the box to agree before you go on';
  return { answers: { values, consent: form.consent !== null && consent }, problems };
}
