import { CONDITION_TYPES, PAGES, REFUSALS, ruleJson, type Action, type Condition, type Rule, type RuleJson, type Variant } from './rule.ts';

// A link's rules as the store keeps them: the JSON of ruleJson's list, validated by parseRules when set.

/** The stored text of a link's rules (validated rules, as parseRules gave them); null for none. */
export function storedRules(rules: readonly Rule[]): string | null {
  return rules.length === 0 ? null : JSON.stringify(rules.map(ruleJson));
}

/**
 * A link's rules from their stored text, read once when the redirect loads the link: trusted (they were
 * validated when set), so targets are not checked again, but the shape is, and text that is not a list of
 * rules fails closed: no rules (the link's own target), and `onUnreadable` is told why.
 */
export function rulesFromStored(text: string, onUnreadable: (problem: string) => void): Rule[] {
  try {
    const list: unknown = JSON.parse(text);
    if (!Array.isArray(list)) throw new Error('not a list');
    return list.map((item, i) => ruleOf(item as Partial<RuleJson> | null, i));
  } catch (err) {
    onUnreadable(err instanceof Error ? err.message : String(err));
    return [];
  }
}

const TYPES: ReadonlySet<string> = new Set(CONDITION_TYPES);

function ruleOf(item: Partial<RuleJson> | null, i: number): Rule {
  if (item === null || typeof item !== 'object' || !Array.isArray(item.conditions)) throw new Error(`rules[${i}] has no conditions`);
  const conditions = item.conditions.map((c, j): Condition => {
    if (!TYPES.has(c.type)) throw new Error(`rules[${i}].conditions[${j}].type is unknown`);
    return { type: c.type, matchKey: c.matchKey ?? null, matchValue: c.matchValue ?? null };
  });
  return { conditions, action: actionOf(item, i) };
}

function actionOf(item: Partial<RuleJson>, i: number): Action {
  if (typeof item.target === 'string') return { kind: 'target', url: item.target };
  if (Array.isArray(item.split))
    return { kind: 'split', variants: item.split.map((v) => ({ url: v.url, weight: v.weight, paused: v.paused ?? false })) };
  if (item.refuse !== undefined && (REFUSALS as readonly number[]).includes(item.refuse)) return { kind: 'refuse', status: item.refuse };
  if (item.page !== undefined && (PAGES as readonly string[]).includes(item.page)) return { kind: 'page', page: item.page };
  throw new Error(`rules[${i}] has no action`);
}

// A link's own split as the store keeps it: the JSON of its variants ({url, weight, paused?}), validated by
// parseSplit when set.

/** The stored text of a link's split; null for none. */
export function storedSplit(variants: readonly Variant[] | null): string | null {
  return variants === null ? null : JSON.stringify(variants.map(variantJson));
}

/** A variant as the API gives and returns it: `paused` only when true. */
export function variantJson({ url, weight, paused }: Variant): { url: string; weight: number; paused?: boolean } {
  return paused ? { url, weight, paused } : { url, weight };
}

/**
 * A link's split from its stored text: trusted (validated when set), but text that is not a list of
 * variants fails closed: no split (the link's own target), and `onUnreadable` is told why.
 */
export function splitFromStored(text: string, onUnreadable: (problem: string) => void): Variant[] | null {
  try {
    const list: unknown = JSON.parse(text);
    if (!Array.isArray(list)) throw new Error('not a list');
    return list.map((item: Partial<Variant> | null, i) => {
      if (item === null || typeof item.url !== 'string' || typeof item.weight !== 'number') throw new Error(`split[${i}] is not a variant`);
      return { url: item.url, weight: item.weight, paused: item.paused === true };
    });
  } catch (err) {
    onUnreadable(err instanceof Error ? err.message : String(err));
    return null;
  }
}
