import { NO_PAGES } from '../../src/rules/page-settings.ts';
import test from 'ava';
import {
  decideRedirect,
  newDecision,
  settleVisitCheck,
  type Decision,
  type RedirectFacts,
  type RedirectSettings,
} from '../../src/edge/redirect-decision.ts';
import type { Gate, Target } from '../../src/links/link.ts';
import { compileRules } from '../../src/rules/match.ts';
import type { Rule } from '../../src/rules/rule.ts';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const URL = 'https://example.com/page';
const SETTINGS: RedirectSettings = { redirectStatus: 302, forwardQuery: false, notFoundRedirect: null };
/** A person's browser asking for /abc?x=1. */
const PERSON: RedirectFacts = {
  method: 'GET',
  url: '/abc?x=1',
  host: 'kurz.example',
  wantsHtml: true,
  isBot: false,
  isPreviewBot: false,
  now: NOW,
  visitorDraw: () => 0,
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  acceptLanguage: 'de-AT,de;q=0.9,en;q=0.5',
  query: 'x=1',
  clientAddress: '127.0.0.1',
  country: () => 'AT',
  city: () => null,
  pagePassed: false,
  passwordPassed: false,
};
const OPEN: Gate = {
  enabled: true,
  blocked: false,
  review: null,
  startsAt: null,
  expiresAt: null,
  maxVisits: null,
  locked: false,
  redirectStatus: null,
  forwardQuery: null,
  rules: null,
  split: null,
  preview: null,
  pages: NO_PAGES,
  openInBrowser: false,
};
const GERMAN = 'https://example.de/seite';
const RULES: Rule[] = [
  { conditions: [{ type: 'query-param', matchKey: 'x', matchValue: '2' }], action: { kind: 'refuse', status: 403 } },
  { conditions: [{ type: 'geolocation-country-code', matchKey: null, matchValue: 'ch' }], action: { kind: 'refuse', status: 451 } },
  { conditions: [{ type: 'language', matchKey: null, matchValue: 'de' }], action: { kind: 'target', url: GERMAN } },
];

/** A link with `gate`'s options; its rules compiled as the store's loading compiles them. */
const link = (gate: (Partial<Omit<Gate, 'rules'>> & { rules?: Rule[] | null }) | null, url = URL): Target => ({
  id: 7,
  url,
  deleted: false,
  gate: gate && { ...OPEN, ...gate, rules: gate.rules ? compileRules(gate.rules) : null },
});
const decide = (target: Target | undefined, facts: Partial<RedirectFacts> = {}, settings: Partial<RedirectSettings> = {}): Decision =>
  decideRedirect(target, { ...PERSON, ...facts }, { ...SETTINGS, ...settings }, newDecision());

/** The fields the decision's outcome reads, for comparing. */
function shown(d: Decision): Record<string, unknown> {
  if (d.outcome === 'redirect' || d.outcome === 'claim_visit')
    return { outcome: d.outcome, status: d.status, location: d.location, cache: d.cache, record: d.record };
  if (d.outcome === 'refused') return { outcome: d.outcome, refusal: d.refusal, record: d.record };
  if (d.outcome === 'unavailable')
    return { outcome: d.outcome, unavailable: d.unavailable, page: d.page, cache: d.cache, record: d.record };
  if (d.outcome === 'preview') return { outcome: d.outcome, cache: d.cache, record: d.record };
  if (d.outcome === 'password') return { outcome: d.outcome, page: d.page, record: d.record };
  if (d.outcome === 'guarded' || d.outcome === 'ask_visits_left')
    return { outcome: d.outcome, page: d.page, cache: d.cache, record: d.record };
  return { outcome: d.outcome, record: d.record };
}

const cached = (status: number, location: string, record = true) => ({
  outcome: 'redirect',
  status,
  location,
  cache: 'private, max-age=90',
  record,
});
const CARD = { title: 'A title', description: null, image: 'https://example.com/card.png' };
const previewed = (record: boolean) => ({ outcome: 'preview', cache: 'no-store', record });
const uncached = (location: string, outcome = 'redirect') => ({ outcome, status: 302, location, cache: 'no-store', record: true });

