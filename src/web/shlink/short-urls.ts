import type { Context } from 'koa';
import type { Actor } from '../../auth/actor.ts';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { readBody } from '../../http/body.ts';
import { sendJson, sendNoContent } from '../../http/respond.ts';
import type { Link, LinkQuery, ListOrder, ListSort, TagMode } from '../../links/link.ts';
import { checkCodeLength } from '../../links/alias-rules.ts';
import { parseTags } from '../../links/link-options.ts';
import { takeCreations } from '../creation-limit.ts';
import { actorOf } from '../session.ts';
import { dateRange, domainParam, flagParam, listParam, liveShortUrl, pageParams, pagination, param, timeParam } from './params.ts';
import { invalidData, nonUniqueSlug, shortUrlNotFound } from './problems.ts';
import { shortUrlJson } from './short-url-json.ts';

/** Shlink's orderBy fields and the kurz sort each is (people's visits order both visit fields). */
const SORTS: Readonly<Record<string, ListSort>> = {
  longUrl: 'url',
  shortCode: 'code',
  dateCreated: 'created',
  title: 'title',
  visits: 'visits',
  nonBotVisits: 'visits',
};

/** Links of the same target looked through for findIfExists, newest first. */
const FIND_LIMIT = 100;

/** The fields a short URL is created and edited with, in kurz's words (links/link-fields.ts). */
type LinkInput = Record<string, unknown>;

