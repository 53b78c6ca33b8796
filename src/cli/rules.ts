import { readFileSync } from 'node:fs';
import { AppError } from '../core/errors.ts';
import type { RuleJson } from '../rules/rule.ts';
import { EXIT, JSON_FLAG, UsageError, type Command } from './command.ts';
import { actorFor, AS_FLAG, DOMAIN_FLAG } from './link-flags.ts';
import { withServices } from './wiring.ts';

const MODES = ['list', 'clear', 'set', 'add'] as const;

export const rules: Command = {
  summary: "A link's redirect rules: list them, clear them, set them from a JSON file, or add one. The redirect follows at once.",
  usage: "rules CODE [--domain HOST] --list | --clear | --set FILE.json | --add 'JSON of one rule' [--json] [--as USER]",
  examples: ['kurz rules docs --add \'{"conditions": [{"type": "device", "matchValue": "mobile"}], "target": "https://m.example.com/"}\''],
  flags: {
    as: AS_FLAG,
    domain: DOMAIN_FLAG,
    list: { type: 'boolean', doc: 'show the rules, in order (the default)' },
    clear: { type: 'boolean', doc: 'remove every rule: the link redirects to its own target again' },
    set: {
      type: 'string',
      placeholder: 'FILE.json',
      doc: 'replace the rules with those of the file: a list of rules, or {"rules": [...]} as the API takes it ("-": standard input)',
    },
    add: {
      type: 'string',
      placeholder: 'JSON',
      doc: 'add one rule after the others, e.g. \'{"conditions":[{"type":"language","matchValue":"de"}],"target":"https://example.de/"}\'',
    },
    json: JSON_FLAG,
  },
  positionals: [1, 1],
  run({ values, positionals, config, out }) {
    const given = MODES.filter((mode) => values[mode] !== undefined && values[mode] !== false);
    if (given.length > 1)
      throw new UsageError(`rules: give one of --list, --clear, --set, --add, not ${given.map((m) => `--${m}`).join(' and ')}`);
    const mode = given[0] ?? 'list';
    // Read before anything is opened: a file or a rule that cannot be read is the command line's fault.
    const input = mode === 'set' ? rulesOfFile(String(values['set'])) : mode === 'add' ? jsonOf(String(values['add']), '--add') : undefined;
    const code = positionals[0] ?? '';
    return withServices(
      config,
      async (services) => {
        const actor = await actorFor(services, values['as']);
        const domain = services.registry.idOf(values['domain']);
        let shown: RuleJson[];
        try {
          if (mode === 'list') shown = await services.links.rulesOf(actor, code, domain);
          else {
            const next = mode === 'clear' ? [] : mode === 'set' ? input : [...(await services.links.rulesOf(actor, code, domain)), input];
            shown = await services.links.setRules(actor, code, next, domain);
          }
        } catch (err) {
          // A rule that does not hold is bad input, as the API's 400: exit 2, naming the rule and the field.
          if (err instanceof AppError && err.code === 'invalid') throw new UsageError(`rules: ${err.message}`);
          throw err;
        }
        if (values['json']) out(JSON.stringify({ rules: shown }) + '\n');
        else if (mode === 'list' || shown.length === 0) out(describe(code, shown));
        else out(`${code}: ${shown.length} rule${shown.length === 1 ? '' : 's'} set\n${describe(code, shown)}`);
        return EXIT.ok;
      },
      { existing: true },
    );
  },
};

/** The rules of a --set file: a list, or the API's {"rules": [...]}. */
function rulesOfFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new UsageError(`rules: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const parsed = jsonOf(text, file);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && 'rules' in parsed ? parsed.rules : parsed;
}

function jsonOf(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`rules: ${where} is not JSON: ${(err as Error).message}`);
  }
}

/** One line per rule: its number, its conditions, its action. */
function describe(code: string, list: readonly RuleJson[]): string {
  if (list.length === 0) return `${code}: no rules: it redirects to its own target\n`;
  return (
    list
      .map((rule, i) => {
        const conditions = rule.conditions
          .map((c) => [c.type, c.matchKey, c.matchValue].filter((part) => part !== null).join(' '))
          .join(' and ');
        const action =
          rule.target !== undefined
            ? `→ ${rule.target}`
            : rule.refuse !== undefined
              ? `refuse ${rule.refuse}`
              : rule.split !== undefined
                ? `split ${rule.split.map((v) => `${v.url} ×${v.weight}`).join(', ')}`
                : `page ${rule.page ?? ''}`;
        return `${String(i + 1).padStart(2)}. if ${conditions} ${action}`;
      })
      .join('\n') + '\n'
  );
}