const CASES: Array<[string, Target | undefined, Partial<RedirectFacts>, Partial<RedirectSettings>, Record<string, unknown>]> = [
  ['an ordinary link redirects, cacheably, and the GET counts', link(null), {}, {}, cached(302, URL)],
  ['an ordinary link answers HEAD without counting it', link(null), { method: 'HEAD' }, {}, cached(302, URL, false)],
  ['the instance forwards the query', link(null), {}, { forwardQuery: true }, cached(302, `${URL}?x=1`)],
  [
    'the instance forwards the query before the fragment',
    link(null, `${URL}?a=b#top`),
    {},
    { forwardQuery: true },
    cached(302, `${URL}?a=b&x=1#top`),
  ],
  ['the instance status', link(null), {}, { redirectStatus: 301 }, cached(301, URL)],
  ['a link forwards the query though the instance does not', link({ forwardQuery: true }), {}, {}, cached(302, `${URL}?x=1`)],
  ['a link does not forward though the instance does', link({ forwardQuery: false }), {}, { forwardQuery: true }, cached(302, URL)],
  ['a link without its own forwarding follows the instance', link({}), {}, { forwardQuery: true }, cached(302, `${URL}?x=1`)],
  ['a link status overrides the instance', link({ redirectStatus: 308 }), {}, { redirectStatus: 301 }, cached(308, URL)],
  ['an unknown code is not found', undefined, {}, {}, { outcome: 'not_found', record: false }],
  ['a deleted link is gone', { id: 7, url: URL, deleted: true, gate: null }, {}, {}, { outcome: 'gone', record: false }],
  ['a disabled link is refused', link({ enabled: false }), {}, {}, { outcome: 'refused', refusal: 'disabled', record: false }],
  [
    'a blocked link is refused, enabled or not',
    link({ blocked: true, enabled: false }),
    {},
    {},
    { outcome: 'refused', refusal: 'blocked', record: false },
  ],
  ['a link in review is refused as such', link({ review: 'pending' }), {}, {}, { outcome: 'refused', refusal: 'in_review', record: false }],
  [
    'a link in review is refused to a HEAD and a bot, and before its password',
    link({ review: 'pending', locked: true }),
    { method: 'HEAD', isBot: true },
    {},
    { outcome: 'refused', refusal: 'in_review', record: false },
  ],
  [
    'a rejected link is refused, even enabled again',
    link({ review: 'rejected', enabled: true }),
    {},
    {},
    { outcome: 'refused', refusal: 'rejected', record: false },
  ],
  [
    'a blocked link in review says blocked',
    link({ review: 'pending', blocked: true }),
    {},
    {},
    { outcome: 'refused', refusal: 'blocked', record: false },
  ],
  ['a link before its start is not found', link({ startsAt: NOW + 1 }), {}, {}, { outcome: 'not_found', record: false }],
  [
    'a link before its start is not found, even disabled or locked',
    link({ startsAt: NOW + 1, enabled: false, locked: true }),
    { method: 'HEAD', isBot: true },
    {},
    { outcome: 'not_found', record: false },
  ],
  [
    'a link before its start follows the domain’s not-found redirect',
    link({ startsAt: NOW + 1 }),
    {},
    { notFoundRedirect: 'https://home.example/' },
    { outcome: 'redirect', status: 302, location: 'https://home.example/', cache: 'no-store', record: false },
  ],
  ['a link redirects from its start on, cached', link({ startsAt: NOW }), {}, {}, cached(302, URL)],
  [
    'a link that has started is refused once expired',
    link({ startsAt: NOW - 2, expiresAt: NOW - 1 }),
    {},
    {},
    { outcome: 'refused', refusal: 'expired', record: false },
  ],
  ['a link expires at its time', link({ expiresAt: NOW }), {}, {}, { outcome: 'refused', refusal: 'expired', record: false }],
  ['a link before its expiry redirects uncached', link({ expiresAt: NOW + 1 }), {}, {}, uncached(URL)],
  [
    'an expired link is refused to a HEAD too',
    link({ expiresAt: NOW - 1 }),
    { method: 'HEAD' },
    {},
    { outcome: 'refused', refusal: 'expired', record: false },
  ],
  [
    'a disabled locked link is refused, not asked for its password',
    link({ enabled: false, locked: true }),
    {},
    {},
    { outcome: 'refused', refusal: 'disabled', record: false },
  ],
  [
    'a locked link asks a browser for its password form',
    link({ locked: true }),
    {},
    {},
    { outcome: 'password', page: true, record: false },
  ],
  [
    'a locked link tells an API client where to send it',
    link({ locked: true }),
    { wantsHtml: false },
    {},
    { outcome: 'password', page: false, record: false },
  ],
  [
    'a locked link asks a HEAD too',
    link({ locked: true }),
    { method: 'HEAD', wantsHtml: false },
    {},
    { outcome: 'password', page: false, record: false },
  ],
  [
    'a guarded link shows a HEAD its state, uncounted',
    link({ expiresAt: NOW + 1 }),
    { method: 'HEAD', wantsHtml: false },
    {},
    { outcome: 'guarded', page: false, cache: 'no-store', record: false },
  ],
  [
    'a guarded link shows a bot its state, recorded as its look',
    link({ expiresAt: NOW + 1 }),
    { isBot: true },
    {},
    { outcome: 'guarded', page: true, cache: 'no-store', record: true },
  ],
  [
    'a person’s GET of a link with a visit limit claims a visit first',
    link({ maxVisits: 3, forwardQuery: true }),
    {},
    {},
    uncached(`${URL}?x=1`, 'claim_visit'),
  ],
  [
    'a bot’s look at a link with a visit limit asks whether visits are left',
    link({ maxVisits: 3 }),
    { isBot: true, wantsHtml: false },
    {},
    { outcome: 'ask_visits_left', page: false, cache: 'no-store', record: true },
  ],
  [
    'a HEAD of a link with a visit limit asks whether visits are left',
    link({ maxVisits: 3 }),
    { method: 'HEAD' },
    {},
    { outcome: 'ask_visits_left', page: true, cache: 'no-store', record: false },
  ],
  ['a rule that matches chooses the target, uncached', link({ rules: RULES }), {}, {}, uncached(GERMAN)],
  [
    'a rule’s target keeps the link’s status and query forwarding',
    link({ rules: RULES, redirectStatus: 307, forwardQuery: true }),
    {},
    {},
    { ...uncached(`${GERMAN}?x=1`), status: 307 },
  ],
  ['no rule matching is the link’s own target, still uncached', link({ rules: RULES }), { acceptLanguage: 'en' }, {}, uncached(URL)],
  [
    'the first matching rule decides: a refusal (403), a page, nothing recorded',
    link({ rules: RULES }),
    { query: 'x=2', url: '/abc?x=2' },
    {},
    { outcome: 'unavailable', unavailable: 403, page: true, cache: 'no-store', record: false },
  ],
  [
    'a regional refusal (451) to an API client',
    link({ rules: RULES }),
    { country: () => 'CH', wantsHtml: false },
    {},
    { outcome: 'unavailable', unavailable: 451, page: false, cache: 'no-store', record: false },
  ],
  [
    'a HEAD of a link with rules is decided by them, uncounted',
    link({ rules: RULES }),
    { method: 'HEAD' },
    {},
    { ...uncached(GERMAN), record: false },
  ],
  [
    'rules come after the refusals',
    link({ rules: RULES, enabled: false }),
    {},
    {},
    { outcome: 'refused', refusal: 'disabled', record: false },
  ],
  ['rules come after the password', link({ rules: RULES, locked: true }), {}, {}, { outcome: 'password', page: true, record: false }],
  ['a visit limit is claimed for a rule’s target', link({ rules: RULES, maxVisits: 3 }), {}, {}, uncached(GERMAN, 'claim_visit')],
  ['unreadable rules (none) leave the link as it was', link({ rules: [] }), {}, {}, cached(302, URL)],
  [
    'a link of redirect options alone does not ask whether a bot looks',
    link({ redirectStatus: 307 }),
    { isBot: true },
    {},
    cached(307, URL),
  ],
  // The social preview: link-preview bots get the card, people the redirect, neither cached.
  ['a link-preview bot gets the preview', link({ preview: CARD }), { isBot: true, isPreviewBot: true }, {}, previewed(true)],
  [
    'a preview bot’s HEAD gets the preview, not counted',
    link({ preview: CARD }),
    { method: 'HEAD', isBot: true, isPreviewBot: true },
    {},
    previewed(false),
  ],
  ['a person gets an uncached redirect of a link with a preview', link({ preview: CARD }), {}, {}, uncached(URL)],
  ['a crawler that draws no card follows the redirect', link({ preview: CARD }), { isBot: true }, {}, uncached(URL)],
  [
    'a refused link is refused to a preview bot too',
    link({ preview: CARD, enabled: false }),
    { isPreviewBot: true },
    {},
    { outcome: 'refused', refusal: 'disabled', record: false },
  ],
  [
    'a preview bot gets the card of a password link, not its form',
    link({ preview: CARD, locked: true }),
    { isBot: true, isPreviewBot: true },
    {},
    previewed(true),
  ],
  [
    'a preview bot gets the card before any rule',
    link({ preview: CARD, rules: RULES }),
    { isBot: true, isPreviewBot: true, query: 'x=2' },
    {},
    previewed(true),
  ],
  [
    'a link without a preview redirects a preview bot',
    link({ redirectStatus: 307 }),
    { isBot: true, isPreviewBot: true },
    {},
    cached(307, URL),
  ],
];
for (const [name, target, facts, settings, expected] of CASES) {
  test(name, (t) => {
    t.deepEqual(shown(decide(target, facts, settings)), expected);
  });
}

