import type { RedirectStatus } from '../config.ts';
import { CACHED_REDIRECT, UNCACHED } from '../http/respond.ts';
import { guards, locationOf, notStarted, queryOf, refusalOf } from '../links/gate.ts';
import type { Refusal, Target } from '../links/link.ts';
import { chooseRule, drawVariant, NO_RULE, type RuleFacts } from '../rules/match.ts';
import type { PageKind, RefusalStatus, Variant } from '../rules/rule.ts';
import { classifyUserAgent, inAppBrowser, type ClientKind } from '../visits/classify.ts';

/** The instance's redirect settings, which a link's own options override. */
export interface RedirectSettings {
  readonly redirectStatus: RedirectStatus;
  readonly forwardQuery: boolean;
  /** The domain's: where an unknown code goes instead of the 404 page; null for the 404 page. */
  readonly notFoundRedirect: string | null;
}

/**
 * What a redirect is decided on besides the link: the request's facts. The edge reads each one from the
 * request only when the decision asks for it (getters on one reused object), so an ordinary link's redirect
 * reads no header, no clock and no random number; a test passes plain values.
 */
export interface RedirectFacts extends RuleFacts {
  /** GET or HEAD. */
  readonly method: string;
  /** The request target: the path and query (`/abc?x=1`). */
  readonly url: string;
  /** The Host header as sent (port and all), undefined when absent. The edge maps it to a domain before the lookup. */
  readonly host: string | undefined;
  /** The client asks for a page rather than JSON (its Accept header, `wantsHtml`). */
  readonly wantsHtml: boolean;
  /** The User-Agent is a bot's (a chat app's preview, a crawler): its look does not count. */
  readonly isBot: boolean;
  /**
   * The visitor's daily hash for link `linkId` as a 32-bit number (visits/visitor-salts.ts: the hash that
   * counts unique visitors), what an A/B split draws from; undefined while this process does not hold the
   * day's salt (the edge loads it, and decides again); null when it cannot be had (the split is skipped).
   */
  visitorDraw(linkId: number): number | null | undefined;
  /** The User-Agent is a chat app's or social network's link-preview fetcher (visits/classify.ts, isPreviewFetcher). */
  readonly isPreviewBot: boolean;
  /** The visitor came through a page before the redirect (a signed continue, edge/pages.ts): no page is shown again. */
  readonly pagePassed: boolean;
  /** The visitor gave the link's password (web/handlers/unlock.ts, or a page's pass given after it): the link is not locked for them. */
  readonly passwordPassed: boolean;
}

/**
 * What a redirect answers:
 * - `redirect`: `status` to `location`, with `cache` as its Cache-Control;
 * - `not_found` (404), `gone` (410, deleted), `refused` (410 and `refusal`), `misdirected` (421: a Host that is
 *   none of kurz's domains, with `unknownHosts` refuse); an unknown code on a domain with a not-found redirect
 *   is a `redirect` there;
 * - `password`: the link's password form (`page`) or a 401 saying where to send it;
 * - `page`: a page before the redirect (`shown`: a rule's page action, or open-in-browser for an in-app browser
 *   on a link that asks for it), always as a page, uncached, not a visit (the continue is);
 * - `preview`: the link's social preview, a 200 page of Open Graph and Twitter tags for a link-preview bot, uncached;
 * - `unavailable`: a redirect rule refuses this visitor (`unavailable`: 451, not in their region, or 403), as a
 *   page (`page`) or problem+json, uncached;
 * - `guarded`: a guarded link's state for a look that does not count (a HEAD, a bot), `page` or JSON;
 * - `claim_visit`, `ask_visits_left`: a link with a visit limit needs the store first (`claimVisit` for a
 *   person's GET, `hasVisitsLeft` for a look); `settleVisitCheck` finishes the decision with its answer;
 * - `load_salt`: an A/B split needs the day's visitor salt, which this process does not hold yet: the edge
 *   loads it from the store and decides again.
 */
export type Outcome =
  | 'redirect'
  | 'not_found'
  | 'misdirected'
  | 'gone'
  | 'refused'
  | 'password'
  | 'guarded'
  | 'claim_visit'
  | 'ask_visits_left'
  | 'unavailable'
  | 'load_salt'
  | 'preview'
  | 'page';

/**
 * A decision: its outcome and the fields that outcome reads. The edge decides into one reused object, so
 * deciding allocates nothing; a decision kept across an await must be copied first.
 */
