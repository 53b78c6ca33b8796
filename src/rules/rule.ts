import { isIP } from 'node:net';
import * as z from 'zod';
import { AppError } from '../core/errors.ts';
import { textProblem } from '../links/text-rules.ts';
import { timeOf } from '../links/times.ts';
import { normaliseUrl, type UrlRules } from '../links/url-rules.ts';
import { IN_APP_BROWSERS } from '../visits/classify.ts';
import { COUNTRY_CODES } from './countries.ts';

// A link's redirect rules as data: the first rule whose conditions all match decides what the redirect does.
// A condition keeps Shlink's shape and names, `{type, matchKey, matchValue}`, so that a Shlink-compatible API
// maps it one to one; kurz adds `os`, `in-app-browser` and `query-param-absent`. match.ts evaluates them.

export const RULE_LIMITS = { rules: 50, conditions: 10, variants: 20, minVariants: 2, weight: 1000, value: 256 } as const;

/**
 * What a condition asks of the request (match.ts decides it), `matchValue` being:
 * - `device`: one of DEVICES (`mobile`: a phone or a tablet, as Shlink's; `tablet`; `desktop`; or an OS name);
 *   `os`, `browser`: one of OPERATING_SYSTEMS, BROWSERS; `in-app-browser`: an app of IN_APP_VALUES, or `any`;
 * - `language`: a language range (`de` matches de, de-AT, de-CH; `de-AT` only de-AT) among the visitor's
 *   Accept-Language entries of quality 0.9 or more (match.ts's MIN_LANGUAGE_QUALITY, Shlink's);
 * - `query-param`: parameter `matchKey` has this value (one of its values, when repeated); with no
 *   matchValue, `any-value-query-param`: `matchKey` is there, `valueless-query-param`: it is there without a
 *   value (`?key` or `?key=`), `query-param-absent`: it is not there;
 * - `ip-address`: the client's address is this IPv4 or IPv6 address, in this CIDR range, or fits an IPv4
 *   pattern such as `1.2.*.*`, an IPv4-mapped IPv6 address counting as its IPv4 address;
 * - `geolocation-country-code` (ISO 3166-1 alpha-2, any case), `geolocation-city-name` (any case): the GeoIP
 *   database's answer; never a match without one;
 * - `before-date`, `after-date`: an ISO 8601 date (its UTC midnight) or date and time (UTC without an
 *   offset); the redirect's clock is strictly before or after it.
 */
export const CONDITION_TYPES = [
  'device',
  'os',
  'browser',
  'in-app-browser',
  'language',
  'query-param',
  'any-value-query-param',
  'valueless-query-param',
  'query-param-absent',
  'ip-address',
  'geolocation-country-code',
  'geolocation-city-name',
  'before-date',
  'after-date',
] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

/**
 * `device` values: Shlink's (an operating system, or `mobile`: iOS and Android, phones and tablets alike, and
 * `desktop`) and kurz's `tablet`. A phone is `mobile` after a `tablet` rule.
 */
export const DEVICES = ['mobile', 'tablet', 'desktop', 'android', 'ios', 'windows', 'macos', 'linux', 'chromeos'] as const;
/** `os` values. */
export const OPERATING_SYSTEMS = ['android', 'ios', 'windows', 'macos', 'linux', 'chromeos', 'harmonyos', 'windows-phone'] as const;
/** `browser` values: Shlink's, and Samsung's. */
export const BROWSERS = ['chrome', 'firefox', 'edge', 'safari', 'opera', 'android_browser', 'samsung_internet'] as const;
/** `in-app-browser` values: an app (classify.ts's IN_APP_BROWSERS), or `any` of them. */
export const IN_APP_VALUES = [...IN_APP_BROWSERS, 'any'] as const;

/** What each condition type is called in the rule editor's select and in a rule's words. */
export const CONDITION_LABELS: Readonly<Record<ConditionType, string>> = {
  device: 'device',
  os: 'operating system',
  browser: 'browser',
  'in-app-browser': 'in-app browser',
  language: 'language',
  'query-param': 'query parameter equals',
  'any-value-query-param': 'query parameter present',
  'valueless-query-param': 'query parameter without a value',
  'query-param-absent': 'query parameter absent',
  'ip-address': 'IP address or CIDR range',
  'geolocation-country-code': 'country',
  'geolocation-city-name': 'city',
  'before-date': 'before date',
  'after-date': 'after date',
};

/** A condition as the API gives it, with the value checked; `matchKey` is null but for the query-* types. */
export interface Condition {
  readonly type: ConditionType;
  readonly matchKey: string | null;
  readonly matchValue: string | null;
}