test('a claimed visit redirects; no visit left refuses it as used up', (t) => {
  const claimed = settleVisitCheck(decide(link({ maxVisits: 1 })), true);
  t.deepEqual(shown(claimed), uncached(URL));
  const refused = settleVisitCheck(decide(link({ maxVisits: 1 })), false);
  t.deepEqual(shown(refused), { outcome: 'refused', refusal: 'used_up', record: false });
});

test('a look with visits left is shown the state; one without is refused as used up', (t) => {
  const look = { isBot: true };
  t.deepEqual(shown(settleVisitCheck(decide(link({ maxVisits: 1 }), look), true)), {
    outcome: 'guarded',
    page: true,
    cache: 'no-store',
    record: true,
  });
  t.deepEqual(shown(settleVisitCheck(decide(link({ maxVisits: 1 }), look), false)), {
    outcome: 'refused',
    refusal: 'used_up',
    record: false,
  });
});

test('an ordinary link is decided without reading the clock, the visitor hash, the Host, the Accept or the User-Agent', (t) => {
  const read: string[] = [];
  const facts = new Proxy(PERSON, {
    get(target, key: keyof RedirectFacts) {
      read.push(key);
      return target[key];
    },
  });
  const into = newDecision();
  t.is(decideRedirect(link(null), facts, SETTINGS, into), into);
  t.deepEqual(read, ['method']);
  read.length = 0;
  decideRedirect(link(null), facts, { ...SETTINGS, forwardQuery: true }, into);
  t.deepEqual(read.sort(), ['method', 'url']);
});