/** A JSON body that is an object; anything else is Shlink's invalid-data. */
async function readObject(ctx: Context): Promise<Record<string, unknown>> {
  const body = await readBody(ctx.req, ['json']);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidData([], 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

/**
 * The fields both creation and edition take, from Shlink's names to kurz's: `validSince` is the link's start
 * time and `crawlable` its place in robots.txt, one to one. What kurz has no place for is refused when it would
 * change how the link behaves.
 */
function editionFields(body: Record<string, unknown>): LinkInput {
  const input: LinkInput = {};
  if (body['longUrl'] !== undefined) input['url'] = body['longUrl'];
  if (body['title'] !== undefined) input['title'] = body['title'];
  if (body['tags'] !== undefined) {
    if (body['tags'] !== null && !Array.isArray(body['tags'])) throw invalidData(['tags'], 'tags must be a list of strings');
    input['tags'] = body['tags'];
  }
  if (body['validSince'] !== undefined) input['startsAt'] = body['validSince'];
  if (body['validUntil'] !== undefined) input['expiresAt'] = body['validUntil'];
  if (body['maxVisits'] !== undefined) input['maxVisits'] = body['maxVisits'];
  if (body['forwardQuery'] !== undefined) input['forwardQuery'] = body['forwardQuery'];
  // Shlink 3's long URLs per device are kurz's device rules: refused here rather than dropped.
  const devices = body['deviceLongUrls'];
  if (
    devices !== undefined &&
    devices !== null &&
    (typeof devices !== 'object' || Object.values(devices).some((url) => url !== null && url !== ''))
  )
    throw invalidData(
      ['deviceLongUrls'],
      "kurz sends devices elsewhere with redirect rules (the link's page or PUT /api/v1/links/CODE/rules)",
    );
  // Shlink takes a null crawlable as not given.
  if (body['crawlable'] !== undefined && body['crawlable'] !== null) input['crawlable'] = body['crawlable'];
  return input;
}

/**
 * The creation fields on top of the edition's: `customSlug`, `domain`, `shortCodeLength` (kurz's `codeLength`,
 * checked here by kurz's rule so that findIfExists never skips it; unused beside a slug, as Shlink does).
 */
function creationFields(body: Record<string, unknown>): { input: LinkInput & { url: unknown }; findIfExists: boolean } {
  if (body['longUrl'] === undefined || body['longUrl'] === null) throw invalidData(['longUrl'], 'longUrl is required');
  const input: LinkInput & { url: unknown } = { ...editionFields(body), url: body['longUrl'] };
  const slug = body['customSlug'];
  if (slug !== undefined && slug !== null && slug !== '') input['alias'] = slug;
  if (body['domain'] !== undefined && body['domain'] !== null && body['domain'] !== '') input['domain'] = body['domain'];
  const prefix = body['pathPrefix'];
  if (prefix !== undefined && prefix !== null && prefix !== '') throw invalidData(['pathPrefix'], 'kurz has no path prefixes');
  const length = body['shortCodeLength'];
  if (length !== undefined && length !== null) {
    const checked = checkCodeLength(length);
    if (input['alias'] === undefined) input['codeLength'] = checked;
  }
  const findIfExists = body['findIfExists'] ?? false;
  if (typeof findIfExists !== 'boolean') throw invalidData(['findIfExists'], 'findIfExists must be true or false');
  return { input, findIfExists };
}

/**
 * Whether an existing link is what a creation with `findIfExists` asked for: each of the fields given that
 * the link keeps (its slug, tags, title, start, expiry, visit limit, query forwarding, crawlable) is the link's, read by the same rules.
 */
function matches(link: Link, input: LinkInput): boolean {
  const given = (field: string) => input[field] !== undefined;
  const time = (value: unknown, field: string) => (value === null ? null : (timeParam(value, field) ?? null));
  return (
    (!given('alias') || input['alias'] === link.code) &&
    (!given('tags') || parseTags(input['tags']).join('\n') === link.tags.join('\n')) &&
    (!given('title') || (typeof input['title'] === 'string' ? input['title'].trim() || null : null) === link.title) &&
    (!given('startsAt') || time(input['startsAt'], 'validSince') === (link.startsAt?.getTime() ?? null)) &&
    (!given('expiresAt') || time(input['expiresAt'], 'validUntil') === (link.expiresAt?.getTime() ?? null)) &&
    (!given('maxVisits') || input['maxVisits'] === link.maxVisits) &&
    (!given('forwardQuery') || input['forwardQuery'] === link.forwardQuery) &&
    (!given('crawlable') || input['crawlable'] === link.crawlable)
  );
}

/** `orderBy=field-ASC|DESC` (a bare field is ascending, as Shlink reads it). */
function orderOf(ctx: Context): { sort?: ListSort; order?: ListOrder } {
  const value = param(ctx, 'orderBy');
  if (value === undefined) return {};
  const [field = '', dir = 'ASC'] = value.split('-');
  const sort = SORTS[field];
  if (sort === undefined || (dir !== 'ASC' && dir !== 'DESC'))
    throw invalidData(['orderBy'], `orderBy must be one of ${Object.keys(SORTS).join(', ')}, then -ASC or -DESC`);
  return { sort, order: dir === 'ASC' ? 'asc' : 'desc' };
}

function tagModeOf(ctx: Context, name: string): TagMode {
  const mode = param(ctx, name) ?? 'any';
  if (mode !== 'any' && mode !== 'all') throw invalidData([name], `${name} must be any or all`);
  return mode;
}

/** /rest/v{1,2,3}/short-urls */
export function shortUrlHandlers(web: WebServices) {
  /** The short URLs' visits summaries, read in one query. */
  async function present(links: readonly Link[]) {
    const totals = await web.stats.totalsOf(links);
    return links.map((link) => shortUrlJson(link, totals.get(link.id) ?? { humans: 0, bots: 0 }, web));
  }

  /**
   * The caller's newest live link of the same target on the same domain whose fields match the ones given
   * (Shlink's findIfExists), or undefined; input kurz would refuse finds nothing (creation then says why).
   */
  async function findExisting(actor: Actor, input: LinkInput): Promise<Link | undefined> {
    if (typeof input['url'] !== 'string' || !URL.canParse(input['url'])) return undefined;
    const url = new URL(input['url']).href;
    let domain: number;
    try {
      domain = web.registry.idOf(input['domain']);
    } catch {
      return undefined;
    }
    const found = await web.links.listLinks(actor, { search: url, domain, limit: FIND_LIMIT });
    return found.find((link) => link.url === url && matches(link, input));
  }

  /** A refusal about the link itself in Shlink's words: not found (or deleted) is its 404. */
  function aboutLink(ctx: Context, err: unknown): unknown {
    if (err instanceof AppError && (err.code === 'not_found' || err.code === 'gone'))
      return shortUrlNotFound(ctx.params['shortCode'] ?? '', domainParam(param(ctx, 'domain'), web.registry).host);
    return err;
  }

  return {
    /**
     * A new short URL (200, as Shlink answers). Without `findIfExists` a new link is made even when the caller
     * has one for the URL already; with it, such a link is returned when the fields given match it.
     */
    async createShortUrl(ctx: Context): Promise<void> {
      takeCreations(ctx, web, 1);
      const body = await readObject(ctx);
      const { input, findIfExists } = creationFields(body);
      try {
        const actor = actorOf(ctx);
        const existing = findIfExists ? await findExisting(actor, input) : undefined;
        const link = existing ?? (await web.creation.createLink(actor, input, { separate: true })).link;
        sendJson(ctx.res, 200, (await present([link]))[0]);
      } catch (err) {
        if (err instanceof AppError && err.code === 'conflict' && err.field === 'alias') {
          const { host } = domainParam(typeof input['domain'] === 'string' ? input['domain'] : undefined, web.registry);
          throw nonUniqueSlug(String(input['alias']), host);
        }
        throw err;
      }
    },

    /** A numbered page of the caller's short URLs, with Shlink's filters and order. */
    async listShortUrls(ctx: Context): Promise<void> {
      const ask = pageParams(ctx);
      const search = param(ctx, 'searchTerm');
      const tags = listParam(ctx, 'tags');
      const excludeTags = listParam(ctx, 'excludeTags');
      const { from, before } = dateRange(ctx);
      const domainText = param(ctx, 'domain');
      // A host kurz does not serve has no short URLs: an empty page, as Shlink answers for a domain it lacks.
      const domain = domainText === undefined ? undefined : (domainParam(domainText, web.registry, true).id ?? -1);
      // kurz's `active` is a link that redirects now: not used up, not past its expiry (nor disabled, blocked or in review).
      const [usedUp, past] = [flagParam(ctx, 'excludeMaxVisitsReached'), flagParam(ctx, 'excludePastValidUntil')];
      const onlyLive = usedUp || past;
      const query: LinkQuery = {
        search: search?.trim() || undefined,
        tags: tags.length > 0 ? tags : undefined,
        tagMode: tagModeOf(ctx, 'tagsMode'),
        excludeTags: excludeTags.length > 0 ? excludeTags : undefined,
        excludeTagMode: tagModeOf(ctx, 'excludeTagsMode'),
        ...orderOf(ctx),
        createdFrom: from,
        createdBefore: before,
        domain,
        state: onlyLive ? 'active' : undefined,
        limit: ask.all ? 2 ** 31 - 1 : ask.size,
        offset: ask.offset,
      };
      const { links, total } = await web.links.listNumbered(actorOf(ctx), query);
      sendJson(ctx.res, 200, { shortUrls: { data: await present(links), pagination: pagination(ask, links.length, total) } });
    },

    async showShortUrl(ctx: Context): Promise<void> {
      sendJson(ctx.res, 200, (await present([await liveShortUrl(ctx, web)]))[0]);
    },

    /** Sets the fields given (null clears one) and answers the short URL as it is now. */
    async editShortUrl(ctx: Context): Promise<void> {
      const link = await liveShortUrl(ctx, web);
      const input = editionFields(await readObject(ctx));
      let edited = link;
      try {
        if (Object.keys(input).length > 0) edited = await web.links.editLink(actorOf(ctx), link.code, input, link.domain);
      } catch (err) {
        throw aboutLink(ctx, err);
      }
      sendJson(ctx.res, 200, (await present([edited]))[0]);
    },

    /** 204. The code keeps answering 410 to visitors and is never handed out again. */
    async deleteShortUrl(ctx: Context): Promise<void> {
      const link = await liveShortUrl(ctx, web);
      try {
        await web.links.deleteLink(actorOf(ctx), link.code, link.domain);
      } catch (err) {
        throw aboutLink(ctx, err);
      }
      sendNoContent(ctx.res);
    },
  };
}