export interface Variant {
  readonly url: string;
  /** An integer from 1 to 1000: the variant's share of the visitors is its weight over the sum of the unpaused ones'. */
  readonly weight: number;
  /** A paused variant is never drawn (its visitors are spread over the others). */
  readonly paused: boolean;
}

/**
 * A rule's conditions in words, "language is de and device is mobile" ("every visitor" for none): how the link
 * page lists the rule, and the name its visits are counted under in the link's stats (so values the redirect
 * takes for one are written as one).
 */
export function conditionsInWords(conditions: ReadonlyArray<Pick<Condition, 'type' | 'matchKey' | 'matchValue'>>): string {
  if (conditions.length === 0) return 'every visitor';
  return conditions
    .map(({ type, matchKey, matchValue }) => {
      switch (type) {
        case 'query-param':
          return `query parameter ${matchKey ?? ''} is ${matchValue ?? ''}`;
        case 'any-value-query-param':
          return `query parameter ${matchKey ?? ''} is present`;
        case 'valueless-query-param':
          return `query parameter ${matchKey ?? ''} has no value`;
        case 'query-param-absent':
          return `query parameter ${matchKey ?? ''} is absent`;
        case 'ip-address':
          return `IP address is ${matchValue ?? ''}`;
        // As the redirect compares them (match.ts): "de" and "DE" are one country, "de_AT" and "de-at" one language.
        case 'geolocation-country-code':
          return `country is ${(matchValue ?? '').toUpperCase()}`;
        case 'language':
          return `language is ${(matchValue ?? '').toLowerCase().replaceAll('_', '-')}`;
        case 'before-date':
        case 'after-date':
          return `${type === 'before-date' ? 'before' : 'after'} ${matchValue ?? ''}`;
        default:
          return `${CONDITION_LABELS[type]} is ${matchValue ?? ''}`;
      }
    })
    .join(' and ');
}

export const REFUSALS = [451, 403] as const;
export type RefusalStatus = (typeof REFUSALS)[number];
export const PAGES = ['open-in-browser', 'notice', 'form'] as const;
export type PageKind = (typeof PAGES)[number];

/** What a matching rule does: redirect to `url`, to a variant of a split, refuse (451 or 403), or show a page first. */
export type Action =
  | { readonly kind: 'target'; readonly url: string }
  | { readonly kind: 'split'; readonly variants: readonly Variant[] }
  | { readonly kind: 'refuse'; readonly status: RefusalStatus }
  | { readonly kind: 'page'; readonly page: PageKind };

export interface Rule {
  /** Up to ten; all must match (none: every visitor matches). */
  readonly conditions: readonly Condition[];
  readonly action: Action;
}

/** A rule as the API gives and returns it: its conditions and one of the action fields. */
export interface RuleJson {
  conditions: Array<{ type: ConditionType; matchKey: string | null; matchValue: string | null }>;
  target?: string;
  split?: Array<{ url: string; weight: number; paused?: boolean }>;
  refuse?: RefusalStatus;
  page?: PageKind;
}

const ACTIONS = ['target', 'split', 'refuse', 'page'] as const;

const nullableString = z.string({ error: 'must be a string or null' }).nullable().optional();

const CONDITION = z.strictObject(
  {
    type: z.enum(CONDITION_TYPES, { error: `must be one of ${CONDITION_TYPES.join(', ')}` }),
    matchKey: nullableString,
    matchValue: nullableString,
  },
  { error: 'must be an object {type, matchKey, matchValue}' },
);

const VARIANT = z.strictObject(
  {
    url: z.unknown().optional(),
    weight: z
      .int({ error: 'must be an integer' })
      .min(1, { error: 'must be at least 1' })
      .max(RULE_LIMITS.weight, { error: `must be at most ${RULE_LIMITS.weight}` }),
    paused: z.boolean({ error: 'must be true or false' }).optional(),
  },
  { error: 'must be an object {url, weight, paused}' },
);

const SPLIT = z
  .array(VARIANT, { error: 'must be a list of variants {url, weight}' })
  .min(RULE_LIMITS.minVariants, { error: `must have at least ${RULE_LIMITS.minVariants} variants` })
  .max(RULE_LIMITS.variants, { error: `must have at most ${RULE_LIMITS.variants} variants` });