test('a decision into a reused object leaves nothing of the one before', (t) => {
  const into = newDecision();
  decideRedirect(link({ enabled: false }), PERSON, SETTINGS, into);
  decideRedirect(link(null), PERSON, SETTINGS, into);
  t.deepEqual(shown(into), cached(302, URL));
  decideRedirect(undefined, PERSON, SETTINGS, into);
  t.deepEqual(shown(into), { outcome: 'not_found', record: false });
});

const A = 'https://example.com/a';
const B = 'https://example.com/b';
const SPLIT = [
  { url: A, weight: 1, paused: false },
  { url: B, weight: 1, paused: false },
];
/** A visitor whose daily hash is `draw`: 0 is the first half of the hashes, 0xffffffff the second. */
const visitor = (draw: number | null | undefined): Partial<RedirectFacts> => ({ visitorDraw: () => draw });

test("a link's own split redirects to the variant the visitor's hash draws, uncached, and records it", (t) => {
  const first = decide(link({ split: SPLIT }), visitor(0));
  t.deepEqual(shown(first), uncached(A));
  t.is(first.variant, A);
  const second = decide(link({ split: SPLIT }), visitor(0xffffffff));
  t.deepEqual(shown(second), uncached(B));
  t.is(second.variant, B);
  t.is(decide(link(null)).variant, '', 'no split: no variant');
});

