import type { AppError } from '../core/errors.ts';
import { RULE_LIMITS, type Variant } from '../rules/rule.ts';
import type { FormError, FormValues } from './forms.ts';

// An A/B split as form rows, pure: the link's edit form (`variant_url1`, `variant_weight1`, `variant_paused1`…)
// and the rule editor's split action (`split_url1`, `split_weight1`…). A row without a URL is no variant; the
// use case (rules/rule.ts's parseSplit) checks the rest and names `split[i]…`, which is mapped back to the row.

/** The field names of a form's rows: `prefix` `url`/`weight` (and `paused`, with `paused`), numbered from 1. */
export function splitFieldNames(prefix: string, rows: number, paused: boolean): string[] {
  return Array.from({ length: rows }, (_, i) => [
    `${prefix}_url${i + 1}`,
    `${prefix}_weight${i + 1}`,
    ...(paused ? [`${prefix}_paused${i + 1}`] : []),
  ]).flat();
}

/** The edit form's rows: every row the form can send. */
export const VARIANT_ROWS = RULE_LIMITS.variants;
/** The rule editor's rows: a few, as a rule's split is set once (the API takes up to 20). */
export const RULE_SPLIT_ROWS = 3;

/** A link's split as the edit form's values (`variant_*`). */
export function variantValues(split: readonly Variant[] | null): FormValues {
  const values: FormValues = {};
  (split ?? []).forEach((v, i) => {
    values[`variant_url${i + 1}`] = v.url;
    values[`variant_weight${i + 1}`] = String(v.weight);
    values[`variant_paused${i + 1}`] = v.paused ? 'true' : '';
  });
  return values;
}

/** The rows a form shows: those filled in, then empty ones up to `extra` more (at least `least`), at most `most`. */
export function splitRows(form: FormValues, prefix: string, { least, extra, most }: { least: number; extra: number; most: number }) {
  let filled = 0;
  for (let n = 1; n <= most; n++) if ((form[`${prefix}_url${n}`] ?? '') !== '' || (form[`${prefix}_weight${n}`] ?? '') !== '') filled = n;
  const shown = Math.min(most, Math.max(least, filled + extra));
  return Array.from({ length: shown }, (_, i) => {
    const n = i + 1;
    return {
      n,
      url: { name: `${prefix}_url${n}`, value: form[`${prefix}_url${n}`] ?? '' },
      weight: { name: `${prefix}_weight${n}`, value: form[`${prefix}_weight${n}`] ?? '' },
      paused: { name: `${prefix}_paused${n}`, checked: (form[`${prefix}_paused${n}`] ?? '') !== '' },
    };
  });
}

/** A split as a form gives it: its variants as the API takes them, and for each the row it came from. */
export interface FormSplit {
  variants: Array<{ url: string; weight: unknown; paused?: boolean }>;
  rows: number[];
}

/** The variants of the rows with a URL (a weight left empty counts as 1), in row order. */
export function splitOfForm(form: FormValues, prefix: string, rows: number): FormSplit {
  const split: FormSplit = { variants: [], rows: [] };
  for (let n = 1; n <= rows; n++) {
    const url = (form[`${prefix}_url${n}`] ?? '').trim();
    if (url === '') continue;
    const text = (form[`${prefix}_weight${n}`] ?? '').trim();
    const weight = text === '' ? 1 : /^-?\d{1,6}$/.test(text) ? Number(text) : text;
    const paused = (form[`${prefix}_paused${n}`] ?? '') !== '';
    split.variants.push({ url, weight, ...(paused ? { paused } : {}) });
    split.rows.push(n);
  }
  return split;
}

/**
 * An error about `split[i]…` (after `root`, e.g. `rules[2].`) beside the row's field it names, its message
 * starting "Variant N URL"/"Variant N weight"; undefined for any other error.
 */
export function splitFormError(error: AppError, split: FormSplit, prefix: string, root = ''): FormError | undefined {
  const field = error.field ?? '';
  const at = new RegExp(`^${root.replace(/[[\].]/g, '\\$&')}split(?:\\[(\\d+)\\]\\.(url|weight|paused))?$`).exec(field);
  if (at === null) return undefined;
  if (at[1] === undefined)
    return { field: `${prefix}_url${split.rows[0] ?? 1}`, message: `A/B split: ${error.message.replace(/^\S*split\S* /, '')}` };
  const row = split.rows[Number(at[1])] ?? 1;
  const part = at[2] === 'url' ? 'URL' : at[2] === 'weight' ? 'weight' : 'paused';
  const rest = error.message.startsWith(field) ? error.message.slice(field.length).replace(/^: (?:url )?/, ' ') : ` ${error.message}`;
  return {
    field: `${prefix}_${at[2] === 'url' ? 'url' : at[2] === 'weight' ? 'weight' : 'paused'}${row}`,
    message: `Variant ${row} ${part}${rest}`,
  };
}