const RULE = z.strictObject(
  {
    conditions: z
      .array(CONDITION, { error: 'must be a list of conditions' })
      .max(RULE_LIMITS.conditions, { error: `must have at most ${RULE_LIMITS.conditions} conditions` }),
    target: z.unknown().optional(),
    split: SPLIT.optional(),
    refuse: z.union([z.literal(451), z.literal(403)], { error: 'must be 451 or 403' }).optional(),
    page: z.enum(PAGES, { error: `must be one of ${PAGES.join(', ')}` }).optional(),
  },
  { error: 'must be an object {conditions, and one of target, split, refuse, page}' },
);

const RULES = z
  .array(RULE, { error: 'must be a list of rules' })
  .max(RULE_LIMITS.rules, { error: `must have at most ${RULE_LIMITS.rules} rules` });

/**
 * A link's rules from the API's `rules` (unknown input): their shape, then each condition's value and each
 * target. Throws AppError('invalid', message, field) naming the rule and the field at fault, e.g.
 * `rules[2].conditions[0].matchValue`; targets are checked and normalised as a link's own (`urls`).
 */
export function parseRules(input: unknown, urls: UrlRules): Rule[] {
  const rules = shaped(RULES, input, 'rules');
  return rules.map((rule, i) => {
    const field = `rules[${i}]`;
    const conditions = rule.conditions.map((c, j) => parseCondition(c, `${field}.conditions[${j}]`));
    const given = ACTIONS.filter((name) => rule[name] !== undefined);
    if (given.length !== 1) {
      const message = given.length === 0 ? 'has no action' : `has ${given.length} actions (${given.join(', ')})`;
      throw new AppError('invalid', `${field} ${message}: give exactly one of ${ACTIONS.join(', ')}`, field);
    }
    return { conditions, action: parseAction(rule, urls, field) };
  });
}

/**
 * A split's variants (a link's own `split` field, or a rule's): 2 to 20 `{url, weight, paused?}`, at least one
 * not paused. Throws AppError('invalid') naming `field` and the variant at fault.
 */
export function parseSplit(input: unknown, urls: UrlRules, field = 'split'): Variant[] {
  return checkSplit(shaped(SPLIT, input, field), urls, field);
}

/** Where `rules` may send a visitor: their target actions' URLs and their splits' variants (paused ones too). */
export function ruleTargets(rules: readonly Rule[]): string[] {
  return rules.flatMap((rule) =>
    rule.action.kind === 'target' ? [rule.action.url] : rule.action.kind === 'split' ? rule.action.variants.map((v) => v.url) : [],
  );
}

/** A rule as the API returns it: as it was set, targets normalised. */
export function ruleJson(rule: Rule): RuleJson {
  const conditions = rule.conditions.map(({ type, matchKey, matchValue }) => ({ type, matchKey, matchValue }));
  const action = rule.action;
  switch (action.kind) {
    case 'target':
      return { conditions, target: action.url };
    case 'split':
      return { conditions, split: action.variants.map(({ url, weight, paused }) => (paused ? { url, weight, paused } : { url, weight })) };
    case 'refuse':
      return { conditions, refuse: action.status };
    case 'page':
      return { conditions, page: action.page };
  }
}

function parseAction(rule: z.output<typeof RULE>, urls: UrlRules, field: string): Action {
  if (rule.split !== undefined) return { kind: 'split', variants: checkSplit(rule.split, urls, `${field}.split`) };
  if (rule.refuse !== undefined) return { kind: 'refuse', status: rule.refuse };
  if (rule.page !== undefined) return { kind: 'page', page: rule.page };
  return { kind: 'target', url: target(rule.target, urls, `${field}.target`) };
}

function checkSplit(variants: z.output<typeof SPLIT>, urls: UrlRules, field: string): Variant[] {
  const parsed = variants.map((v, k) => ({ url: target(v.url, urls, `${field}[${k}].url`), weight: v.weight, paused: v.paused ?? false }));
  if (parsed.every((v) => v.paused)) throw new AppError('invalid', `${field} has every variant paused: at least one must not be`, field);
  return parsed;
}

/** A target checked as a link's own (url-rules.ts), its error naming `field`. */
function target(url: unknown, urls: UrlRules, field: string): string {
  try {
    return normaliseUrl(url, urls);
  } catch (err) {
    if (err instanceof AppError) throw new AppError('invalid', `${field}: ${err.message}`, field);
    throw err;
  }
}

/** `input` in the shape of `schema`, or AppError naming the first field at fault (a path below `root`). */
function shaped<S extends z.ZodType>(schema: S, input: unknown, root: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue === undefined) throw new AppError('invalid', `${root} is invalid`, root);
  let field = root + issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    field += `.${issue.keys[0] ?? ''}`;
    message = 'is not a known field';
  }
  throw new AppError('invalid', `${field} ${message}`, field);
}