test('the split draws from the hash of the link being decided', (t) => {
  const asked: number[] = [];
  decide(link({ split: SPLIT }), {
    visitorDraw: (id) => {
      asked.push(id);
      return 0;
    },
  });
  t.deepEqual(asked, [7]);
});

test("every variant paused: the link's own target, no variant recorded", (t) => {
  const paused = SPLIT.map((v) => ({ ...v, paused: true }));
  const d = decide(link({ split: paused }), visitor(0));
  t.deepEqual(shown(d), uncached(URL));
  t.is(d.variant, '');
});

test("a split without the day's salt at hand asks for it (load_salt), recording nothing", (t) => {
  t.deepEqual(shown(decide(link({ split: SPLIT }), visitor(undefined))), { outcome: 'load_salt', record: false });
});

test("a split whose salt cannot be had (null) skips the draw: the link's own target, uncached, no variant", (t) => {
  const d = decide(link({ split: SPLIT }), visitor(null));
  t.deepEqual(shown(d), uncached(URL));
  t.is(d.variant, '');
});

test("a rule's split action draws a variant; a target rule overrides the link's own split; no match falls to the own split", (t) => {
  const C = 'https://example.com/c';
  const D = 'https://example.com/d';
  const rules: Rule[] = [
    {
      conditions: [{ type: 'language', matchKey: null, matchValue: 'de' }],
      action: {
        kind: 'split',
        variants: [
          { url: C, weight: 1, paused: false },
          { url: D, weight: 1, paused: false },
        ],
      },
    },
    { conditions: [{ type: 'language', matchKey: null, matchValue: 'fr' }], action: { kind: 'target', url: GERMAN } },
  ];
  const gate = { rules, split: SPLIT };
  t.is(decide(link(gate), visitor(0xffffffff)).location, D, 'the German visitor: the rule split');
  t.is(decide(link(gate), { ...visitor(0), acceptLanguage: 'fr' }).location, GERMAN, 'the French: the target rule, no draw');
  t.is(decide(link(gate), { ...visitor(0xffffffff), acceptLanguage: 'en' }).location, B, "no rule: the link's own split");
  t.is(decide(link(gate), { ...visitor(0xffffffff), acceptLanguage: 'en' }).variant, B);
});

test("a split keeps the link's status and query forwarding", (t) => {
  const d = decide(link({ split: SPLIT, redirectStatus: 307, forwardQuery: true }), visitor(0));
  t.is(d.status, 307);
  t.is(d.location, `${A}?x=1`);
});

