import type { Context } from 'koa';
import typeis from 'type-is';
import type { Actor } from '../../auth/actor.ts';
import { grants, type Scope } from '../../auth/scopes.ts';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { DEFAULT_DOMAIN } from '../../domains/domain.ts';
import type { Link, ListSort, ListOrder } from '../../links/link.ts';
import { readBody } from '../../http/body.ts';
import { sendRetryAfter, asClientError } from '../../http/problems.ts';
import { markPersonal, send } from '../../http/respond.ts';
import { takeCreations } from '../creation-limit.ts';
import type { WebState } from '../session.ts';
import { yourlsAuthentication, type YourlsParams } from '../yourls-auth.ts';
import { writeYourls, type YourlsAnswer, type YourlsRecord } from '../yourls-output.ts';

/** The YOURLS release whose API kurz answers as (clients read `version` to decide what they may ask). */
export const YOURLS_VERSION = '1.10.4';
const YOURLS_DB_VERSION = '507';

/** What `format=simple` prints for the statistics, which have no text form. */
const NEEDS_FORMAT = 'Need either XML or JSON format for stats';
const NOT_FOUND = 'Error: short URL not found';
const UNKNOWN_ACTION = 'Unknown or missing "action" parameter';

/** The most links one `stats` call may list (`start` + `limit`): the link list's own bound, ten times over. */
export const STATS_MAX = 1000;

/** The scope each action needs of an API key; `version` needs none but a key or a login. */
const ACTION_SCOPES: Readonly<Record<string, Scope | null>> = {
  shorturl: 'links:write',
  expand: 'links:read',
  'url-stats': 'stats:read',
  stats: 'stats:read',
  'db-stats': 'stats:read',
  version: null,
};

/** How `stats`' filters order the links; `rand` draws from the most visited STATS_MAX. */
const FILTERS: Readonly<Record<string, { sort: ListSort; order: ListOrder }>> = {
  top: { sort: 'visits', order: 'desc' },
  bottom: { sort: 'visits', order: 'asc' },
  last: { sort: 'created', order: 'desc' },
};

/** YOURLS' `trim_long_string`: at most 60 characters, a long one cut and ending in "[...]". */
function trimmed(text: string): string {
  const chars = [...text];
  return chars.length > 60 ? `${chars.slice(0, 55).join('')}[...]` : text;
}

/** A time as YOURLS' database gives it: `YYYY-MM-DD HH:MM:SS` (UTC). */
function yourlsTime(at: Date): string {
  return at.toISOString().slice(0, 19).replace('T', ' ');
}

/** PHP's intval of a parameter: its leading integer, else 0. */
function intval(value: string | undefined): number {
  const match = /^\s*([+-]?\d+)/.exec(value ?? '');
  return match ? Number.parseInt(match[1]!, 10) : 0;
}

/**
 * /yourls-api.php: YOURLS' API, for the clients written for it (ShareX, browser extensions, scripts). The
 * parameters come from the query and a form or multipart body (the body's win, as PHP's $_REQUEST has it);
 * who acts is found by yourls-auth.ts; each action goes through the use cases the JSON API uses, and its
 * answer is written as YOURLS writes it (yourls-output.ts).
 */