const QUERY_TYPES: ReadonlySet<ConditionType> = new Set([
  'query-param',
  'any-value-query-param',
  'valueless-query-param',
  'query-param-absent',
]);

/** Checks each condition type's value: what it must be, as a message after "matchValue ". */
const VALUE_CHECKS: Readonly<Record<ConditionType, ((value: string) => string | undefined) | null>> = {
  device: oneOf(DEVICES, 'device'),
  os: oneOf(OPERATING_SYSTEMS, 'operating system'),
  browser: oneOf(BROWSERS, 'browser'),
  'in-app-browser': oneOf(IN_APP_VALUES, 'in-app browser'),
  language: (v) => (LANGUAGE_TAG.test(v) ? undefined : `"${v}" is not a language tag such as de or de-AT`),
  'query-param': (v) => (v === '' ? 'must not be empty' : undefined),
  'any-value-query-param': null,
  'valueless-query-param': null,
  'query-param-absent': null,
  'ip-address': (v) => (isAddressPattern(v) ? undefined : `"${v}" is not a CIDR range or IP address (or a pattern such as 1.2.*.*)`),
  'geolocation-country-code': (v) =>
    COUNTRY_CODES.has(v.toUpperCase()) ? undefined : `unknown country code ${v} (an ISO 3166-1 alpha-2 code such as DE)`,
  'geolocation-city-name': (v) => (v.trim() === '' ? 'must not be empty' : undefined),
  'before-date': isoTime,
  'after-date': isoTime,
};

/** A language tag as Accept-Language names one ("_" read as "-", as Shlink does). */
const LANGUAGE_TAG = /^[a-z]{2,3}(?:[-_][a-z0-9]{1,8})*$/i;

function parseCondition(c: z.output<typeof CONDITION>, field: string): Condition {
  const matchKey = c.matchKey ?? null;
  const matchValue = c.matchValue ?? null;
  for (const [name, value] of [
    ['matchKey', matchKey],
    ['matchValue', matchValue],
  ] as const) {
    if (value === null) continue;
    if (value.length > RULE_LIMITS.value)
      throw new AppError('invalid', `${field}.${name} is longer than ${RULE_LIMITS.value} characters`, `${field}.${name}`);
    const problem = textProblem(value, false);
    if (problem !== undefined) throw new AppError('invalid', `${field}.${name} ${problem}`, `${field}.${name}`);
  }
  if (QUERY_TYPES.has(c.type)) {
    if (matchKey === null || matchKey === '') {
      throw new AppError('invalid', `${field}.matchKey must name the query parameter (${c.type})`, `${field}.matchKey`);
    }
  } else if (matchKey !== null) {
    throw new AppError('invalid', `${field}.matchKey must be null: only the query-param types take one (${c.type})`, `${field}.matchKey`);
  }
  const check = VALUE_CHECKS[c.type];
  if (check === null) {
    if (matchValue !== null) {
      throw new AppError('invalid', `${field}.matchValue must be null: ${c.type} takes only a matchKey`, `${field}.matchValue`);
    }
  } else {
    if (matchValue === null) throw new AppError('invalid', `${field}.matchValue is required for ${c.type}`, `${field}.matchValue`);
    const problem = check(matchValue);
    if (problem !== undefined) throw new AppError('invalid', `${field}.matchValue ${problem}`, `${field}.matchValue`);
  }
  return { type: c.type, matchKey, matchValue };
}

function oneOf(values: readonly string[], what: string): (value: string) => string | undefined {
  return (v) => (values.includes(v) ? undefined : `"${v}" is not a known ${what} (one of ${values.join(', ')})`);
}

function isoTime(v: string): string | undefined {
  return timeOf(v) === undefined ? `"${v}" is not an ISO 8601 date or time such as 2026-12-31 or 2026-12-31T18:00:00+01:00` : undefined;
}

const IPV4_WILDCARD = /^(?:\d{1,3}|\*)(?:\.(?:\d{1,3}|\*)){3}$/;

/** A static address (v4 or v6), a CIDR range (v4 or v6), or Shlink's IPv4 pattern with `*` for any octet. */
export function isAddressPattern(value: string): boolean {
  if (value.includes('*')) return IPV4_WILDCARD.test(value) && value.split('.').every((part) => part === '*' || Number(part) <= 255);
  const slash = value.indexOf('/');
  if (slash === -1) return isIP(value) !== 0;
  const [address, prefix] = [value.slice(0, slash), value.slice(slash + 1)];
  const version = isIP(address);
  return version !== 0 && /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}
