import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { readBody } from '../../http/body.ts';
import { sendJson } from '../../http/respond.ts';
import type { Link } from '../../links/link.ts';
import { BROWSERS, DEVICES, type ConditionType, type RuleJson } from '../../rules/rule.ts';
import { actorOf } from '../session.ts';
import { liveShortUrl } from './params.ts';
import { invalidData } from './problems.ts';

/** The condition types Shlink has: kurz's rules take these with the same keys and values, and more of their own. */
const SHLINK_CONDITIONS: ReadonlySet<ConditionType> = new Set([
  'device',
  'language',
  'query-param',
  'any-value-query-param',
  'valueless-query-param',
  'ip-address',
  'geolocation-country-code',
  'geolocation-city-name',
  'before-date',
  'after-date',
  'browser',
]);

/** kurz's values of `device` and `browser` that Shlink does not have. */
const KURZ_ONLY_VALUES: ReadonlySet<string> = new Set([
  ...DEVICES.filter((device) => device === 'tablet'),
  ...BROWSERS.filter((browser) => browser === 'samsung_internet'),
]);

/** Whether Shlink can say a kurz rule: it sends to a target, on conditions Shlink has. */
function isShlinks(rule: RuleJson): boolean {
  return (
    rule.target !== undefined &&
    rule.conditions.every(
      (c) => SHLINK_CONDITIONS.has(c.type) && !((c.type === 'device' || c.type === 'browser') && KURZ_ONLY_VALUES.has(c.matchValue ?? '')),
    )
  );
}

/** A Shlink rule (`longUrl` on its conditions) as kurz's: the same conditions, the target its action. */
function kurzRule(rule: unknown, i: number): unknown {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule))
    throw invalidData(['redirectRules'], `redirectRules[${i}] must be an object {longUrl, conditions}`);
  const { longUrl, conditions } = rule as Record<string, unknown>;
  return { conditions, target: longUrl };
}

/** /rest/v{1,2,3}/short-urls/CODE/redirect-rules: kurz's redirect rules, one to one where Shlink has the words. */
export function shlinkRuleHandlers(web: WebServices) {
  /** The rules as Shlink lists them: each with its priority, its place in kurz's list (from 1). */
  function rulesJson(link: Link, rules: readonly RuleJson[]) {
    return {
      defaultLongUrl: link.url,
      redirectRules: rules.flatMap((rule, i) =>
        isShlinks(rule) ? [{ longUrl: rule.target ?? '', priority: i + 1, conditions: rule.conditions }] : [],
      ),
    };
  }

  return {
    /**
     * The link's rules that Shlink can say. A rule of kurz's own (a split, a refusal, a page, or a condition
     * Shlink lacks) is left out, and its place shows as a gap in the priorities.
     */
    async listRedirectRules(ctx: Context): Promise<void> {
      const link = await liveShortUrl(ctx, web);
      sendJson(ctx.res, 200, rulesJson(link, await web.links.rulesOf(actorOf(ctx), link.code, link.domain)));
    },

    /**
     * Replaces the link's rules with `redirectRules`, in order ([] clears them), checked by kurz's rules. A link
     * with rules of kurz's own is refused: replacing them from a client that cannot see them would lose them.
     */
    async setRedirectRules(ctx: Context): Promise<void> {
      const link = await liveShortUrl(ctx, web);
      const body = await readBody(ctx.req, ['json']);
      const given = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['redirectRules'] : undefined;
      if (!Array.isArray(given)) throw invalidData(['redirectRules'], 'redirectRules must be a list of rules {longUrl, conditions}');
      const actor = actorOf(ctx);
      const current = await web.links.rulesOf(actor, link.code, link.domain);
      if (!current.every(isShlinks))
        throw invalidData(
          ['redirectRules'],
          "the link has redirect rules Shlink cannot show (a split, a refusal, a page, or a condition of kurz's own): change them on its kurz page",
        );
      try {
        const rules = await web.links.setRules(actor, link.code, given.map(kurzRule), link.domain);
        sendJson(ctx.res, 200, rulesJson(link, rules));
      } catch (err) {
        if (err instanceof AppError && err.code === 'invalid')
          throw invalidData(['redirectRules'], err.message.replaceAll('rules[', 'redirectRules['));
        throw err;
      }
    },
  };
}
