import test from 'ava';
import { urlRules } from '../../src/links/url-rules.ts';
import { parseRules } from '../../src/rules/rule.ts';
import { rulesFromStored, storedRules } from '../../src/rules/stored.ts';

// The rules as links.rules keeps them: what parseRules gave comes back whole from the stored text; text that
// cannot be read fails closed (no rules), saying why.

const urls = urlRules({
  maxUrlLength: 200,
  publicUrl: 'https://s.example',
  host: '192.0.2.10',
  port: 8080,
  allowDomains: '',
  denyDomains: '',
});

const RULES = parseRules(
  [
    {
      conditions: [
        { type: 'language', matchValue: 'de' },
        { type: 'query-param', matchKey: 'a', matchValue: 'b' },
      ],
      target: 'https://example.de/',
    },
    { conditions: [{ type: 'ip-address', matchValue: '10.0.0.0/8' }], refuse: 451 },
    {
      conditions: [{ type: 'device', matchValue: 'mobile' }],
      split: [
        { url: 'https://a.example/', weight: 2 },
        { url: 'https://b.example/', weight: 1, paused: true },
      ],
    },
    { conditions: [{ type: 'in-app-browser', matchValue: 'any' }], page: 'open-in-browser' },
  ],
  urls,
);

test('stored rules read back as the rules that were set, every action kind', (t) => {
  const text = storedRules(RULES);
  t.not(text, null);
  const problems: string[] = [];
  t.deepEqual(
    rulesFromStored(text!, (p) => problems.push(p)),
    RULES,
  );
  t.deepEqual(problems, []);
});

test('no rules are stored as null', (t) => {
  t.is(storedRules([]), null);
});

test('text that is not a list of rules fails closed: no rules, and the reason', (t) => {
  for (const text of [
    '{not json',
    '{"rules": []}',
    '[{"conditions": [{"type": "colour"}], "target": "x"}]',
    '[{"conditions": []}]',
    '[null]',
  ]) {
    const problems: string[] = [];
    t.deepEqual(
      rulesFromStored(text, (p) => problems.push(p)),
      [],
      text,
    );
    t.is(problems.length, 1, text);
  }
});
