import type { AppError } from '../core/errors.ts';
import { FIELD_LABELS, FORM_FIELDS, OPEN_IN_BROWSER, type PageSettings } from '../rules/page-settings.ts';
import type { FormError, FormValues } from './forms.ts';

// The link page's form for its pages before the redirect, pure: the settings as the form's values and back
// (as the API's `pages`, which setPages checks), and an error of setPages beside its field.

/** The form's fields: the notice's three, each form field's use (off, optional, required), a label for the free text, the consent box, open in browser. */
export const PAGE_FIELDS = [
  'noticeTitle',
  'noticeMessage',
  'noticeButton',
  'formName',
  'formEmail',
  'formPhone',
  'formText',
  'formTextLabel',
  'formConsent',
  'openInBrowser',
] as const;

const USE_FIELD = { name: 'formName', email: 'formEmail', phone: 'formPhone', text: 'formText' } as const;

/** The form's values for `pages`. */
export function pageValues(pages: PageSettings): FormValues {
  const values: FormValues = {
    noticeTitle: pages.notice?.title ?? '',
    noticeMessage: pages.notice?.message ?? '',
    noticeButton: pages.notice?.button ?? 'Continue',
    formTextLabel: '',
    formConsent: pages.form?.consent ?? '',
    openInBrowser: pages.openInBrowser,
  };
  for (const type of FORM_FIELDS) {
    const field = pages.form?.fields.find((f) => f.type === type);
    values[USE_FIELD[type]] = field === undefined ? 'off' : field.required ? 'required' : 'optional';
    if (type === 'text' && field?.label) values['formTextLabel'] = field.label;
  }
  return values;
}

/** The form's values as the API's `pages`: a notice when it has a message, a form when it asks anything. */
export function pagesOfForm(form: FormValues): unknown {
  const text = (name: string): string => (form[name] ?? '').trim();
  const fields = FORM_FIELDS.flatMap((type) => {
    const use = form[USE_FIELD[type]] ?? 'off';
    if (use === 'off') return [];
    const label = type === 'text' && text('formTextLabel') !== '' ? text('formTextLabel') : null;
    return [{ type, required: use === 'required', label }];
  });
  return {
    notice:
      text('noticeMessage') === ''
        ? null
        : { title: text('noticeTitle') || null, message: text('noticeMessage'), button: text('noticeButton') || 'Continue' },
    form: fields.length === 0 ? null : { fields, consent: text('formConsent') || null },
    openInBrowser: form['openInBrowser'] ?? 'auto',
  };
}

/** The select options of the form. */
export function pageFormOptions() {
  return {
    uses: [
      { value: 'off', label: 'Not asked' },
      { value: 'optional', label: 'Optional' },
      { value: 'required', label: 'Required' },
    ],
    labels: FIELD_LABELS,
    openInBrowser: OPEN_IN_BROWSER.map((value) => ({
      value,
      label:
        value === 'auto'
          ? 'Automatic: for in-app browsers when the target is a download or an app store'
          : value === 'on'
            ? 'Always for in-app browsers (WeChat, Instagram, …)'
            : 'Never (only where a rule shows it)',
    })),
  };
}

const FIELD_OF: Readonly<Record<string, [string, string]>> = {
  'pages.notice.title': ['noticeTitle', 'Title'],
  'pages.notice.message': ['noticeMessage', 'Message'],
  'pages.notice.button': ['noticeButton', 'Button'],
  'pages.notice': ['noticeMessage', 'Message'],
  'pages.form': ['formName', 'Form'],
  'pages.form.consent': ['formConsent', 'Consent box'],
  'pages.openInBrowser': ['openInBrowser', 'Open in browser'],
};

/** An error of setPages for the form: beside its field, its message starting with the field's label. */
export function pageFormError(error: AppError): FormError {
  const field = error.field ?? '';
  const mapped = FIELD_OF[field] ?? (field.startsWith('pages.form.fields') ? (['formTextLabel', 'Label'] as [string, string]) : undefined);
  if (mapped === undefined) return { field: undefined, message: error.message };
  const [name, label] = mapped;
  const rest = error.message.startsWith(field) ? error.message.slice(field.length) : ` ${error.message}`;
  return { field: name, message: `${label}${rest}` };
}