export function yourlsApiHandlers(web: WebServices) {
  const authenticate = yourlsAuthentication(web);

  /** The request's parameters: the query's (the last of a repeated one, as PHP keeps it), then the body's. */
  async function paramsOf(ctx: Context): Promise<YourlsParams> {
    const params = new Map<string, string>();
    for (const [name, value] of Object.entries(ctx.query)) {
      const last = Array.isArray(value) ? value.at(-1) : value;
      if (last !== undefined) params.set(name, last);
    }
    if (typeis.hasBody(ctx.req) && ctx.req.headers['content-length'] !== '0') {
      const body = (await readBody(ctx.req, ['form', 'multipart'])) as Record<string, unknown>;
      for (const [name, value] of Object.entries(body)) if (typeof value === 'string') params.set(name, value);
    }
    return params;
  }

  /** The link a `shorturl` parameter names: a code, or a short URL on one of kurz's domains. */
  async function linkNamed(actor: Actor, shorturl: string): Promise<{ code: string; link: Link | undefined }> {
    let code = shorturl.trim();
    let domain: number | undefined = DEFAULT_DOMAIN;
    const url = /^https?:\/\//i.test(code) ? URL.parse(code) : null;
    if (url) {
      domain = web.registry.idOfHost(url.hostname.toLowerCase());
      // A code is letters, digits, - and _: a path that needs decoding names none.
      code = url.pathname.slice(1);
    }
    if (domain === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(code)) return { code, link: undefined };
    const link = await web.links.linkByCode(actor, code, domain);
    return { code, link: link && !link.deletedAt ? link : undefined };
  }

  /** A link as YOURLS' statistics list one. */
  function linkFields(link: Link): YourlsRecord {
    return {
      shorturl: web.shortUrl(link),
      url: link.url,
      title: link.title ?? '',
      timestamp: yourlsTime(link.createdAt),
      ip: '',
      clicks: String(link.visitCount),
    };
  }

  /** The request's domain, where `shorturl` creates: the Host's, when it is one of kurz's; else the default. */
  function hostOfRequest(ctx: Context): string | undefined {
    const domain = web.registry.domainOfRequest(ctx.req.rawHeaders);
    return domain === undefined || domain === DEFAULT_DOMAIN ? undefined : web.registry.hostOf(domain);
  }

  async function shorten(ctx: Context, actor: Actor, params: YourlsParams): Promise<YourlsAnswer> {
    const url = params.get('url') ?? '';
    const keyword = params.get('keyword') ?? '';
    const title = params.get('title') ?? '';
    const client = web.pipeline.contextOf(ctx.req).client;
    try {
      takeCreations(ctx, web, 1);
      const input = {
        url,
        ...(keyword === '' ? {} : { alias: keyword }),
        ...(title.trim() === '' ? {} : { title: title.trim() }),
        domain: hostOfRequest(ctx),
      };
      // A title is no reason for a second link of the same URL, as in YOURLS: the earlier one is answered.
      const { link, created } = await web.creation.createLink(actor, input, { ask: true });
      const shorturl = web.shortUrl(link);
      if (!created) {
        const message = `${trimmed(url)} already exists in database (short URL: ${shorturl.replace(/^https?:\/\//, '')})`;
        const stored = { keyword: link.code, url: link.url, title: link.title ?? '', date: yourlsTime(link.createdAt), ip: '' };
        return {
          fields: {
            status: 'fail',
            code: 'error:url',
            message,
            errorCode: '400',
            statusCode: '400',
            url: { ...stored, clicks: String(link.visitCount) },
            title: link.title ?? '',
            shorturl,
          },
          simple: shorturl,
        };
      }
      const stored = { keyword: link.code, url: link.url, title: link.title ?? '', date: yourlsTime(link.createdAt), ip: client };
      return {
        fields: {
          status: 'success',
          code: '',
          message: `${trimmed(link.url)} added to database`,
          errorCode: '',
          statusCode: '200',
          url: stored,
          title: link.title ?? '',
          shorturl,
        },
        simple: shorturl,
      };
    } catch (err) {
      return refusedCreation(ctx, err, url, keyword);
    }
  }

  /** A refused `shorturl` in YOURLS' words where YOURLS has the case, kurz's precise message where it has not. */
  function refusedCreation(ctx: Context, err: unknown, url: string, keyword: string): YourlsAnswer {
    const problem = asClientError(err);
    if (!problem) throw err;
    sendRetryAfter(ctx.res, problem);
    let code = `error:${problem.field ?? problem.code}`;
    let message = problem.message;
    let status = String(problem.status);
    if (problem.field === 'url') {
      code = problem.message.startsWith('url leads back') ? 'error:noloop' : 'error:nourl';
      if (url.trim() === '') message = 'Missing or malformed URL';
    } else if (problem.field === 'alias') {
      // YOURLS answers every refused keyword with 400, a taken one too.
      code = 'error:keyword';
      status = '400';
      if (problem.code === 'conflict' || problem.message.includes('reserved'))
        message = `Short URL ${keyword} already exists in database or is reserved`;
    } else if (problem.code === 'rate_limited') code = 'error:flood';
    else if (problem.code === 'unavailable') code = 'error:db';
    return { fields: { status: 'fail', code, message, errorCode: status, statusCode: status }, simple: message };
  }

  async function expand(actor: Actor, params: YourlsParams): Promise<YourlsAnswer> {
    const { code, link } = await linkNamed(actor, params.get('shorturl') ?? '');
    if (!link) return { fields: { keyword: code, message: NOT_FOUND, errorCode: '404' }, simple: 'not found' };
    return {
      fields: {
        keyword: link.code,
        shorturl: web.shortUrl(link),
        longurl: link.url,
        title: link.title ?? '',
        message: 'success',
        statusCode: '200',
      },
      simple: link.url,
    };
  }

  async function urlStats(actor: Actor, params: YourlsParams): Promise<YourlsAnswer> {
    const { link } = await linkNamed(actor, params.get('shorturl') ?? '');
    if (!link) return { fields: { statusCode: '404', message: NOT_FOUND }, simple: NEEDS_FORMAT };
    return { fields: { statusCode: '200', message: 'success', link: linkFields(link) }, simple: NEEDS_FORMAT };
  }

  /** The actor's links and visits: a member's own, an admin's everyone's. */
  async function totals(actor: Actor): Promise<YourlsRecord> {
    const figures = await web.stats.figuresFor(actor, 1);
    return { total_links: figures.links, total_clicks: figures.humansAllTime };
  }

  async function stats(actor: Actor, params: YourlsParams): Promise<YourlsAnswer> {
    const filter = params.get('filter') ?? '';
    const limit = intval(params.get('limit'));
    const start = Math.max(0, intval(params.get('start')));
    const fields: Record<string, YourlsRecord | string> = {};
    if (limit > 0) {
      if (start + limit > STATS_MAX)
        throw new AppError('invalid', `start + limit may be at most ${STATS_MAX}, got ${start + limit}`, 'limit');
      const random = filter === 'rand' || filter === 'random';
      const { sort, order } = FILTERS[filter] ?? FILTERS['top']!;
      const found = await web.links.listLinks(actor, { sort, order, limit: random ? STATS_MAX : start + limit });
      const chosen = random ? shuffled(found).slice(0, limit) : found.slice(start, start + limit);
      const links: Record<string, YourlsRecord> = {};
      chosen.forEach((link, i) => (links[`link_${i + 1}`] = linkFields(link)));
      if (chosen.length > 0) fields['links'] = links;
    }
    return { fields: { ...fields, stats: await totals(actor), statusCode: '200', message: 'success' }, simple: NEEDS_FORMAT };
  }

  /** The links in a random order, drawn from the instance's random source. */
  function shuffled<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = web.random(4).readUInt32BE(0) % (i + 1);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  async function answer(ctx: Context, action: string, actor: Actor, params: YourlsParams): Promise<YourlsAnswer> {
    switch (action) {
      case 'shorturl':
        return shorten(ctx, actor, params);
      case 'expand':
        return expand(actor, params);
      case 'url-stats':
        return urlStats(actor, params);
      case 'stats':
        return stats(actor, params);
      case 'db-stats':
        return { fields: { 'db-stats': await totals(actor), statusCode: '200', message: 'success' }, simple: NEEDS_FORMAT };
      case 'version':
        return {
          fields: { version: YOURLS_VERSION, ...(params.get('db') === '1' ? { db_version: YOURLS_DB_VERSION } : {}) },
          simple: YOURLS_VERSION,
        };
      default:
        return { fields: { errorCode: '400', message: UNKNOWN_ACTION }, simple: UNKNOWN_ACTION };
    }
  }

  return {
    /** GET or POST /yourls-api.php?action=…: YOURLS' answer in YOURLS' format (`format`, xml by default). */
    async answerYourls(ctx: Context): Promise<void> {
      const params = await paramsOf(ctx);
      const format = params.get('format') ?? 'xml';
      const action = params.get('action') ?? '';
      const found = await authenticate(ctx, params);
      let result: YourlsAnswer;
      if ('refused' in found) {
        // As YOURLS' auth.php answers: the callback always there, empty when none was given.
        sendRetryAfter(ctx.res, found);
        const fields = { message: found.refused, errorCode: String(found.status), callback: params.get('callback') ?? '' };
        result = { fields, simple: found.refused };
      } else {
        const { actor, scopes } = found;
        (ctx.state as WebState).actor = actor;
        markPersonal(ctx.res);
        const scope = ACTION_SCOPES[action];
        if (scope && scopes && !grants(scopes, scope)) {
          const message = `the API key lacks the scope ${scope}, which the action ${action} needs; make a key that has it`;
          result = { fields: { message, errorCode: '403' }, simple: message };
        } else {
          try {
            result = await answer(ctx, action, actor, params);
          } catch (err) {
            const problem = asClientError(err);
            if (!problem) throw err;
            sendRetryAfter(ctx.res, problem);
            result = { fields: { message: problem.message, errorCode: String(problem.status) }, simple: problem.message };
          }
        }
        const callback = params.get('callback') ?? params.get('jsonp');
        if (callback !== undefined) result = { ...result, fields: { ...result.fields, callback } };
      }
      const { status, type, body } = writeYourls(format, result);
      send(ctx.res, status, { 'Content-Type': type, 'X-Content-Type-Options': 'nosniff' }, body);
    },
  };
}