// The pages before the redirect (issue 26): a page rule, or openInBrowser for an in-app browser, is the outcome
// page, uncached and no visit; past the page (pagePassed), the first rule that is no page decides.
const WECHAT =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.50(0x18003237) NetType/WIFI Language/zh_CN';
const PAGE_RULES: Rule[] = [
  { conditions: [{ type: 'language', matchKey: null, matchValue: 'de' }], action: { kind: 'page', page: 'notice' } },
  { conditions: [{ type: 'language', matchKey: null, matchValue: 'de' }], action: { kind: 'target', url: GERMAN } },
];
const NOTICE_PAGES = { ...NO_PAGES, notice: { title: null, message: 'Mind the step', button: 'Go' } };
const PAGE_CASES: Array<[string, Target, Partial<RedirectFacts>, Record<string, unknown>]> = [
  [
    'a page rule that matches shows its page',
    link({ rules: PAGE_RULES, pages: NOTICE_PAGES }),
    {},
    { outcome: 'page', shown: 'notice', cache: 'no-store', record: false },
  ],
  [
    'a bot is shown the page too, never the target',
    link({ rules: PAGE_RULES, pages: NOTICE_PAGES }),
    { isBot: true, userAgent: 'facebookexternalhit/1.1' },
    { outcome: 'page', shown: 'notice', cache: 'no-store', record: false },
  ],
  [
    'past the page, the next rule decides and the GET counts',
    link({ rules: PAGE_RULES, pages: NOTICE_PAGES }),
    { pagePassed: true },
    { outcome: 'redirect', location: GERMAN, cache: 'no-store', record: true },
  ],
  [
    'a page rule that does not match is passed over',
    link({ rules: PAGE_RULES, pages: NOTICE_PAGES }),
    { acceptLanguage: 'fr' },
    { outcome: 'redirect', location: URL, cache: 'no-store', record: true },
  ],
  [
    'openInBrowser shows an in-app browser the page',
    link({ openInBrowser: true }),
    { userAgent: WECHAT },
    { outcome: 'page', shown: 'open-in-browser', cache: 'no-store', record: false },
  ],
  [
    'openInBrowser lets a real browser through',
    link({ openInBrowser: true }),
    {},
    { outcome: 'redirect', location: URL, cache: 'private, max-age=90', record: true },
  ],
  [
    'openInBrowser is passed by its continue',
    link({ openInBrowser: true }),
    { userAgent: WECHAT, pagePassed: true },
    { outcome: 'redirect', location: URL, cache: 'private, max-age=90', record: true },
  ],
  [
    'a locked link asks for its password before any rule',
    link({ locked: true, rules: PAGE_RULES, pages: NOTICE_PAGES }),
    {},
    { outcome: 'password', record: false },
  ],
  [
    'past the password, a locked link shows its page rule',
    link({ locked: true, rules: PAGE_RULES, pages: NOTICE_PAGES }),
    { passwordPassed: true },
    { outcome: 'page', shown: 'notice', cache: 'no-store', record: false },
  ],
  [
    'past the password and the page, the next rule decides, uncached',
    link({ locked: true, rules: PAGE_RULES, pages: NOTICE_PAGES }),
    { passwordPassed: true, pagePassed: true },
    { outcome: 'redirect', location: GERMAN, cache: 'no-store', record: true },
  ],
  [
    'a refusal rule comes before openInBrowser',
    link({ openInBrowser: true, rules: [{ conditions: [], action: { kind: 'refuse', status: 451 } }] }),
    { userAgent: WECHAT },
    { outcome: 'unavailable', record: false },
  ],
];
for (const [title, target, facts, expected] of PAGE_CASES) {
  test(`pages: ${title}`, (t) => {
    const d = decide(target, facts);
    const fields: Record<string, unknown> = { outcome: d.outcome, record: d.record };
    for (const key of Object.keys(expected)) fields[key] = d[key as keyof Decision];
    t.deepEqual(fields, expected);
  });
}

test('pages: a notice rule on a link whose notice could not be read leads to the link’s own target, never a broken page', (t) => {
  const d = decide(link({ rules: [{ conditions: [], action: { kind: 'page', page: 'notice' } }] }));
  t.is(d.outcome, 'redirect');
  t.is(d.location, URL);
});