export interface Decision {
  outcome: Outcome;
  /** `redirect` (and `claim_visit`, which becomes one). */
  status: RedirectStatus;
  location: string;
  cache: string;
  /** `refused`. */
  refusal: Refusal;
  /** `unavailable`: the status a redirect rule refuses with. */
  unavailable: RefusalStatus;
  /** `page`: which page. */
  shown: PageKind;
  /** `password`, `guarded` and `unavailable` (and `ask_visits_left`): a page rather than JSON. The 404s and 410s negotiate as every error does. */
  page: boolean;
  /** The answer counts as a visit and is recorded: a GET that redirects, or a bot's GET of a guarded link (as a bot's). */
  record: boolean;
  /** `redirect` (and `claim_visit`): the URL of the A/B split's variant drawn, recorded with the visit; '' for none. */
  variant: string;
  /**
   * `redirect` (and `claim_visit`) of a link with rules: the rule that decided, by its name (RuleProgram's
   * `names`), or NO_RULE, recorded with the visit; '' for a link without rules.
   */
  rule: string;
}

/** A decision to decide into. */
export function newDecision(): Decision {
  return {
    outcome: 'not_found',
    status: 302,
    location: '',
    cache: CACHED_REDIRECT,
    refusal: 'disabled',
    unavailable: 451,
    shown: 'notice',
    page: false,
    record: false,
    variant: '',
    rule: '',
  };
}

/** A code no link has, or a link before its start time: 404, or the domain's not-found redirect. */
function notFound(into: Decision, settings: RedirectSettings): Decision {
  if (settings.notFoundRedirect === null) into.outcome = 'not_found';
  else {
    into.outcome = 'redirect';
    into.status = 302;
    into.location = settings.notFoundRedirect;
    into.cache = UNCACHED;
  }
  return into;
}

/**
 * THE redirect's decision, from what the lookup found (`target`, undefined for an unknown code), the
 * request's facts and the instance's settings, written into `into` and returned. Pure: no I/O, no clock or
 * random number but the facts'. An ordinary link (no gate) redirects after one field test, reading only
 * `method` (and `url` when the query is forwarded).
 *
 * A gated link before its start time answers as an unknown code; blocked, disabled or expired is refused; a locked one asks for its password; then it
 * redirects with its own status and query forwarding. A gate that guards the target (`guards`) hands it out
 * only in an answer that counts, a person's GET, uncached, which a link with a visit limit claims from the
 * store first; a HEAD or a bot is shown the link's state instead (asking the store whether any visits are
 * left, when there is a limit).
 *
 * `settings` are the domain's (the edge maps `facts.host` to a domain before the lookup; `misdirected` decides
 * a host kurz does not serve): an unknown code on a domain with a not-found redirect is sent there, uncached
 * (a link made later takes the code), and still counts as a 404 against the client's limit.
 *
 * Redirect rules (src/rules/): a link with rules carries them in its gate, so an ordinary link keeps its one
 * field test. After the refusals, the password and a guarded link's look, the first rule whose conditions
 * match the facts (`chooseRule`, the user agent read through `classify`) decides: a `target` action is
 * redirected to with the link's own status and query forwarding, a `refuse` action answers `unavailable`;
 * a `split` action draws a variant (below), a `page` action shows its page (`page`; not once it is passed, and
 * not a notice or form the link lacks); no match is the link's own target (or its own split). The rule that
 * decided (NO_RULE for none) is recorded with the visit. The answer of a link with rules depends on the visitor:
 * it is never cached.
 *
 * A/B splits: a `split` action, or, when no rule decides, the link's own split (`gate.split`), draws a variant
 * with `drawVariant` from the visitor's daily hash (`facts.visitorDraw`, the hash that counts unique visitors,
 * so a visitor sticks to one variant for the day while the weights stay); the variant is redirected to like a
 * target and recorded with the visit. Every variant paused: the link's own target. Uncached, as rules.
 *
 * A link with a social preview (links/preview.ts) answers a link-preview bot (`isPreviewBot`) with `preview` once
 * no refusal applies, before its password and rules: the card is the owner's choice and names no target.
 * Its redirects are uncached too, so that no cache hands a person's redirect to a bot.
 *
 * Past a password or a page (web/handlers/lead-on.ts) the same decision is taken again with `passwordPassed` or
 * `pagePassed` set: the link's rules, split, pages and visit limit apply there as here.
 */
