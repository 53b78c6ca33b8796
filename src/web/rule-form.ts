import { AppError } from '../core/errors.ts';
import { COUNTRY_CODES } from '../rules/countries.ts';
import {
  BROWSERS,
  CONDITION_LABELS,
  CONDITION_TYPES,
  conditionsInWords,
  DEVICES,
  IN_APP_VALUES,
  OPERATING_SYSTEMS,
  PAGES,
  type ConditionType,
  type RuleJson,
} from '../rules/rule.ts';
import { textOf, type FormError, type FormValues } from './forms.ts';
import { RULE_SPLIT_ROWS, splitFieldNames, splitFormError, splitOfForm, splitRows } from './split-form.ts';

// The rule editor of the link page, pure: a rule as a readable line, the form's fields as a rule, and each
// button's change to the list. The handler reads the list (`rulesOf`), changes it here and sets it (`setRules`).

/** The fields of the "Add a rule" form: two conditions (the second optional) and the action. */
export const RULE_FIELDS = [
  'type1',
  'key1',
  'value1',
  'type2',
  'key2',
  'value2',
  'action',
  'target',
  ...splitFieldNames('split', RULE_SPLIT_ROWS, false),
] as const;

const QUERY_TYPES: ReadonlySet<string> = new Set(['query-param', 'any-value-query-param', 'valueless-query-param', 'query-param-absent']);
/** The types that take no value, only a key. */
const KEY_ONLY: ReadonlySet<string> = new Set(['any-value-query-param', 'valueless-query-param', 'query-param-absent']);

/** The closed lists of values, offered in a <datalist> beside the value field (each value labelled with its type). */
const CLOSED_VALUES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['device', DEVICES],
  ['operating system', OPERATING_SYSTEMS],
  ['browser', BROWSERS],
  ['in-app browser', IN_APP_VALUES],
  ['country', [...COUNTRY_CODES].sort()],
];

/** The form's options: condition types, the values of the closed lists, the actions offered. */
export function ruleFormOptions() {
  const types = CONDITION_TYPES.map((type) => ({ value: type, label: CONDITION_LABELS[type] }));
  return {
    types: [...types, { value: '', label: '(every visitor)' }],
    secondTypes: [{ value: '', label: '(none)' }, ...types],
    values: CLOSED_VALUES.flatMap(([label, values]) => values.map((value) => ({ value, label }))),
    actions: [
      { value: 'target', label: 'Redirect to the target URL' },
      { value: 'split', label: 'A/B split: the variants below' },
      { value: '451', label: 'Refuse: 451 not available in your region' },
      { value: '403', label: 'Refuse: 403 not available to you' },
      { value: 'page-notice', label: 'Show the notice first' },
      { value: 'page-form', label: 'Show the form first' },
      { value: 'page-open-in-browser', label: 'Show how to open it in a browser first' },
    ],
  };
}

/** The form's values before anything is typed. */
export const EMPTY_RULE_FORM: FormValues = {
  type1: 'language',
  key1: '',
  value1: '',
  type2: '',
  key2: '',
  value2: '',
  action: 'target',
  target: '',
};

/** The rule editor's split rows, as typed. */
export function ruleSplitRows(form: FormValues) {
  return splitRows(form, 'split', { least: RULE_SPLIT_ROWS, extra: 0, most: RULE_SPLIT_ROWS });
}

/** A rule as the link page lists it: its conditions in words ("language is de and device is mobile"), its action. */
export function ruleLine(rule: RuleJson): { conditions: string; target: string | null; action: string } {
  const action =
    rule.target !== undefined
      ? ''
      : rule.refuse !== undefined
        ? `refuse ${rule.refuse}`
        : rule.split !== undefined
          ? `split: ${rule.split.map((v) => `${v.url} ×${v.weight}${v.paused ? ' (paused)' : ''}`).join(', ')}`
          : `page ${rule.page ?? ''}`;
  return {
    conditions: rule.conditions.length === 0 ? 'for every visitor' : `if ${conditionsInWords(rule.conditions)}`,
    target: rule.target ?? null,
    action,
  };
}