export function decideRedirect(
  target: Target | undefined,
  facts: RedirectFacts,
  settings: RedirectSettings,
  into: Decision,
  classify: (userAgent: string) => ClientKind = classifyUserAgent,
): Decision {
  into.record = false;
  into.variant = '';
  into.rule = '';
  if (target === undefined) return notFound(into, settings);
  if (target.deleted) {
    into.outcome = 'gone';
    return into;
  }
  const gate = target.gate;
  if (gate === null) {
    into.outcome = 'redirect';
    into.status = settings.redirectStatus;
    into.location = settings.forwardQuery ? locationOf(target.url, queryOf(facts.url), true) : target.url;
    into.cache = CACHED_REDIRECT;
    into.record = facts.method === 'GET';
    return into;
  }
  if (notStarted(gate.startsAt, facts.now)) return notFound(into, settings);
  const refusal = refusalOf(gate, facts.now);
  if (refusal !== undefined) return refuse(into, refusal);
  // A link with a social preview: link-preview bots get its card (which names no target), people the redirect;
  // as the two differ by user agent, neither may be kept by a cache. A bot's GET counts as a bot's visit.
  const previewed = gate.preview !== null;
  if (previewed && facts.isPreviewBot) {
    into.outcome = 'preview';
    into.cache = UNCACHED;
    into.record = facts.method === 'GET';
    return into;
  }
  if (gate.locked && !facts.passwordPassed) {
    into.outcome = 'password';
    into.page = facts.wantsHtml;
    return into;
  }
  const guarded = guards(gate);
  // Only a person's GET counts: a HEAD (a link checker) or a bot only looks, uses no visit up, and is not shown the target.
  if (guarded && (facts.method !== 'GET' || facts.isBot)) {
    into.outcome = gate.maxVisits === null ? 'guarded' : 'ask_visits_left';
    into.page = facts.wantsHtml;
    into.cache = UNCACHED;
    into.record = facts.method === 'GET';
    return into;
  }
  let url = target.url;
  let split: readonly Variant[] | null = gate.split;
  const rules = gate.rules;
  const ruled = rules !== null && rules.rules.length > 0;
  if (ruled) {
    // Past a page, the first rule that is no page decides: what the link would serve without it.
    const chosen = chooseRule(rules, facts, classify, facts.pagePassed);
    const action = chosen < 0 ? undefined : rules.rules[chosen]!.action;
    into.rule = chosen < 0 ? NO_RULE : rules.names[chosen]!;
    if (action?.kind === 'refuse') {
      into.outcome = 'unavailable';
      into.unavailable = action.status;
      into.page = facts.wantsHtml;
      into.cache = UNCACHED;
      return into;
    }
    // A notice or form the link lacks (settings that could not be read) is no page: the link's own target.
    if (action?.kind === 'page' && !facts.pagePassed && (action.page === 'open-in-browser' || gate.pages[action.page] !== null))
      return showPage(into, action.page);
    if (action?.kind === 'target') {
      url = action.url;
      split = null;
    } else if (action?.kind === 'split') split = action.variants;
  }
  // An in-app browser that would fail the target (a download, an app store) is shown how to leave first.
  if (gate.openInBrowser && !facts.pagePassed && inAppBrowser(facts.userAgent) !== null) return showPage(into, 'open-in-browser');
  if (split !== null) {
    const draw = facts.visitorDraw(target.id);
    if (draw === undefined) {
      into.outcome = 'load_salt';
      return into;
    }
    const variant = draw === null ? undefined : drawVariant(split, draw);
    if (variant !== undefined) url = into.variant = variant.url;
  }
  into.outcome = guarded && gate.maxVisits !== null ? 'claim_visit' : 'redirect';
  into.status = gate.redirectStatus ?? settings.redirectStatus;
  into.location = locationOf(url, queryOf(facts.url), gate.forwardQuery ?? settings.forwardQuery);
  into.cache = guarded || ruled || split !== null || previewed ? UNCACHED : CACHED_REDIRECT;
  into.record = facts.method === 'GET';
  return into;
}

/** The decision for a request whose Host is none of kurz's domains, when `unknownHosts` is refuse. */
export function misdirected(into: Decision): Decision {
  into.outcome = 'misdirected';
  into.record = false;
  return into;
}

/**
 * Finishes a `claim_visit` or `ask_visits_left` decision with the store's answer: whether a visit was
 * claimed (a person's GET) or any are left (a look). Without one, the link is used up.
 */
export function settleVisitCheck(pending: Decision, left: boolean): Decision {
  if (!left) return refuse(pending, 'used_up');
  pending.outcome = pending.outcome === 'claim_visit' ? 'redirect' : 'guarded';
  return pending;
}

function showPage(into: Decision, page: PageKind): Decision {
  into.outcome = 'page';
  into.shown = page;
  into.page = true;
  into.cache = UNCACHED;
  into.record = false;
  return into;
}

function refuse(into: Decision, refusal: Refusal): Decision {
  into.outcome = 'refused';
  into.refusal = refusal;
  into.record = false;
  return into;
}