/** The rule the "Add a rule" form describes, as the API takes it (setRules checks every value). */
export function ruleOfForm(form: FormValues): RuleJson {
  const conditions = [1, 2].flatMap((n) => {
    const type = form[`type${n}`] ?? '';
    // No first condition: the rule is for every visitor (and a second one alone is the first).
    if (type === '') return [];
    const key = (form[`key${n}`] ?? '').trim();
    const value = (form[`value${n}`] ?? '').trim();
    return [
      {
        type: type as ConditionType,
        matchKey: QUERY_TYPES.has(type) ? key || null : null,
        matchValue: KEY_ONLY.has(type) ? null : value || null,
      },
    ];
  });
  const action = form['action'];
  if (action === '451' || action === '403') return { conditions, refuse: Number(action) as 451 | 403 };
  if (action === 'split') return { conditions, split: splitOfForm(form, 'split', RULE_SPLIT_ROWS).variants as RuleJson['split'] };
  const page = PAGES.find((kind) => action === `page-${kind}`);
  if (page !== undefined) return { conditions, page };
  if (action !== 'target')
    throw new AppError('invalid', 'action must be a target URL, a split, a refusal (451 or 403) or a page', 'action');
  return { conditions, target: (form['target'] ?? '').trim() };
}

/**
 * The list after the button `op` (add, remove, up, down; `index` the rule's place, from 0): `add` appends
 * `added`. Throws AppError('invalid') for an unknown op or a place the list has not (changed in the meantime).
 */
export function changedRules(rules: readonly RuleJson[], form: Record<string, unknown>, added: () => RuleJson): RuleJson[] {
  const op = textOf(form, 'op');
  if (op === 'add') return [...rules, added()];
  const text = textOf(form, 'index');
  const index = /^\d{1,3}$/.test(text) ? Number(text) : -1;
  if (!['remove', 'up', 'down'].includes(op)) throw new AppError('invalid', 'op must be add, remove, up or down', 'op');
  if (index < 0 || index >= rules.length) {
    throw new AppError('invalid', `there is no rule ${index + 1} (the list may have changed: reload the page)`, 'index');
  }
  const next = [...rules];
  if (op === 'remove') next.splice(index, 1);
  const other = op === 'up' ? index - 1 : op === 'down' ? index + 1 : -1;
  if (other >= 0 && other < next.length) [next[index], next[other]] = [next[other]!, next[index]!];
  return next;
}

/** What the form's field names are for the condition fields of the API's errors. */
const FIELD_OF: Readonly<Record<string, [string, string]>> = {
  'conditions[0].type': ['type1', 'Condition'],
  'conditions[0].matchKey': ['key1', 'Query parameter'],
  'conditions[0].matchValue': ['value1', 'Value'],
  'conditions[1].type': ['type2', 'Second condition'],
  'conditions[1].matchKey': ['key2', 'Query parameter'],
  'conditions[1].matchValue': ['value2', 'Value'],
  target: ['target', 'Target URL'],
  page: ['action', 'Then'],
};

/**
 * An error of setRules for the form that added rule `index`: beside its field, its message starting with the
 * field's label rather than `rules[index].conditions[0].matchValue`; any other error above the form.
 */
export function ruleFormError(error: AppError, index: number, form: FormValues = {}): FormError {
  const prefix = `rules[${index}].`;
  const split = splitFormError(error, splitOfForm(form, 'split', RULE_SPLIT_ROWS), 'split', prefix);
  if (split !== undefined) return split;
  const field = error.field ?? '';
  const mapped = field.startsWith(prefix) ? FIELD_OF[field.slice(prefix.length)] : field === 'action' ? ['action', 'Action'] : undefined;
  if (mapped === undefined) return { field: undefined, message: error.message };
  const [name, label] = mapped;
  // A target's message is the URL rules' ("rules[1].target: url must use http or https"): one label is enough.
  const rest = error.message.startsWith(field) ? error.message.slice(field.length).replace(/^: (?:url )?/, ' ') : ` ${error.message}`;
  return { field: name, message: `${label}${rest}` };
}
